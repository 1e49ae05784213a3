# shellcheck shell=bash
# Sourced by scripts/test.sh (`make test`) and scripts/check.sh (`make check`): the table of
# suites they print, and the suites both run the same way. The caller sets PY (the venv's
# python), REPORTS (a folder for logs) and SUITE_DB (a command prefix for the integration tests).

declare -a NAMES COUNTS RESULTS TIMES
SUITE_START=$SECONDS # when the current suite's banner was printed: its rows' time counts from it
record() { # name count exit-code
  NAMES+=("$1"); COUNTS+=("$2"); TIMES+=("$((SECONDS - SUITE_START))")
  if [ "$3" -eq 0 ] && [ "$2" -gt 0 ]; then RESULTS+=("ok"); else RESULTS+=("FAILED"); fi
}
skip() { # name reason: a suite that could not run here; it fails nothing but is shown loudly
  NAMES+=("$1"); COUNTS+=("-"); RESULTS+=("skipped: $2"); TIMES+=("-")
  printf '!!! %s suite skipped: %s !!!\n' "$1" "$2"
}
banner() { printf '\n==== %s ====\n' "$1"; SUITE_START=$SECONDS; }

# Every linter of scripts/lint.sh, a row each; a lint.sh that stopped before any linter is one
# failed row.
lint_suites() {
  banner "Lint: ruff, mypy, gofmt, go vet, staticcheck, spring-javaformat (scripts/lint.sh)"
  bash scripts/lint.sh 2>&1 | tee "$REPORTS/lint.log"
  local rows
  rows=$(sed -nE 's/^lint ([^:]+): ([0-9]+) [a-z]+ checked, (ok|FAILED)$/\1|\2|\3/p' "$REPORTS/lint.log")
  [ -n "$rows" ] || { record lint 0 1; return; }
  local name count verdict
  while IFS='|' read -r name count verdict; do
    record "lint $name" "$count" "$([ "$verdict" = ok ]; echo $?)"
  done <<<"$rows"
}

# The Go tests of db/, jmeter/calibrate/ and bank-go/ (bank-go with -race) with extra `go test`
# flags; prints each package's result and any failure (logs in go-db.log and go.log) and returns
# their status.
go_tests() {
  (cd db && go test -count=1 -v "$@" ./...) > "$REPORTS/go-db.log" 2>&1; local rc_db=$?
  (cd jmeter/calibrate && go test -count=1 -v "$@" ./...) >> "$REPORTS/go-db.log" 2>&1 || rc_db=1
  (cd bank-go && "${SUITE_DB[@]}" go test -race -count=1 -v "$@" ./...) > "$REPORTS/go.log" 2>&1; local rc=$?
  cat "$REPORTS/go-db.log" "$REPORTS/go.log" | grep -E '^(ok|FAIL|---|panic)|--- FAIL|^dbtest:' \
    | grep -vE -- '--- (PASS|SKIP)' || true
  local skipped
  skipped=$(go_count SKIP)
  [ "$skipped" -eq 0 ] || echo "$skipped Go tests skipped: $(cat "$REPORTS"/go-db.log "$REPORTS"/go.log \
    | sed -nE 's/^ *--- SKIP: ([^ ]+).*/\1/p' | sort -u | paste -sd ' ')"
  return $((rc + rc_db))
}
go_count() { # PASS|FAIL (the default: both) or SKIP: how many Go tests and subtests ended so
  cat "$REPORTS/go-db.log" "$REPORTS/go.log" | grep -cE -- "--- (${1:-PASS|FAIL}):"
}

# `./mvnw -B -f MODULE/pom.xml GOAL...` for a Java service (bank-java, bank-helidon); prints its
# test totals (log in MODULE.log) and returns its status. The format check is the lint suite's:
# here the tests run even when it fails.
java_tests() { # module goal...
  local module=$1; shift
  "${SUITE_DB[@]}" scripts/with-jdk.sh ./mvnw -B -f "$module/pom.xml" -Dspring-javaformat.skip=true "$@" \
    > "$REPORTS/$module.log" 2>&1
  local rc=$? totals
  totals=$(java_totals "$module")
  echo "${totals:-no Tests run: line}"
  grep -E 'BUILD (SUCCESS|FAILURE)|^TestDatabase:' "$REPORTS/$module.log" || true
  return $rc
}
# Surefire (unit) and Failsafe (integration) each close with an aggregate "Tests run:" line.
java_totals() { grep -E 'Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$REPORTS/$1.log"; }
java_count() { java_totals "$1" | sed -nE 's/.*Tests run: ([0-9]+),.*/\1/p' | awk '{n += $1} END {print n + 0}'; }

# One pytest run into REPORTS/<report>.xml, recorded as one row with the cases it ran.
pytest_suite() { # name report pytest-arguments...
  local name=$1 xml="$REPORTS/$2.xml"; shift 2
  "$PY" -m pytest -p no:cacheprovider --durations=15 --junitxml="$xml" "$@"; local rc=$?
  record "$name" "$("$PY" scripts/junit_count.py "$xml")" $rc
}

# The table, and the status: 0 when no suite failed.
summary() {
  banner "Summary"
  local failed=0 skipped=0 i
  printf '%-36s %6s %7s  %s\n' suite tests seconds result
  for i in "${!NAMES[@]}"; do
    printf '%-36s %6s %7s  %s\n' "${NAMES[$i]}" "${COUNTS[$i]}" "${TIMES[$i]}" "${RESULTS[$i]}"
    case "${RESULTS[$i]}" in
      ok) ;;
      skipped:*) skipped=$((skipped + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  done
  echo "seconds: from the suite's banner to its row (rows under one banner share it); total ${SECONDS} s"
  echo "reports and logs in $REPORTS/"
  [ "$skipped" -eq 0 ] || echo "!!! $skipped suite(s) SKIPPED: see the table above !!!"
  echo "suites: $((${#NAMES[@]} - failed - skipped)) passed, $failed failed$([ "$skipped" -eq 0 ] || echo ", $skipped skipped")"
  [ "$failed" -eq 0 ]
}
