#!/usr/bin/env bash
# `make lint`, and the lint suite of `make check` and `make test`: each linter over all of its
# language, one line each ("lint NAME: N files checked, ok" or FAILED), then
# "lint: N passed, N failed"; fails if any failed. `--fix` (`make format`) first applies what
# ruff, gofmt and spring-javaformat can fix by themselves, then checks.
#   Python: ruff, rules in harness/pyproject.toml, every Python file and notebook of the repo;
#           mypy, its settings there too ([tool.mypy]), over the package harness/bankbench.
#   Go:     gofmt, go vet and staticcheck over the modules db/, bank-go/ and jmeter/calibrate/.
#   Java:   spring-javaformat over bank-java/ and bank-helidon/, each with the java-shared/ sources
#           it compiles in (each pom binds the same check to every build).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
FIX=false
[ "${1:-}" = --fix ] && FIX=true
# Pinned, fetched through the module proxy by `go run` on first use (then the build cache has
# it): staticcheck 2026.2.2, which supports Go 1.26.
STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2
GO_MODULES=(db bank-go jmeter/calibrate)
RUFF=(.venv/bin/ruff check --config harness/pyproject.toml)
MYPY=(../.venv/bin/mypy)  # from harness/, whose pyproject.toml names what it checks
MVNW=(scripts/with-jdk.sh ./mvnw -B -q)
JAVA_MODULES=(bank-java bank-helidon)

# Every Go command runs on the toolchain go.mod names (go1.26.8): `go run pkg@version` would
# otherwise take the one staticcheck's go.mod names, and a staticcheck built by an older Go
# cannot load code written for a newer one.
GOTOOLCHAIN=$(cd bank-go && go env GOVERSION) || exit 1
export GOTOOLCHAIN
GOFMT=$(go env GOROOT)/bin/gofmt

passed=0 failed=0
result() { # name count unit exit-code
  local verdict=ok
  if [ "$4" -eq 0 ] && [ "$2" -gt 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)) verdict=FAILED; fi
  echo "lint $1: $2 $3 checked, $verdict"
}
in_go_modules() { # command...: run in each Go module; fails if it fails in any
  local rc=0 m
  for m in "${GO_MODULES[@]}"; do (cd "$m" && "$@") || rc=1; done
  return $rc
}
go_packages() { in_go_modules go list ./... | wc -l; }

if $FIX; then
  "${RUFF[@]}" --fix .
  "$GOFMT" -w "${GO_MODULES[@]}"
  for m in "${JAVA_MODULES[@]}"; do "${MVNW[@]}" -f "$m/pom.xml" spring-javaformat:apply; done
fi

# Each status is kept before the count: a command substitution in the same line would reset $?.
"${RUFF[@]}" .; rc=$?
result ruff "$("${RUFF[@]}" --show-files . | grep -cE '\.(py|ipynb)$')" files $rc

# mypy ends with "Success: no issues found in N source files" or "Found ... (checked N source files)".
typed=$(cd harness && "${MYPY[@]}" 2>&1); rc=$?
echo "$typed"
checked=$(sed -nE 's/.* ([0-9]+) source files?\)?$/\1/p' <<<"$typed" | tail -1)
result mypy "${checked:-0}" files $rc

unformatted=$("$GOFMT" -l "${GO_MODULES[@]}")
[ -z "$unformatted" ]; rc=$?
[ $rc -eq 0 ] || printf 'not gofmt-formatted (make format fixes it):\n%s\n' "$unformatted"
result gofmt "$(find "${GO_MODULES[@]}" -name '*.go' | wc -l)" files $rc

in_go_modules go vet ./...; rc=$?
result "go vet" "$(go_packages)" packages $rc

in_go_modules go run "$STATICCHECK" ./...; rc=$?
result staticcheck "$(go_packages)" packages $rc

rc=0
for m in "${JAVA_MODULES[@]}"; do "${MVNW[@]}" -f "$m/pom.xml" spring-javaformat:validate || rc=1; done
result spring-javaformat "$(find "${JAVA_MODULES[@]/%//src}" java-shared/src -name '*.java' | wc -l)" files $rc

echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
