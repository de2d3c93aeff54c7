#!/bin/bash
# The read mix with a lean read that would be alone in its batch sent as its own GET (graph.gateway.lean-reads.
# alone-as-get, the default), in a batch of one (alone-as-get=false, as in 2026-11-29-read-coalescing), and without
# coalescing (each read a GET of its own), on fleets of the same build, one after the other: MixBench
# (support/benchmarks), the same workload and settings as 2026-11-29-read-mix.
set -u
cd "$(dirname "$0")/../.."   # the repository root
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=benchmark-results/2026-11-29-reads-alone; DATASET=/work/shared/datasets/ego-twitter.txt.gz
W=/tmp/bench-alone
LOADGEN=$PWD/support/benchmarks/target/loadgen.jar
mkdir -p $W
run() { # $1 = name, $2 = graph.gateway.lean-reads.coalesce, $3 = graph.gateway.lean-reads.alone-as-get
  local F=$W/$1
  ./graph --data-dir $F down >/dev/null 2>&1; rm -rf $F
  GRAPH_GATEWAY_LEANREADS_COALESCE=$2 GRAPH_GATEWAY_LEANREADS_ALONEASGET=$3 \
  GRAPH_GATEWAY_READS_REPLENISHRATE=1000000 GRAPH_GATEWAY_READS_BURSTCAPACITY=2000000 \
  GRAPH_GATEWAY_WRITES_REPLENISHRATE=1000000 GRAPH_GATEWAY_WRITES_BURSTCAPACITY=2000000 \
    ./graph --no-build --data-dir $F up --port-offset 400 --dataset $DATASET --detach > $W/$1-up.txt 2>&1 \
    || { tail -30 $W/$1-up.txt; ./graph --data-dir $F down; return 1; }
  $JAVA_HOME/bin/java -Xmx2g -cp $LOADGEN dev.socialgraph.loadgen.MixBench --fleet $F --dataset $DATASET \
    --rounds 2 --latency-measure 10s --initial-warmup ${WARMUP_S:-20}s --out $OUT/mix-$1${TAG}.csv > $OUT/mix-$1${TAG}.txt 2>&1
  echo "MixBench $1 exit status $?"
  ./graph --data-dir $F down > /dev/null 2>&1
}
# RUNS picks the modes and their order; TAG suffixes the output names (a second pass in another order).
flock /tmp/fleet.lock bash -c "$(declare -f run); TAG=${TAG:-} OUT=$OUT DATASET=$DATASET W=$W LOADGEN=$LOADGEN JAVA_HOME=$JAVA_HOME \
  WARMUP_S=${WARMUP_S:-20}; for r in ${RUNS:-alone batched uncoalesced}; do \
  case \$r in alone) run alone true true;; batched) run batched true false;; *) run uncoalesced false true;; esac; \
  done"
echo done
