#!/bin/bash
# The read mix on this repository's build (LABEL=tick...: a coalescer's batch sent when the event loop of the caller
# that opened it has read every request that arrived with it) and on the build before it (LABEL=base...: commit
# 7007562, a batch sent at once on the first caller's thread; cloned and packaged under /tmp/end-of-tick-base on first
# use). MixBench (support/benchmarks) on one ./graph up fleet of ego-Twitter, 90 s of initial warm-up per target,
# three rounds. At the end the gateway's coalescer meters (batches, and checks and reads sent in them) and the check
# instance's graph_check_read_batch_reads_total are scraped into meters-$LABEL.txt. Output in mix-$LABEL.txt (the
# summary), mix-$LABEL.csv (every number). Package first (./mvnw -q package -DskipTests). Nothing else may run on
# the machine meanwhile.
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:?LABEL names the run: tick... or base...}
REPO=$(cd "$OUT/../.." && pwd)   # the repository root
DATASET=$REPO/../shared/datasets/ego-twitter.txt.gz
case $LABEL in
  tick*) BUILD=$REPO ;;
  base*) BUILD=/tmp/end-of-tick-base
    if [ ! -f $BUILD/support/benchmarks/target/loadgen.jar ]; then
      rm -rf $BUILD && git clone -q "$REPO" $BUILD && git -C $BUILD checkout -q 7007562 \
        && (cd $BUILD && ./mvnw -q -o package -DskipTests) || exit 1
    fi ;;
  *) echo "LABEL must start with tick or base" >&2; exit 2 ;;
esac
cd "$BUILD"
F=/tmp/bench-end-of-tick
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/end-of-tick-up.txt 2>&1 \
    || { tail -30 /tmp/end-of-tick-up.txt; ./graph --data-dir $F down; exit 1; }
  uptime > $OUT/uptime-$LABEL.txt
  CHECK=\$(sed -n 's/^follow-check-service.management=//p' $F/run/ports.properties)
  GATEWAY=\$(sed -n 's/^gateway.management=//p' $F/run/ports.properties)
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 3 --latency-measure 10s --initial-warmup 90s --out $OUT/mix-$LABEL.csv \
    > $OUT/mix-$LABEL.txt 2>&1
  echo \"MixBench exit status \$?\"
  uptime >> $OUT/uptime-$LABEL.txt
  { curl -s http://127.0.0.1:\$GATEWAY/actuator/prometheus | grep -E '^graph_gateway_(read_)?coalescer_(batches|reads|checks)'
    curl -s http://127.0.0.1:\$CHECK/actuator/prometheus | grep '^graph_check_read_batch_reads_total'
  } > $OUT/meters-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
