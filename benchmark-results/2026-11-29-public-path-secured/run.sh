#!/bin/bash
# The public path against its floors after the security review (issuer/audience, byte-weighed token cache, access_token check on the fast path), three HopBench rounds on a quiet machine: direct, gateway (coalesced), the bare Spring Cloud
# Gateway and same-stack hello floors (support/floors, started by HopBench itself), Redis. Adapted from
# 2026-11-28-public-path/run.sh: no GRAPH_GATEWAY_BAREROUTE (the gateway has no bare route any more), one short
# round, the fleet on --port-offset 300 in a data directory under /tmp.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OFF=300; F=/tmp/bench-floors/fleet; P=/tmp/bench-floors/pids; OUT=benchmark-results/2026-11-29-public-path-secured
DATASET=/work/shared/datasets/ego-twitter.txt.gz
./mvnw -q -pl support/launcher,gateway,follow-check-service,follow-write-service,cdc-consumer,reconciler,tools,support/loadgen,support/floors \
  -am package -DskipTests || exit 1
./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F $P
GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
  ./graph --data-dir $F up --port-offset $OFF --dataset $DATASET --detach > /tmp/bench-floors/up.txt 2>&1 \
  || { tail -30 /tmp/bench-floors/up.txt; ./graph --data-dir $F down; exit 1; }
mkdir -p $P; cp $F/run/gateway.pid $F/run/follow-check-service.pid $P/
$JAVA_HOME/bin/java -Xmx2g -cp support/loadgen/target/loadgen.jar dev.socialgraph.loadgen.HopBench --dataset $DATASET \
  --check-url http://127.0.0.1:$((8081 + OFF)) --gateway-url http://127.0.0.1:$((8080 + OFF)) \
  --jwt-secret "$(cat $F/jwt-secret)" --service-token "$(cat $F/service-token)" --pid-dir $P \
  --workload check-mixed --connections 1,32 --rounds 3 --warmup 3s --measure 8s --initial-warmup 30s \
  --bare --hello --redis-uri redis://127.0.0.1:$((16379 + OFF))/15 > $OUT/hop.txt 2>&1
echo "HopBench exit status $?"
./graph --data-dir $F down > /dev/null 2>&1
echo done
