#!/bin/bash
# The read mix on two builds, one after the other on the same day: LABEL=before runs the fleet of the checkout at
# $ROOT (a clone at d124fb5, packaged), LABEL=after (the default) this repository's, in which a following count that
# memory does not hold reads the user's whole following row (and so caches it) instead of a count statement, the
# gateway's coalescer stopped building an ignored exception per batch call, and followers you know try memory first.
# MixBench (support/benchmarks) on one ./graph up fleet of ego-Twitter, WARMUP of initial warm-up per target (default
# 90s, as in 2026-11-30-recounts), three rounds. Output in mix-$LABEL.txt (the summary) and mix-$LABEL.csv (every
# number). Package both builds first (./mvnw -q package -DskipTests). Nothing else may run on the machine meanwhile.
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:-after}; WARMUP=${WARMUP:-90s}
case $LABEL in
  before*) cd "${ROOT:?ROOT must name a packaged checkout of the build before}" ;;
  after*) cd "$OUT/../.." ;;   # the repository root
  *) echo "LABEL must start with before or after" >&2; exit 2 ;;
esac
DATASET=$(cd "$OUT/../.." && pwd)/../shared/datasets/ego-twitter.txt.gz
F=/tmp/bench-counts-from-rows
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/counts-up.txt 2>&1 \
    || { tail -30 /tmp/counts-up.txt; ./graph --data-dir $F down; exit 1; }
  uptime > $OUT/uptime-$LABEL.txt
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 3 --latency-measure 10s --initial-warmup $WARMUP --out $OUT/mix-$LABEL.csv \
    > $OUT/mix-$LABEL.txt 2>&1
  echo \"MixBench exit status \$?\"
  uptime >> $OUT/uptime-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
