#!/usr/bin/env bash
# The offline checks of infra/ (`make test` and `make test-infra`): formatting, validation, the
# mocked `terraform test`, tflint, checkov, the driver's unit tests, and an apply and destroy
# against a local AWS emulator (moto on 127.0.0.1). No AWS account, no network but the package
# registries. Ends with "infra: N passed, N failed" and exits 1 when a check failed.
set -uo pipefail
cd "$(dirname "$0")" || exit 1

TFLINT_VERSION=v0.64.0
MIRROR=/opt/tf-plugins/registry.terraform.io/hashicorp/aws
export TF_IN_AUTOMATION=1 BC_SKIP_MAPPING=TRUE
[ -d "$MIRROR" ] && export TF_CLI_CONFIG_FILE=$PWD/terraformrc
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0 failed=0 skipped=0

# check NAME COMMAND...: runs one check quietly, prints its verdict and time, its log if it
# failed; returns the command's status.
check() {
  local name=$1 start=$SECONDS
  shift
  if "$@" >"$logs/$name" 2>&1; then
    passed=$((passed + 1))
    printf 'infra: ok    %-16s %4d s\n' "$name" $((SECONDS - start))
  else
    failed=$((failed + 1))
    printf 'infra: FAIL  %-16s %4d s\n' "$name" $((SECONDS - start))
    tail -n 40 "$logs/$name" | sed 's/^/    /'
    return 1
  fi
}

skip() {
  skipped=$((skipped + 1))
  printf 'infra: SKIP  %-16s %s\n' "$1" "$2"
}

tflint_bin() {
  echo "$(go env GOPATH)/bin/tflint"
}

# tflint builds from source in minutes: once per machine, in the background while the rest runs.
install_tflint() {
  [ -x "$(tflint_bin)" ] && "$(tflint_bin)" --version | grep -q "${TFLINT_VERSION#v}" && return
  go install "github.com/terraform-linters/tflint@$TFLINT_VERSION"
}

run_tflint() {
  wait "$tflint_install" || { cat "$logs/tflint-install"; return 1; }
  "$(tflint_bin)" --chdir=. --format=compact
}

# The repository's one venv (make venv): the harness with its aws environment, boto3 and moto.
python_tests() {
  ../.venv/bin/python -m pytest -q -p no:cacheprovider tests/tools
}

emulator() {
  timeout 600 ../.venv/bin/python tests/emulator.py
}

scripts_lint() {
  local scripts=(test.sh scripts/venv.sh docker/load.sh docker/jmeter/entrypoint.sh docker/gatling/entrypoint.sh)
  for f in "${scripts[@]}" templates/user_data.sh.tftpl; do bash -n "$f" || return 1; done
  if command -v shellcheck >/dev/null; then
    shellcheck -x "${scripts[@]}"
  fi
}

install_tflint >"$logs/tflint-install" 2>&1 &
tflint_install=$!

check fmt terraform fmt -check -recursive -diff
check venv make -s -C .. venv
check checkov-venv scripts/venv.sh .venv-checkov requirements-checkov.txt
check scripts scripts_lint
check tool-tests python_tests
check checkov .venv-checkov/bin/checkov --config-file .checkov.yaml --skip-download -d . -d ../jmeter -d ../gatling
if check init terraform init -backend=false -input=false -lockfile=readonly; then
  check validate terraform validate -no-color
  check terraform-test terraform test -no-color
  check emulator emulator
else
  echo "infra: !!! terraform init failed: no AWS provider (no mirror at $MIRROR, no registry)?" \
    "validate, terraform test and the emulator check cannot run !!!"
  for name in validate terraform-test emulator; do skip "$name" "no AWS provider"; done
fi
check tflint run_tflint

echo "infra: $passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
