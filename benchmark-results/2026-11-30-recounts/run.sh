#!/bin/bash
# The read mix with follower counts kept until an event moves them, against their old 2 s life, on one build:
# MixBench (support/benchmarks) on one ./graph up fleet of ego-Twitter, WARMUP of initial warm-up per target (default
# 90s, as in 2026-11-30-lean-reads), three rounds. LABEL=after runs the defaults (count-max-age 10m: the account jobs
# announce the counts they move); LABEL=before sets graph.check.follower-side.count-max-age=2s, the life a count had
# before. Output in mix-$LABEL.txt (the summary) and mix-$LABEL.csv (every number). Build the jars of the commit
# first (./mvnw -q package -DskipTests). Nothing else may run on the machine meanwhile.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:?LABEL=before or after}; WARMUP=${WARMUP:-90s}
case $LABEL in
  before) COUNT_MAX_AGE=2s ;;
  after) COUNT_MAX_AGE=10m ;;
  *) echo "LABEL must be before or after" >&2; exit 2 ;;
esac
OUT=benchmark-results/2026-11-30-recounts; DATASET=../shared/datasets/ego-twitter.txt.gz
F=/tmp/bench-recounts
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
  GRAPH_CHECK_FOLLOWERSIDE_COUNTMAXAGE=$COUNT_MAX_AGE \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/recounts-up.txt 2>&1 \
    || { tail -30 /tmp/recounts-up.txt; ./graph --data-dir $F down; exit 1; }
  uptime > $OUT/uptime-$LABEL.txt
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 3 --latency-measure 10s --initial-warmup $WARMUP --out $OUT/mix-$LABEL.csv \
    > $OUT/mix-$LABEL.txt 2>&1
  echo \"MixBench exit status \$?\"
  uptime >> $OUT/uptime-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
