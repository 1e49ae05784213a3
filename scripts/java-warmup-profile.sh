#!/usr/bin/env bash
# Where a Java variant spends its CPU at 64 connections on GET /client/{id}/balance: right after
# the 30 s warm-up the quick benchmark used to measure after, and again once throughput is steady.
# Whole-process CPU profiles by async-profiler (itimer: every thread, JIT compiler and GC
# included, which JDK Flight Recorder does not sample), drawn by its converter as flame graphs,
# plus each thread group's CPU seconds from /proc. Needs wrk, a built jar (make build-java) and a
# running `make db-up` database with the quick benchmark's clients (it seeds them). Writes
# OUT_DIR/VARIANT-after-30s.html and .threads.txt (CPU seconds per thread group), the same after
# 110 s, and the raw files beside them; `make java-warmup-profile` runs it for both variants into
# results/quick/profiles/, where git keeps only the .threads.txt (results/quick/java-warmup.md).
#
#   scripts/java-warmup-profile.sh java|java-virtual OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
variant=${1:?java or java-virtual}; out=${2:?output folder}
mkdir -p "$out"
PY=.venv/bin/python
ASYNC_PROFILER=tools.profiler:async-profiler:4.2
tools=.cache/tools; mkdir -p "$tools"
if [ ! -f "$tools/libasyncProfiler.so" ]; then
  scripts/with-jdk.sh ./mvnw -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact=$ASYNC_PROFILER -DoutputDirectory="$tools"
  unzip -o -q -j "$tools/async-profiler-4.2.jar" linux-x64/libasyncProfiler.so -d "$tools"
fi
lib=$(realpath "$tools/libasyncProfiler.so")
java_home=$(PYTHONPATH=harness python3 -m bankbench.machine.jdk)
converter=$($PY -c 'from bankbench.measure import flamegraph; print(flamegraph.converter_jar())')
set -a; . .run/db.env; set +a
$PY - <<'EOF'
import os, psycopg
from bankbench.checks import quick
with psycopg.connect(host=os.environ["POSTGRES_HOST"], port=os.environ["POSTGRES_PORT"],
                     user="postgres", dbname="bank", autocommit=True) as conn:
    conn.execute("TRUNCATE client, transaction RESTART IDENTITY")
    conn.execute(quick.SEED)
EOF

port=18090
VIRTUAL_THREADS=$([ "$variant" = java-virtual ] && echo true || echo false) PORT=$port \
  "$java_home/bin/java" @bank-java/jvm.options -jar bank-java/target/bank-java.jar >"$out/$variant-service.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 120); do curl -sf "localhost:$port/health" >/dev/null && break; sleep 0.5; done

load() { wrk -t2 -c64 -d"$1"s --latency -s scripts/wrk/balance.lua "http://127.0.0.1:$port"; }
threads() { for t in /proc/$pid/task/*; do echo "$(basename "$t") $(tr ' ' _ <"$t/comm") $(awk '{print $14+$15}' "$t/stat")"; done | sort; }
# jcmd would read "a,b=c" as its own name=value argument: the agent's options go quoted.
profiler() { "$java_home/bin/jcmd" $pid JVMTI.agent_load "$lib" "\"$1\"" >/dev/null; }
window() { # name: a 20 s profiled window; CPU seconds per thread group from /proc
  local at="$out/$variant-$1"
  profiler "start,event=itimer,interval=1ms"
  threads >"$at.t0"
  load 20 >"$at.wrk"
  threads >"$at.t1"
  profiler "stop,file=$(realpath "$at").collapsed,collapsed"
  join "$at.t0" "$at.t1" | awk '{n=$2; sub(/[0-9#]+$/,"",n); d[n]+=($5-$3)/100} END{for(k in d) if(d[k]>0) printf "%.2f %s\n", d[k], k}' \
    | sort -rn >"$at.threads.txt"
  "$java_home/bin/java" -jar "$converter" --title "$variant, 64 connections, $1" "$at.collapsed" "$at.html"
  rm "$at.t0" "$at.t1"
  echo "$variant $1: $(grep Requests/sec "$at.wrk"), p99 $(awk '/ 99%/{print $2}' "$at.wrk"); CPU s by thread group: $(head -3 "$at.threads.txt" | tr '\n' ' ')"
}
load 30 >/dev/null  # the warm-up the quick benchmark used to give
window after-30s
load 60 >/dev/null
window after-110s
