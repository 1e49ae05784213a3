#!/usr/bin/env bash
# The spread between repeats with the CPUs shared and split (results/placement/README.md): the
# local profile at one users level, go and java, REPEAT times each, shared first, back to back.
# Prints each run's spread table (coefficient of variation of throughput and p99), then B/A.
#
#   scripts/placement-spread.sh [USERS [REPEAT]]      (default 2000 3; ~25 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
users=${1:-2000}; repeat=${2:-3}
make -s venv build jmeter-install
PY=.venv/bin/python
export BANKBENCH_RUNS=${BANKBENCH_RUNS:-$(mktemp -d)}
for mode in shared split; do
  $PY -m bankbench bench --profile local --users "$users" --service go,java --repeat "$repeat" \
    --cpu-placement "$mode" --no-dashboard
done
runs=("$BANKBENCH_RUNS"/*-native-local)
$PY -m bankbench summarize "${runs[@]}"
$PY -m bankbench compare "${runs[0]}" "${runs[1]}"
echo "runs in $BANKBENCH_RUNS"
