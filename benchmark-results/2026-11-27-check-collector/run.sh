#!/bin/bash
# The check service's collector and heap, measured side by side on one fleet (see results README for the story).
set -u
cd /work/main
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
F=/tmp/bench/gcfleet
OUT=/tmp/bench/gc-out; mkdir -p $OUT
./graph --data-dir $F down >/dev/null 2>&1
rm -rf $F
./graph --data-dir $F up --dataset ../shared/datasets/ego-twitter.txt.gz --detach > $OUT/up.txt 2>&1 || { cat $OUT/up.txt; exit 1; }
CPID=$(cat $F/run/follow-check-service.pid)
tr '\0' '\n' < /proc/$CPID/environ | grep -E '^(GRAPH_|SPRING_|HOME=|PATH=|LOGGING_|MANAGEMENT_)' > $OUT/check.env
tr '\0' '\n' < /proc/$CPID/cmdline > $OUT/check.cmd
echo "fleet check pid $CPID cmd:"; cat $OUT/check.cmd | tr '\n' ' '; echo
# start a variant: name port mgmtport jvmflags...
start_variant() {
  local name=$1 port=$2 mport=$3; shift 3
  local args=() java="" jar_args=() seen_jar=0
  mapfile -t cmd < $OUT/check.cmd
  java=${cmd[0]}
  # after the JVM options come ClassDataSharing's args and then --properties; keep from -XX:SharedArchiveFile / -jar on
  local i=1 rest=()
  while [ $i -lt ${#cmd[@]} ]; do
    case "${cmd[$i]}" in
      -XX:SharedArchiveFile=*|-jar) rest=("${cmd[@]:$i}"); break;;
    esac
    i=$((i+1))
  done
  local props=()
  for a in "${rest[@]}"; do
    case "$a" in
      -XX:SharedArchiveFile=*) props+=("-XX:SharedArchiveFile=$OUT/$name.jsa");;
      --server.port=*) props+=("--server.port=$port");;
      --management.server.port=*) props+=("--management.server.port=$mport");;
      *) props+=("$a");;
    esac
  done
  # management port may come from env in the launcher; force it
  env -i $(cat $OUT/check.env | tr '\n' ' ') MANAGEMENT_SERVER_PORT=$mport SERVER_PORT=$port setsid "$java" "$@" -Xlog:gc:file=$OUT/$name-gc.log "${props[@]}" > $OUT/$name.log 2>&1 < /dev/null &
  for k in $(seq 1 240); do
    curl -sf http://127.0.0.1:$mport/actuator/health/readiness >/dev/null 2>&1 && break; sleep 1
  done
  ss -ltnp | grep ":$port " | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 > $OUT/$name.pid
  echo "$name ready on $port (pid $(cat $OUT/$name.pid)) flags: $*"
}
start_variant g1default 8181 18181 -Xms64m -Xmx768m -XX:+ExitOnOutOfMemoryError
start_variant g1tuned 8281 18281 -Xms768m -Xmx768m -XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError
start_variant zgc 8381 18381 -Xms768m -Xmx768m -XX:+UseZGC -XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError
TOKEN=$(cat $F/service-token)
hop() { # url baseline-url name-a name-b tag
  mkdir -p $OUT/pids-$5; echo $(cat $OUT/$3.pid) > $OUT/pids-$5/follow-check-service.pid; echo $(cat $OUT/$4.pid) > $OUT/pids-$5/direct-baseline.pid
  java -Xmx2g -cp loadgen/target/loadgen.jar dev.socialgraph.loadgen.HopBench --dataset ../shared/datasets/ego-twitter.txt.gz \
    --check-url $1 --direct-baseline-url $2 --no-gateway --hello --service-token "$TOKEN" --pid-dir $OUT/pids-$5 \
    --workload check-mixed --connections 1,32 --rounds 3 --warmup 3s --measure 10s --initial-warmup 20s > $OUT/hop-$5.txt 2>&1
  echo "hop $5 done $(date +%T)"
}
gcstat() { for n in g1default g1tuned zgc; do echo "== $n"; jstat -gcutil $(cat $OUT/$n.pid) | tail -1; done; }
gcstat > $OUT/jstat-before.txt
hop http://127.0.0.1:8281 http://127.0.0.1:8381 g1tuned zgc tuned-vs-zgc
gcstat > $OUT/jstat-after1.txt
hop http://127.0.0.1:8381 http://127.0.0.1:8281 zgc g1tuned zgc-vs-tuned
gcstat > $OUT/jstat-after2.txt
hop http://127.0.0.1:8181 http://127.0.0.1:8281 g1default g1tuned default-vs-tuned
gcstat > $OUT/jstat-after3.txt
echo done
