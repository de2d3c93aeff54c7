#!/bin/bash
# The read mix on a quiet machine: MixBench (support/benchmarks) on one ./graph up fleet of ego-Twitter with the
# gateway's defaults (lean reads coalesced, a lone read as its own GET), the workload and settings of
# 2026-11-29-read-mix with 30 s of initial warm-up. Output in mix.txt (the summary) and mix.csv (every number).
# Nothing else may run on the machine meanwhile: that is what this run measures.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-29-mix-quiet; DATASET=../shared/datasets/ego-twitter.txt.gz
F=/tmp/bench-mix-quiet
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/mix-quiet-up.txt 2>&1 \
    || { tail -30 /tmp/mix-quiet-up.txt; ./graph --data-dir $F down; exit 1; }
  uptime > $OUT/uptime.txt
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 2 --latency-measure 10s --initial-warmup 30s --out $OUT/mix.csv > $OUT/mix.txt 2>&1
  echo \"MixBench exit status \$?\"
  uptime >> $OUT/uptime.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
