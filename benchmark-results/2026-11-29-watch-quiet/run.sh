#!/bin/bash
# The change stream's delivery time on a quiet machine (WatchBench): a ./graph up fleet on ego-Twitter, left alone
# for three minutes after the import, then follows at 100/s straight to the write service with the probe following
# and unfollowing, timed from its acknowledgement at every leg: one watcher through the gateway (the floor); 1,000
# through the gateway with the probe every 100 ms (10 events a second to each watcher) and every second (1 a second);
# 1,000 straight from the check service (the gateway's part). Output in one-watcher.txt, watchers.txt,
# watchers-probe-1s.txt and watchers-via-check.txt; `uptime` before each in uptime.txt. Nothing else may run on the
# machine meanwhile: that is what this run measures.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-29-watch-quiet
F=/tmp/bench-watch-quiet; DATA=../shared/datasets/ego-twitter.txt.gz
BENCH="\$JAVA_HOME/bin/java -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.WatchBench \
  --fleet $F --dataset $DATA --follow-rate 100 --window 20s"
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATA --detach > /tmp/watch-quiet-up.txt 2>&1 \
    || { tail -30 /tmp/watch-quiet-up.txt; ./graph --data-dir $F down; exit 1; }
  sleep 180   # the first minutes after an import of 1.77M edges load the machine; measure after them
  : > $OUT/uptime.txt
  (echo 'one watcher:'; uptime) >> $OUT/uptime.txt
  $BENCH --watchers 1 > $OUT/one-watcher.txt 2>/tmp/watch-quiet-1.log
  (echo '1,000 watchers, probe every 100 ms:'; uptime) >> $OUT/uptime.txt
  $BENCH --watchers 1000 > $OUT/watchers.txt 2>/tmp/watch-quiet-1000.log
  (echo '1,000 watchers, probe every 1 s:'; uptime) >> $OUT/uptime.txt
  $BENCH --watchers 1000 --probe-interval 1s > $OUT/watchers-probe-1s.txt 2>/tmp/watch-quiet-1000-1s.log
  (echo '1,000 watchers via the check service:'; uptime) >> $OUT/uptime.txt
  $BENCH --watchers 1000 --via check > $OUT/watchers-via-check.txt 2>/tmp/watch-quiet-check.log
  ./graph --data-dir $F down > /dev/null 2>&1
"
cat $OUT/uptime.txt $OUT/one-watcher.txt $OUT/watchers.txt $OUT/watchers-probe-1s.txt $OUT/watchers-via-check.txt
