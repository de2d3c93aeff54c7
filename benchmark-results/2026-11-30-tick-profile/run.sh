#!/bin/bash
# Where the gateway's and the check service's CPU goes on the public read mix, on the build whose coalesced batches
# are sent on the event loop's next turn (record 0069): a ./graph fleet on ego-Twitter, MixBench (90 s
# initial warm-up, one round, 30 s per run) and
# JFR recordings of the gateway and the check service (settings=profile, 30 s) over round 1's "mix public" run,
# which starts as soon as the warm-up's "check public" line is printed. The samples grouped by
# support/benchmarks/scripts/jfr-top.py into profile-gateway.txt and profile-check.txt; MixBench's output in mix.txt.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-30-tick-profile; DATASET=../shared/datasets/ego-twitter.txt.gz
F=/tmp/bench-mix-profile
flock /tmp/fleet.lock bash -c "
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > /tmp/read-profile-up.txt 2>&1 \
    || { tail -30 /tmp/read-profile-up.txt; ./graph --data-dir $F down; exit 1; }
  GW=\$(cat $F/run/gateway.pid); CHECK=\$(cat $F/run/follow-check-service.pid)
  ( until grep -q 'warm-up  c=32  check public' $OUT/mix.txt 2>/dev/null; do sleep 0.2; done
    sleep 5
    $JAVA_HOME/bin/jcmd \$GW JFR.start name=p settings=profile duration=30s filename=/tmp/read-profile-gateway.jfr
    $JAVA_HOME/bin/jcmd \$CHECK JFR.start name=p settings=profile duration=30s filename=/tmp/read-profile-check.jfr ) &
  $JAVA_HOME/bin/java -Xmx2g -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.MixBench --fleet $F \
    --dataset $DATASET --rounds 1 --warmup 5s --measure 30s --latency-measure 5s --initial-warmup 90s \
    --out /tmp/read-profile-mix.csv > $OUT/mix.txt 2>&1
  wait
  ./graph --data-dir $F down > /dev/null 2>&1
"
python3 support/benchmarks/scripts/jfr-top.py /tmp/read-profile-gateway.jfr > $OUT/profile-gateway.txt
python3 support/benchmarks/scripts/jfr-top.py /tmp/read-profile-check.jfr > $OUT/profile-check.txt
echo done
