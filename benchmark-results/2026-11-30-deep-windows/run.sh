#!/bin/bash
# The read mix with and without deep follower windows, on this repository's build: LABEL=shallow runs the fleet with
# GRAPH_CHECK_FOLLOWERSIDE_DEEPWINDOWSIZE=100 (a window is never read deeper than its 100 followers, as before deep
# windows), LABEL=deep (the default) with the default 5,000 (a window whose end a walk of the list reached is read
# again 5,000 deep, once). MixBench (support/benchmarks) on one ./graph up fleet of ego-Twitter, WARMUP of initial
# warm-up per target (default 90s, as in 2026-11-30-recounts), three rounds. Output in mix-$LABEL.txt (the summary)
# and mix-$LABEL.csv (every number). Package first (./mvnw -q package -DskipTests). Nothing else may run on the
# machine meanwhile.
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:-deep}; WARMUP=${WARMUP:-90s}
case $LABEL in
  shallow*) DEEP=100 ;;
  deep*) DEEP=5000 ;;
  *) echo "LABEL must start with shallow or deep" >&2; exit 2 ;;
esac
cd "$OUT/../.."   # the repository root
DATASET=$(cd "$OUT/../.." && pwd)/../shared/datasets/ego-twitter.txt.gz
F=/tmp/bench-deep-windows
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
  GRAPH_CHECK_FOLLOWERSIDE_DEEPWINDOWSIZE=$DEEP \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/deep-up.txt 2>&1 \
    || { tail -30 /tmp/deep-up.txt; ./graph --data-dir $F down; exit 1; }
  uptime > $OUT/uptime-$LABEL.txt
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 3 --latency-measure 10s --initial-warmup $WARMUP --out $OUT/mix-$LABEL.csv \
    > $OUT/mix-$LABEL.txt 2>&1
  echo \"MixBench exit status \$?\"
  uptime >> $OUT/uptime-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
