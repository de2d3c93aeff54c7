#!/bin/bash
# The single check after the check service's read pipeline became one (record 0057): one short HopBench run, direct
# and public, on a fleet of the same commit. Adapted from 2026-11-29-public-path-secured/run.sh: the load generator
# now lives in support/benchmarks; one round; no floors.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OFF=300; F=/tmp/bench-pipeline/fleet; P=/tmp/bench-pipeline/pids; OUT=benchmark-results/2026-11-29-check-pipeline
DATASET=/work/shared/datasets/ego-twitter.txt.gz
mkdir -p /tmp/bench-pipeline
./mvnw -q -pl support/launcher,gateway,follow-check-service,follow-write-service,cdc-consumer,reconciler,tools,support/benchmarks \
  -am package -DskipTests || exit 1
./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F $P
GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
  ./graph --data-dir $F up --port-offset $OFF --dataset $DATASET --detach > /tmp/bench-pipeline/up.txt 2>&1 \
  || { tail -30 /tmp/bench-pipeline/up.txt; ./graph --data-dir $F down; exit 1; }
mkdir -p $P; cp $F/run/gateway.pid $F/run/follow-check-service.pid $P/
$JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.HopBench --dataset $DATASET \
  --check-url http://127.0.0.1:$((8081 + OFF)) --gateway-url http://127.0.0.1:$((8080 + OFF)) \
  --jwt-secret "$(cat $F/jwt-secret)" --service-token "$(cat $F/service-token)" --pid-dir $P \
  --workload check-mixed --connections 1,32 --rounds 1 --warmup 3s --measure 6s --initial-warmup 20s \
  > $OUT/hop.txt 2>&1
echo "HopBench exit status $?"
./graph --data-dir $F down > /dev/null 2>&1
echo done
