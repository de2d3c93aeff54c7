#!/bin/bash
# The public path against its floors, one HopBench run: direct, gateway (coalesced), bare route, same-stack hello, Redis.
set -u
cd /work/main
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
F=/tmp/bench/fleet33; OUT=/tmp/bench/out33; mkdir -p $OUT
./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
GRAPH_GATEWAY_BAREROUTE=true GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
  ./graph --data-dir $F up --dataset ../shared/datasets/ego-twitter.txt.gz --detach > $OUT/up.txt 2>&1 || { tail $OUT/up.txt; exit 1; }
mkdir -p $OUT/pids; cp $F/run/gateway.pid $F/run/follow-check-service.pid $OUT/pids/
$JAVA_HOME/bin/java -Xmx2g -cp support/loadgen/target/loadgen.jar dev.socialgraph.loadgen.HopBench --dataset ../shared/datasets/ego-twitter.txt.gz \
  --check-url http://127.0.0.1:8081 --gateway-url http://127.0.0.1:8080 \
  --jwt-secret "$(cat $F/jwt-secret)" --service-token "$(cat $F/service-token)" --pid-dir $OUT/pids \
  --workload check-mixed --connections 1,32 --rounds 3 --warmup 3s --measure 8s --initial-warmup 30s \
  --bare --hello --redis-uri redis://127.0.0.1:16379/15 > $OUT/public-path.txt 2>&1
curl -s http://127.0.0.1:18080/actuator/prometheus > $OUT/gateway-metrics.txt 2>/dev/null || true
./graph --data-dir $F down > /dev/null 2>&1
echo done
