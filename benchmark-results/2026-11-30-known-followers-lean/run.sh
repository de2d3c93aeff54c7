#!/bin/bash
# "Followers you know" of a celebrity with 200,000 followers: a generated graph (user 1 followed by users
# 1,000..200,999; viewer 5 follows 1,000 of them, viewer 6 follows 1,000 users who do not follow user 1, viewer 7
# follows 20 of them), imported by ./graph up with the local celebrity pages (threshold 2,000, pages of 1,000:
# 200 pages). Then, through the gateway on one keep-alive connection, GET /v1/users/1/followers/known?limit=50 as
# each viewer (20 requests for the celebrity, 300 for the others, after 50 unrecorded), and the same for a small
# user (user 2, followed by 100 of viewer 5's followees) for comparison: latency.py's p50 and p99 of each, 1,000
# requests after 50 unrecorded. The floor, on the same fleet and connection: the single follow check
# GET /v1/users/5/following/100000 (the check's lean path). The whole loop runs twice, and only the second round
# is recorded: in the first minutes after an import the fleet is busy with its own background work. This is
# 2026-11-29-known-followers-quiet/run.sh again, run twice on one build: LABEL=lean (the default; known followers
# among the gateway's lean reads) writes latency-lean.txt, LABEL=routed (graph.gateway.lean-reads.enabled=false, so
# every read but the single check goes through Spring Cloud Gateway's routes, as known followers did before)
# writes latency-routed.txt; a label starting with either (lean-2) runs that setting again into a file of its own.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-30-known-followers-lean
F=/tmp/bench-known-lean; DATA=/tmp/known-followers-graph.txt
LABEL=${LABEL:-lean}
case $LABEL in
  lean*) LEAN=true ;;
  routed*) LEAN=false ;;
  *) echo "LABEL must start with lean or routed" >&2; exit 2 ;;
esac
python3 - "$DATA" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    for u in range(1000, 201000):
        f.write(f"{u} 1\n")
    for u in range(100000, 101000):
        f.write(f"5 {u}\n")
    for u in range(300000, 301000):
        f.write(f"6 {u}\n")
        f.write(f"{u} 3\n")           # users of their own, who do not follow user 1
    for u in range(150000, 150020):
        f.write(f"7 {u}\n")
    for u in range(100000, 100100):
        f.write(f"{u} 2\n")
PY
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_LEANREADS_ENABLED=$LEAN \
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATA --detach > /tmp/known-followers-up.txt 2>&1 \
    || { tail -30 /tmp/known-followers-up.txt; ./graph --data-dir $F down; exit 1; }
  for round in warm-up measured; do
  out=/dev/null; [ \$round = measured ] && out=$OUT/latency-$LABEL.txt
  for v in 5 6 7; do
    for u in 1 2; do
      n=1000
      python3 support/benchmarks/scripts/latency.py http://127.0.0.1:8480/v1/users/\$u/followers/known?limit=50 \
        \"\$(./graph --data-dir $F token \$v)\" \$n \"viewer \$v, user \$u (\$n requests)\"
    done
    python3 support/benchmarks/scripts/latency.py http://127.0.0.1:8480/v1/users/5/following/100000 \
      \"\$(./graph --data-dir $F token 5)\" 1000 \"floor: single check 5 -> 100000, as viewer \$v\"
  done > \$out 2>&1
  done
  # Which path served them: the entry's timer counts the lean reads; routed ones are in http.server.requests.
  curl -s http://127.0.0.1:18480/actuator/prometheus \
    | grep -E '^(graph_gateway_read_requests|http_server_requests)_seconds_count.*followers/known' \
    >> $OUT/latency-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
cat $OUT/latency-$LABEL.txt
