#!/bin/bash
# The read mix with the gateway's graph.gateway.lean-reads.alone-as-get as ALONE says (true, the default: a read the
# coalescer would send alone is its own GET; false: a batch of one). MixBench (support/benchmarks) on one ./graph up
# fleet of ego-Twitter of this repository's build, 90 s of initial warm-up per target, three rounds. At the end the
# gateway's read coalescer meters (batches and reads sent) and the check instance's
# graph_check_read_batch_reads_total (reads answered in batch calls) are scraped into meters-$LABEL.txt: reads sent
# by the coalescer but not in a batch call went alone. Output in mix-$LABEL.txt (the summary), mix-$LABEL.csv (every
# number). Package first (./mvnw -q package -DskipTests). Nothing else may run on the machine meanwhile.
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:?LABEL names the run}; ALONE=${ALONE:-true}
REPO=$(cd "$OUT/../.." && pwd)   # the repository root
DATASET=$REPO/../shared/datasets/ego-twitter.txt.gz
cd "$REPO"
F=/tmp/bench-alone-under-load
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_LEANREADS_ALONEASGET=$ALONE \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/alone-up.txt 2>&1 \
    || { tail -30 /tmp/alone-up.txt; ./graph --data-dir $F down; exit 1; }
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
