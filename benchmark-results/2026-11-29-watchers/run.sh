#!/bin/bash
# The change stream with 1,000 server-sent watchers through the gateway (WatchBench): a ./graph up fleet on
# ego-Twitter, follows at 100/s with no watcher and then with 1,000 streams of GET /v1/changes open (each filtered to
# the probe user), the probe following and unfollowing every 100 ms, each watcher timing each probe event from the
# write's acknowledgement (watchers open from the head, 50 at a time, after an unrecorded warm-up of the follow
# load; each times only what was written after it opened). Output in watchers.txt.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-29-watchers
F=/tmp/bench-watchers; DATA=../shared/datasets/ego-twitter.txt.gz
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATA --detach > /tmp/watchers-up.txt 2>&1 \
    || { tail -30 /tmp/watchers-up.txt; ./graph --data-dir $F down; exit 1; }
  \$JAVA_HOME/bin/java -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.WatchBench \
    --fleet $F --dataset $DATA --watchers 1000 --follow-rate 100 --window 20s > $OUT/watchers.txt 2>/tmp/watchers.log
  ./graph --data-dir $F down > /dev/null 2>&1
"
cat $OUT/watchers.txt
