"""Where things are in the repository: the one place the harness learns the layout.

See harness/README.md."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DB = ROOT / "db"
SCHEMA = DB / "schema.sql"
PG_SETTINGS = DB / "postgresql.conf"
PG_NON_DURABLE = DB / "postgresql-non-durable.conf"
MONEY_CHECK = DB / "money_check.sql"
EMPTY_TABLES = DB / "empty.sql"  # the schema without rows: a warm level after its warm-up
QUERIES = DB / "queries"  # one file per statement, <name>.sql (bankbench.bank.queries)
SERVICES = ROOT / "services.yaml"  # the registry of the services under test (bankbench.registry)
COMPOSE = ROOT / "docker-compose.yml"
IMAGES_ENV = ROOT / ".run" / "images.env"  # `make offline-images`' base images: no Docker Hub
INFRA = ROOT / "infra"  # the AWS stack's Terraform root module (bankbench.run.environments.aws)
INSTANCES = INFRA / "instances.csv"  # the AWS instance types: size, price, source
OFFLINE_IMAGES = INFRA / "docker" / "offline" / "build.sh"  # writes IMAGES_ENV
OPENAPI = ROOT / "api" / "openapi.yaml"
METRICS = ROOT / "api" / "metrics.yaml"  # the /metrics series and each dialect's names (bankbench.registry)
JMETER = ROOT / "jmeter"
PLAN = JMETER / "src" / "test" / "jmeter" / "bank.jmx"
PROFILES = ROOT / "profiles.toml"  # beside services.yaml: what the harness runs
# The settings make tune found, which TUNED=1 runs with; BANKBENCH_TUNED moves them (the tests).
TUNED = Path(os.environ.get("BANKBENCH_TUNED", ROOT / "tuned.toml"))
# The capacities make capacity found, which overload, soak and tune run at a share of (BANKBENCH_CAPACITIES: the tests).
CAPACITIES = Path(os.environ.get("BANKBENCH_CAPACITIES", ROOT / "capacity.toml"))
RESULTS = ROOT / "results"  # what git keeps of the benchmarks (results/LAYOUT.md) and the report
RUNS = Path(os.environ.get("BANKBENCH_RUNS", RESULTS / "runs"))  # the tests move it out of results/
STATE = ROOT / ".run"
JVM_OPTIONS = ROOT / "bank-java" / "jvm.options"  # the heap and GC of every Java service, everywhere
