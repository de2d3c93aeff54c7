#!/bin/bash
set -u
cd /work/main
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
F=/tmp/bench/proffleet; OUT=/tmp/bench/prof; mkdir -p $OUT
./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  ./graph --data-dir $F up --dataset ../shared/datasets/ego-twitter.txt.gz --detach > $OUT/up.txt 2>&1 || { tail $OUT/up.txt; exit 1; }
GW=$(cat $F/run/gateway.pid)
mkdir -p $OUT/pids; cp $F/run/gateway.pid $F/run/follow-check-service.pid $OUT/pids/
( sleep 45; $JAVA_HOME/bin/jcmd $GW JFR.start name=p settings=profile duration=40s filename=$OUT/gateway.jfr ) &
$JAVA_HOME/bin/java -Xmx2g -cp support/loadgen/target/loadgen.jar dev.socialgraph.loadgen.HopBench --dataset ../shared/datasets/ego-twitter.txt.gz \
  --check-url http://127.0.0.1:8081 --gateway-url http://127.0.0.1:8080 \
  --jwt-secret "$(cat $F/jwt-secret)" --service-token "$(cat $F/service-token)" --pid-dir $OUT/pids \
  --workload check-mixed --connections 32 --rounds 2 --warmup 3s --measure 20s --initial-warmup 20s > $OUT/hop.txt 2>&1
wait
./graph --data-dir $F down > /dev/null 2>&1
echo done
