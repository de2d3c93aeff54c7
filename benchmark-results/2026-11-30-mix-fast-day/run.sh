#!/bin/bash
# The read mix on this repository's build, on a fast day of the machine: the same fleet and MixBench as
# 2026-11-30-end-of-tick (ego-Twitter, 90 s of initial warm-up per target, three rounds), with the check instance's
# graph_check_read_batch_reads_total and the gateway's read coalescer meters scraped every 10 s into
# meters-$LABEL.txt (one line per scrape: epoch seconds, then the counters). Output in mix-$LABEL.txt (the summary)
# and mix-$LABEL.csv (every number). Package first (./mvnw -q package -DskipTests); nothing else may run meanwhile.
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
LABEL=${LABEL:?LABEL names the run}
REPO=$(cd "$OUT/../.." && pwd)   # the repository root
DATASET=$REPO/../shared/datasets/ego-twitter.txt.gz
cd "$REPO"
F=/tmp/bench-mix-fast-day
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/mix-fast-day-up.txt 2>&1 \
    || { tail -30 /tmp/mix-fast-day-up.txt; ./graph --data-dir $F down; exit 1; }
  CHECK=\$(sed -n 's/^follow-check-service.management=//p' $F/run/ports.properties)
  GATEWAY=\$(sed -n 's/^gateway.management=//p' $F/run/ports.properties)
  : > $OUT/meters-$LABEL.txt
  while sleep 10; do
    { date +%s
      curl -s http://127.0.0.1:\$CHECK/actuator/prometheus | grep '^graph_check_read_batch_reads_total' | sed 's/{.*result=/ /'
      curl -s http://127.0.0.1:\$GATEWAY/actuator/prometheus | grep -E '^graph_gateway_read_coalescer_(batches|reads)' \
        | sed 's/{.*}//'
    } | tr '\n' ' ' >> $OUT/meters-$LABEL.txt
    echo >> $OUT/meters-$LABEL.txt
  done &
  SCRAPER=\$!
  \$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 3 --latency-measure 10s --initial-warmup 90s --out $OUT/mix-$LABEL.csv \
    > $OUT/mix-$LABEL.txt 2>&1
  echo \"MixBench exit status \$?\"
  kill \$SCRAPER
  ./graph --data-dir $F down > /dev/null 2>&1
"
