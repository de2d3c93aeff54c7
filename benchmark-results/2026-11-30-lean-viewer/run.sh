#!/bin/bash
# The read mix on this repository's build (LABEL=new: the viewer of a read as an exchange attribute, no request
# mutated per read; batched reads counted by result) and on the build before it (LABEL=base: commit 8a25d7d, cloned
# and packaged under /tmp/lean-viewer-base on first use). MixBench (support/benchmarks) on one ./graph up fleet of
# ego-Twitter, 90 s of initial warm-up per target, three rounds; then the check instance's
# graph_check_read_batch_reads_total scraped every 10 s into reads-$LABEL-series.txt and at the end into
# reads-$LABEL.txt (the new build only has it). Output in mix-$LABEL.txt (the summary), mix-$LABEL.csv (every
# number). Package first (./mvnw -q package -DskipTests). Nothing else may run on the machine meanwhile.
# MAXINFLIGHT (default 2, the setting's default) is the gateway's graph.gateway.lean-reads.max-in-flight: batch calls
# of reads out to the check instance at once.
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:-new}; MAXINFLIGHT=${MAXINFLIGHT:-2}
REPO=$(cd "$OUT/../.." && pwd)   # the repository root
DATASET=$REPO/../shared/datasets/ego-twitter.txt.gz
case $LABEL in
  new*) BUILD=$REPO ;;
  base*) BUILD=/tmp/lean-viewer-base
    if [ ! -f $BUILD/support/benchmarks/target/loadgen.jar ]; then
      rm -rf $BUILD && git clone -q "$REPO" $BUILD && git -C $BUILD checkout -q 8a25d7d \
        && (cd $BUILD && ./mvnw -q -o package -DskipTests) || exit 1
    fi ;;
  *) echo "LABEL must start with new or base" >&2; exit 2 ;;
esac
cd "$BUILD"
F=/tmp/bench-lean-viewer
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_LEANREADS_MAXINFLIGHT=$MAXINFLIGHT \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/lean-viewer-up.txt 2>&1 \
    || { tail -30 /tmp/lean-viewer-up.txt; ./graph --data-dir $F down; exit 1; }
  uptime > $OUT/uptime-$LABEL.txt
  MGMT=\$(sed -n 's/^follow-check-service.management=//p' $F/run/ports.properties)
  # The batched reads' results every 10 s while MixBench runs (epoch seconds, then the counter lines).
  ( while sleep 10; do echo \"t \$(date +%s)\"; curl -s http://127.0.0.1:\$MGMT/actuator/prometheus \\
      | grep '^graph_check_read_batch_reads_total'; done > $OUT/reads-$LABEL-series.txt ) &
  SAMPLER=\$!
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 3 --latency-measure 10s --initial-warmup 90s --out $OUT/mix-$LABEL.csv \
    > $OUT/mix-$LABEL.txt 2>&1
  echo \"MixBench exit status \$?\"
  kill \$SAMPLER
  uptime >> $OUT/uptime-$LABEL.txt
  curl -s http://127.0.0.1:\$MGMT/actuator/prometheus | grep '^graph_check_read_batch_reads_total' \
    > $OUT/reads-$LABEL.txt
  ./graph --data-dir $F down > /dev/null 2>&1
"
