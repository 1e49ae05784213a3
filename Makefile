# bankbench: build, run, test and benchmark the Go and Java bank services.
# `make check` (before pushing, ~4 min) and `make test` (everything, what CI runs, ~45 min) are
# the two test tiers; CONTRIBUTING.md says what each runs (times: docs/target-times.toml).
# `make bench` and `make test` check the prerequisites (`make doctor`), then install what they need
# (Maven wrapper, Go modules and toolchain, a Python venv, PostgreSQL 15 when the machine has none).
# Knobs: PROFILE, SERVICE, USERS, RATE, POOL, DURATION, WARMUP, REPEAT, SCENARIO, THINK_MS, START, PG_MAX_CONNECTIONS,
# PG_DURABLE=off, ENV=native|compose, CHAOS, PROFILE_CPU=1, CPU_PLACEMENT=split|service-alone|shared or a
# comma list of them, a run each, TUNED=1 (each service at its [tuned.<service>] settings of tuned.toml,
# from make tune) (see docs/benchmarks.md). Make hands each to the harness in the environment of a
# recipe, as it does every variable of its command line or of the shell: the harness reads them in
# one place (SETTINGS in harness/bankbench/cli.py), so a recipe names only its verb.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PY := .venv/bin/python
# Stdlib-only harness modules (doctor, jdk) run on the system Python, before .venv exists.
DOCTOR := PYTHONPATH=harness python3 -m bankbench.machine.doctor
# The one JDK (21+) of the build and every Java service: harness/bankbench/machine/jdk.py chooses it.
WITH_JDK := scripts/with-jdk.sh
MVNW := $(WITH_JDK) ./mvnw -B -q
# go.mod names the Go toolchain; any Go >= 1.21 fetches it through the module proxy.
export GOTOOLCHAIN ?= auto
DB_ENV := .run/db.env
GO_SOURCES := $(shell find bank-go db -name '*.go' -o -name go.mod -o -name go.sum -o -name '*.sql' 2>/dev/null)
# The load generator's calibration target: the plan's answers at almost no cost (jmeter/calibrate).
CALIBRATE_TARGET := jmeter/calibrate/bin/calibrate
# java-shared/: the Java both Java services compile in (java-shared/README.md); a change rebuilds both.
JAVA_SOURCES := $(shell find bank-java/src bank-java/pom.xml java-shared/src db -type f 2>/dev/null)
HELIDON_SOURCES := $(shell find bank-helidon/src bank-helidon/pom.xml java-shared/src db -type f 2>/dev/null)
GATLING_SOURCES := $(shell find gatling/src gatling/pom.xml -type f 2>/dev/null)

# The harness reading the knobs: only with BANKBENCH_FROM_MAKE=1, so that a run by hand or by a
# test reads none. `make bench` and `make aws-bench` thus take the same knobs (test_knobs.py checks).
BANKBENCH := BANKBENCH_FROM_MAKE=1 $(PY) -m bankbench

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z%-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-20s %s\n", $$1, $$2}'

# --- set-up -------------------------------------------------------------------------------

doctor: ## every prerequisite: version found, version needed, how to install what is missing
	@$(DOCTOR)

venv: .venv/.installed ## Python venv with the harness, analysis and test packages
.venv/.installed: harness/requirements.txt harness/pyproject.toml
	bash scripts/venv.sh

build: build-go build-java build-helidon build-calibrate ## build the services and the load generator's calibration target
build-go: bank-go/bin/bank-go ## build the Go service
bank-go/bin/bank-go: $(GO_SOURCES)
	@$(DOCTOR) go
	cd bank-go && go build -o bin/bank-go .
build-calibrate: $(CALIBRATE_TARGET) ## build the calibration target of the load generator (jmeter/calibrate)
$(CALIBRATE_TARGET): jmeter/calibrate/main.go jmeter/calibrate/go.mod
	@$(DOCTOR) go
	cd jmeter/calibrate && go build -o bin/calibrate .

build-java: bank-java/target/bank-java.jar ## build the Java service (Maven wrapper, JDK 21+)
# The format check is `make lint`'s (and ./mvnw verify's): a benchmark is not held up by it.
bank-java/target/bank-java.jar: $(JAVA_SOURCES)
	$(MVNW) -f bank-java/pom.xml -DskipTests -Dspring-javaformat.skip=true package

build-helidon: bank-helidon/target/bank-helidon.jar ## build the Helidon SE service (Maven wrapper, JDK 21+)
# A thin jar; the jars its manifest names are copied to bank-helidon/target/libs/.
bank-helidon/target/bank-helidon.jar: $(HELIDON_SOURCES)
	$(MVNW) -f bank-helidon/pom.xml -DskipTests -Dspring-javaformat.skip=true package

jmeter-install: jmeter/target/config.json ## fetch JMeter 5.6.3 through jmeter-maven-plugin
jmeter/target/config.json: jmeter/pom.xml
	$(MVNW) -f jmeter/pom.xml verify
gatling-install: gatling/target/classpath.txt ## build the Gatling 3.15 simulation and its classpath (gatling/README.md)
gatling/target/classpath.txt: $(GATLING_SOURCES)
	$(MVNW) -f gatling/pom.xml package

# --- running by hand -----------------------------------------------------------------------

db-up: venv ## start a throwaway PostgreSQL (DB_PORT=, DB_MAX_CONNECTIONS=), settings in .run/db.env
	$(BANKBENCH) db up
db-down: venv ## stop and delete it
	$(PY) -m bankbench db down

define with-db
	@test -f $(DB_ENV) || { echo "no database: run 'make db-up' first"; exit 1; }
	set -a && . ./$(DB_ENV) && set +a && $(1)
endef

run-%: venv build ## run a service of services.yaml on the db-up database (PORT=8080): run-go, run-java ...
	$(call with-db,exec $(PY) -m bankbench services --exec $*)

# --- tests ---------------------------------------------------------------------------------

check: doctor venv build jmeter-install gatling-install ## before pushing (~4 min): lint, unit tests, contract vs Go, 1-level smoke bench
	bash scripts/check.sh
test: doctor venv build jmeter-install gatling-install ## everything (CI, ~45 min): lint, Go, Java, contract, fuzz, harness, smoke bench, infra
	bash scripts/test.sh
lint: venv ## ruff, mypy, gofmt, go vet, staticcheck, spring-javaformat (make check and make test run it)
	bash scripts/lint.sh
format: venv ## apply what the linters fix themselves (ruff, gofmt, spring-javaformat), then lint
	bash scripts/lint.sh --fix

# --- benchmarks ----------------------------------------------------------------------------

verify: venv build ## prove the services run the same statements, one per request, one transaction
	$(PY) -m bankbench verify

# `bench` writes raw results; `summarize` computes the newest run's figures; `report` only reads.
BENCH = $(BANKBENCH) bench
SUMMARIZE = $(BANKBENCH) summarize
# A run ends with this machine's verdict and the run's own page (results/runs/<run>/report/); git ignores
# it, and the published report stays as it is until `make publish` puts the run in.
bench: doctor venv build jmeter-install gatling-install ## every service (or SERVICE=) on PROFILE (default local), then this machine's verdict and the run's page
	$(BENCH)
	$(SUMMARIZE) --verdict
bench-%: doctor venv build jmeter-install gatling-install ## one service of services.yaml (bench-go, bench-helidon ...); ends as bench does
	$(BENCH) --service $*
	$(SUMMARIZE) --verdict
crosscheck: ## the two load generators on the same levels, back to back (profiles crosscheck, crosscheck-gatling; ~16 min)
	$(MAKE) bench PROFILE=crosscheck
	$(MAKE) bench PROFILE=crosscheck-gatling
overload: ## past capacity: each warm service at 0.5x, 2x, 0.5x its capacity (RATE= it/s, else make capacity's), then the report
	$(MAKE) bench PROFILE=overload
sensitivity: ## the verdict under each CPU placement: make bench PROFILE=placement (4k and 10k users, ~107 min)
	$(MAKE) bench PROFILE=placement
capacity: doctor venv build jmeter-install gatling-install ## per service and CPU placement (service-alone,split): highest rate with p99 <= 50 ms (P99_MS=) and errors < 0.1 %, from every probe of a staircase per contender (A/A twin, pools beside), smallest heap there under the first unless TUNED=1 (CAPACITY_MIN=170 each)
	$(BANKBENCH) capacity
	$(PY) -m bankbench report
soak: doctor venv build jmeter-install gatling-install ## each warm service in turn (SERVICE=) under CPU_PLACEMENT (split) at 80 % of make capacity's rate there (or RATE= it/s) for MINUTES=30: p99 and errors per minute, RSS and pool trends, money; soak.json and a page of charts
	$(BANKBENCH) soak
tune: doctor venv build jmeter-install gatling-install ## per service under CPU_PLACEMENT (split) below its capacity: pool, then its knobs, each value in a duel with the incumbent scored by CPU per request; writes tuned.toml, then make capacity TUNED=both, shipped and tuned in turn (TUNE_MIN=360, KNOBS= a comma list: only those, the others where the last run left them)
	$(BANKBENCH) tune
	$(MAKE) capacity TUNED=both CPU_PLACEMENT=$(or $(CPU_PLACEMENT),split)
pgwire: doctor venv build jmeter-install gatling-install ## what one request costs PostgreSQL per service at one rate (tshark; profile pgwire)
	@$(DOCTOR) tshark
	$(BANKBENCH) pgwire
pg-spread: venv ## PostgreSQL alone at make pgwire's rate: its CPU per statement over 2, 16, 95 connections (pgbench, ~7 min)
	@$(DOCTOR) pgbench
	$(BANKBENCH) pg-spread
startup: venv build ## each service's time from its start to its first 200, cold and cold+AOT (STARTS=10 each)
	$(BANKBENCH) startup
quick-bench: venv build ## wrk on both hot endpoints of each service, next to pgbench on the same SQL
	@$(DOCTOR) wrk pgbench
	$(PY) -m bankbench quick
java-warmup-profile: venv build-java ## the flame graphs of results/quick/java-warmup.md into results/quick/profiles/ (git ignores them; make db-up first)
	@$(DOCTOR) wrk
	$(call with-db,for variant in java java-virtual; do scripts/java-warmup-profile.sh $$variant results/quick/profiles; done)
fuzz: venv build ## schemathesis against each service (SCHEMATHESIS_SEED=random for new cases)
	$(PY) -m bankbench fuzz
connections: venv build ## 10,000 slow keep-alive connections against each service (~5 min)
	$(PY) -m bankbench connections
plan: venv ## list the levels PROFILE would run, with the time they take
	$(BANKBENCH) plan
calibrate: venv build-calibrate jmeter-install gatling-install ## what the profile's load generator drives on its CPUs for each load of PROFILE (cached; FORCE=1 again)
	$(BANKBENCH) calibrate

migrate: venv ## bring every run folder under results/ (or RUN=dir ...) to this harness's schema versions, once
	$(PY) -m bankbench migrate $(RUN)
summarize: venv ## compute a run's figures (RUN=dir; default the newest run)
	$(SUMMARIZE) $(RUN)
compare: venv ## each service and level of run B against run A, with intervals: make compare A=dir B=dir
	@[ -n "$(A)" ] && [ -n "$(B)" ] || { echo "usage: make compare A=<run dir> B=<run dir>" >&2; exit 2; }
	$(PY) -m bankbench compare $(A) $(B)

report: venv ## render results/report/ from the runs results/published.csv lists (RUNS="dir ..." to choose)
	$(PY) -m bankbench report $(if $(RUNS),--runs $(RUNS))
publish: venv ## put a run into the report: make publish RUN=results/runs/<run> WHY="why it is kept" (then git add)
	@[ -n "$(RUN)" ] && [ -n "$(WHY)" ] || { echo 'usage: make publish RUN=results/runs/<run> WHY="why it is kept"' >&2; exit 2; }
	$(PY) -m bankbench report --publish $(RUN) --why "$$WHY"
report-html: venv ## the report and the executed notebook as results/report/results.html (not in git; minutes)
	$(PY) -m bankbench report --html $(if $(RUNS),--runs $(RUNS))
screenshot: venv ## the first screen of the report's index and newest run page (or PAGE=) at 1280x800 in headless Chromium, checked; PNGs in .cache/screenshots/
	bash scripts/chromium.sh
	$(PY) -m bankbench screenshot $(if $(PAGE),--page $(PAGE))
clean-raw: ## delete the load generator's raw samples and logs kept beside each level (git ignores them)
	find results -path '*/levels/*' \( -name jmeter.csv.gz -o -name jmeter.log -o -name gatling.csv.gz \
		-o -name gatling.log -o -name gatling-gc.log -o -name cpu.jfr -o -name cpu.pprof -o -name dashboard -prune \) -exec rm -rf {} +

compose-file: venv ## write the services of docker-compose.yml from services.yaml
	$(PY) -m bankbench services --write-compose

newcomer: ## the README's walk (doctor, bench PROFILE=smoke) in a fresh minimal Debian 13 root (root, debootstrap)
	bash scripts/newcomer.sh

offline-images: ## base images without Docker Hub: debootstrap, Debian's OpenJDK, Go from the module proxy (root)
	bash infra/docker/offline/build.sh
# On the local base images of `make offline-images` when this machine has them (.run/images.env).
images: ## build the images of docker-compose.yml (PostgreSQL, the services, JMeter, Gatling)
	bash infra/docker/offline/build.sh --if-built
	docker compose $$(test -f .run/images.env && echo --env-file .run/images.env) --profile jmeter --profile gatling build

jmeter-gui: jmeter-install ## open the plan in the JMeter GUI (needs a display)
	$(MVNW) -f jmeter/pom.xml jmeter:configure jmeter:gui -DguiTestFile=src/test/jmeter/bank.jmx

include infra/infra.mk

.PHONY: doctor venv build build-go build-java build-helidon build-calibrate jmeter-install db-up db-down \
	gatling-install check test lint format verify bench crosscheck overload sensitivity capacity soak tune quick-bench \
	pgwire pg-spread startup java-warmup-profile fuzz connections plan calibrate migrate summarize compare report publish report-html screenshot clean-raw compose-file newcomer offline-images \
	images jmeter-gui
