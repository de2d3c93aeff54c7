#!/bin/bash
# The cost of protected accounts on the single check, in one run of one fleet: HopBench (direct and through the
# gateway, whose checks carry the token's subject as the viewer, so every check looks its follower up in the check
# service's view of protected accounts) with no protected account, then with 10,000 (users with no edge, made
# protected by AccountLifecycleBench --protected), then with none again (made public, their jobs awaited), then with
# 10,000 again. Each toggle is followed by a minute's pause: the fleet publishes, consumes and archives its 10,000
# account events meanwhile, and a measurement right after it measured them too. Output: hop-none-1.txt,
# hop-protected-1.txt, hop-none-2.txt, hop-protected-2.txt, toggles.txt.
# Nothing else may run on the machine meanwhile: that is what this run measures.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OFF=400; F=/tmp/bench-protected/fleet; P=/tmp/bench-protected/pids; OUT=benchmark-results/2026-11-29-protected-view
DATASET=../shared/datasets/ego-twitter.txt.gz
JAVA=$JAVA_HOME/bin/java; CP=support/benchmarks/target/loadgen.jar
mkdir -p /tmp/bench-protected
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F $P
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset $OFF --dataset $DATASET --detach > /tmp/bench-protected/up.txt 2>&1 \
    || { tail -30 /tmp/bench-protected/up.txt; ./graph --data-dir $F down; exit 1; }
  mkdir -p $P; cp $F/run/gateway.pid $F/run/follow-check-service.pid $P/
  hop() {
    $JAVA -Xmx2g -cp $CP dev.socialgraph.loadgen.HopBench --dataset $DATASET \
      --check-url http://127.0.0.1:$((8081 + OFF)) --gateway-url http://127.0.0.1:$((8080 + OFF)) \
      --jwt-secret \"\$(cat $F/jwt-secret)\" --service-token \"\$(cat $F/service-token)\" --pid-dir $P \
      --workload check-mixed --connections 1,32 --rounds 2 --warmup 3s --measure 8s --initial-warmup 20s > \$1 2>&1
    echo \"\$1: HopBench exit status \$?\"
  }
  toggle() {
    $JAVA -cp $CP dev.socialgraph.loadgen.AccountLifecycleBench --fleet $F --protected 10000 \$@ >> $OUT/toggles.txt 2>&1
    echo \"AccountLifecycleBench \$@ exit status \$?\"
    sleep 60
  }
  : > $OUT/toggles.txt
  hop $OUT/hop-none-1.txt
  toggle
  hop $OUT/hop-protected-1.txt
  toggle --public
  hop $OUT/hop-none-2.txt
  toggle
  hop $OUT/hop-protected-2.txt
  uptime >> $OUT/toggles.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
