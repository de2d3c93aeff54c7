#!/bin/bash
# "Followers you know" of a celebrity with 200,000 followers, answered on the check service's I/O thread when memory
# holds the viewer's row and can answer for every candidate asked. The same generated graph, fleet and requests as
# 2026-11-30-known-followers-lean/run.sh (user 1 followed by users 1,000..200,999; viewer 5 follows 1,000 of them,
# viewer 6 follows 1,000 users who do not follow user 1, viewer 7 follows 20 of them; user 2 followed by 100 of
# viewer 5's followees; GET /v1/users/{1,2}/followers/known?limit=50 through the gateway on one keep-alive connection,
# latency.py's p50 and p99 of N requests (default 5,000) after 50 unrecorded, the single follow check as the
# floor; two rounds of N per read, the second recorded: 1,000 a read after an import left the JIT and the fleet's
# background work in the tail), run on two builds: LABEL=before runs the fleet of the checkout at $ROOT (a clone at the
# commit before this change), LABEL=after (the default) this repository's. A label starting with either runs that
# build again into a file of its own. After the measured round, the check service's own count and time of the read
# (http.server.requests of the internal route) and the gateway's (graph.gateway.read.requests) are appended.
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
F=/tmp/bench-known-memory; DATA=/tmp/known-followers-graph.txt
LABEL=${LABEL:-after}; N=${N:-5000}
case $LABEL in
  before*) cd "${ROOT:?ROOT must name a packaged checkout of the build before}" ;;
  after*) cd "$OUT/../.." ;;   # the repository root
  *) echo "LABEL must start with before or after" >&2; exit 2 ;;
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
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATA --detach > /tmp/known-followers-up.txt 2>&1 \
    || { tail -30 /tmp/known-followers-up.txt; ./graph --data-dir $F down; exit 1; }
  for round in warm-up measured; do
  out=/dev/null; [ \$round = measured ] && out=$OUT/latency-$LABEL.txt
  for v in 5 6 7; do
    for u in 1 2; do
      n=$N
      python3 support/benchmarks/scripts/latency.py http://127.0.0.1:8480/v1/users/\$u/followers/known?limit=50 \
        \"\$(./graph --data-dir $F token \$v)\" \$n \"viewer \$v, user \$u (\$n requests)\"
    done
    python3 support/benchmarks/scripts/latency.py http://127.0.0.1:8480/v1/users/5/following/100000 \
      \"\$(./graph --data-dir $F token 5)\" $N \"floor: single check 5 -> 100000, as viewer \$v\"
  done > \$out 2>&1
  done
  # Count and time of the read at the gateway's entry and at the check service (both rounds).
  curl -s http://127.0.0.1:18480/actuator/prometheus \
    | grep -E '^graph_gateway_read_requests_seconds_(count|sum|max).*followers/known' >> $OUT/latency-$LABEL.txt
  curl -s http://127.0.0.1:18481/actuator/prometheus \
    | grep -E '^http_server_requests_seconds_(count|sum|max).*followers/known' >> $OUT/latency-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
cat $OUT/latency-$LABEL.txt
