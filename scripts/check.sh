#!/usr/bin/env bash
# `make check`: the fast tier, to run before pushing (about 4 minutes on 2 cores with warm
# caches). Every linter, the unit tests of each language (no database), the contract suite
# against the Go service alone and a one-level smoke benchmark of it. Prints the same table as
# `make test` (scripts/test.sh), which runs everything, all services, on every path; CI runs that.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
PY=.venv/bin/python
REPORTS=.run/check-reports
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
SUITE_DB=(env)
. scripts/suites.sh
SERVICE=go # the one service of the contract suite and of the smoke benchmark

lint_suites

banner "Go unit tests: db + jmeter/calibrate + bank-go (go test -race -short: the database tests skip)"
go_tests -short; rc=$?
record "go unit" "$(go_count)" $rc

for module in bank-java bank-helidon; do
  banner "Java unit tests: $module (./mvnw test: Surefire's *Test, not Failsafe's *IT)"
  java_tests "$module" test; rc=$?
  record "$module unit" "$(java_count "$module")" $rc
done

banner "Harness unit tests (pytest -m 'not integration')"
pytest_suite "harness unit" harness harness/tests -q -m "not integration" --ignore=harness/tests/docker

banner "Contract suite against $SERVICE (pytest)"
pytest_suite "contract $SERVICE" contract contract -q --services "$SERVICE"

banner "Smoke benchmark of $SERVICE: one level of PROFILE=smoke (pytest)"
pytest_suite "smoke $SERVICE" smoke harness/tests/test_bench_smoke.py -q --services "$SERVICE"

summary
