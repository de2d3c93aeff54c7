#!/bin/bash
# The read mix before and after the read path's framework layers were trimmed: MixBench (support/benchmarks) on one
# ./graph up fleet of ego-Twitter with the gateway's defaults, WARMUP of initial warm-up per target (default 90s, as
# in 2026-11-29-read-mix's after-windows), three rounds. LABEL names the build and settings (before, after,
# check-service, steady): output in mix-$LABEL.txt (the summary) and mix-$LABEL.csv (every number). Build the jars of
# the commit first (./mvnw -q package -DskipTests). Nothing else may run on the machine meanwhile.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:?LABEL=before, after, ...}; WARMUP=${WARMUP:-90s}
OUT=benchmark-results/2026-11-30-lean-reads; DATASET=../shared/datasets/ego-twitter.txt.gz
F=/tmp/bench-lean-reads
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/lean-reads-up.txt 2>&1 \
    || { tail -30 /tmp/lean-reads-up.txt; ./graph --data-dir $F down; exit 1; }
  uptime > $OUT/uptime-$LABEL.txt
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 3 --latency-measure 10s --initial-warmup $WARMUP --out $OUT/mix-$LABEL.csv \
    > $OUT/mix-$LABEL.txt 2>&1
  echo \"MixBench exit status \$?\"
  uptime >> $OUT/uptime-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
