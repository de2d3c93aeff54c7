#!/bin/bash
# The read mix before and after lists, counts and common following came from memory and every public read got the
# lean entry (records 0058, 0059): MixBench (support/benchmarks) on a fleet of 522e3b0 ("before", built in a worktree
# of that commit at $BEFORE) and on a fleet of this commit ("after"), one after the other on the same machine. Two
# rounds instead of three, 10 s latency runs instead of 30 s, to fit both fleets in one session.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-29-read-mix; DATASET=/work/shared/datasets/ego-twitter.txt.gz
BEFORE=${BEFORE:-/work/wt-before}; W=/tmp/bench-mix
LOADGEN=$PWD/support/benchmarks/target/loadgen.jar
mkdir -p $W
run() { # $1 = name, $2 = the checkout whose fleet runs
  local F=$W/$1
  (cd "$2" && ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
   GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
   GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
     ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > $W/$1-up.txt 2>&1) \
    || { tail -30 $W/$1-up.txt; (cd "$2" && ./graph --data-dir $F down); return 1; }
  if [ -n "${PROFILE:-}" ]; then # JFR of the gateway and the check service over the measured rounds
    (sleep $((${WARMUP_S:-20} * 3 + 5)); for s in gateway follow-check-service; do
       $JAVA_HOME/bin/jcmd $(cat $F/run/$s.pid) JFR.start duration=60s settings=profile filename=$W/$1-$s.jfr \
         > /dev/null; done) &
  fi
  $JAVA_HOME/bin/java -Xmx2g -cp $LOADGEN dev.socialgraph.loadgen.MixBench --fleet $F --dataset $DATASET \
    --rounds 2 --latency-measure 10s --initial-warmup ${WARMUP_S:-20}s --out $OUT/mix-$1.csv > $OUT/mix-$1.txt 2>&1
  echo "MixBench $1 exit status $?"
  (cd "$2" && ./graph --data-dir $F down > /dev/null 2>&1)
}
# RUNS="before after" by default; "after-warm" with WARMUP_S=90 PROFILE=1 is the second run of this directory: the
# caches' steady state after a longer warm-up, with a JFR profile of the gateway and the check service.
flock /tmp/fleet.lock bash -c "$(declare -f run); OUT=$OUT DATASET=$DATASET W=$W LOADGEN=$LOADGEN JAVA_HOME=$JAVA_HOME \
  WARMUP_S=${WARMUP_S:-20} PROFILE=${PROFILE:-}; for r in ${RUNS:-before after}; do \
  if [ \$r = before ]; then run before $BEFORE; else run \$r $PWD; fi; done"
echo done
