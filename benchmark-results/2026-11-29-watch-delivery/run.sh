#!/bin/bash
# Where the change stream's delivery time goes, and the same after the fix (WatchBench): a ./graph up fleet on
# ego-Twitter, left alone for three minutes after the import, then follows at 100/s with the probe following and
# unfollowing every 100 ms, timed at every leg (the relay's send, a consumer of the topic, one stream straight from
# the check service, the watchers) with the feed-lag and outbox metrics beside it: one watcher through the gateway
# (the floor), 1,000 through the gateway, and 1,000 straight from the check service (the gateway's part). Output in
# one-watcher.txt, watchers.txt and watchers-via-check.txt.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-29-watch-delivery
F=/tmp/bench-watch-delivery; DATA=../shared/datasets/ego-twitter.txt.gz
BENCH="\$JAVA_HOME/bin/java -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.WatchBench \
  --fleet $F --dataset $DATA --follow-rate 100 --window 20s"
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATA --detach > /tmp/watch-delivery-up.txt 2>&1 \
    || { tail -30 /tmp/watch-delivery-up.txt; ./graph --data-dir $F down; exit 1; }
  sleep 180   # the first minutes after an import of 1.77M edges load the machine; measure after them
  $BENCH --watchers 1 > $OUT/one-watcher.txt 2>/tmp/watch-delivery-1.log
  $BENCH --watchers 1000 > $OUT/watchers.txt 2>/tmp/watch-delivery-1000.log
  $BENCH --watchers 1000 --via check > $OUT/watchers-via-check.txt 2>/tmp/watch-delivery-check.log
  ./graph --data-dir $F down > /dev/null 2>&1
"
cat $OUT/one-watcher.txt $OUT/watchers.txt $OUT/watchers-via-check.txt
