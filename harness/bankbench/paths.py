"""Where things are in the repository: the one place the harness learns the layout."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DB = ROOT / "db"
SCHEMA = DB / "schema.sql"
PG_SETTINGS = DB / "postgresql.conf"
PG_NON_DURABLE = DB / "postgresql-non-durable.conf"
MONEY_CHECK = DB / "money_check.sql"
QUERIES = DB / "queries.sql"
OPENAPI = ROOT / "api" / "openapi.yaml"
METRICS = ROOT / "api" / "metrics.md"
JMETER = ROOT / "jmeter"
PLAN = JMETER / "src" / "test" / "jmeter" / "bank.jmx"
PROFILES = JMETER / "profiles.toml"
# BANKBENCH_RUNS moves results elsewhere (the tests use it to keep results/runs clean).
RUNS = Path(os.environ.get("BANKBENCH_RUNS", ROOT / "results" / "runs"))
STATE = ROOT / ".run"
GO_BINARY = ROOT / "bank-go" / "bin" / "bank-go"
JAVA_JAR = ROOT / "bank-java" / "target" / "bank-java.jar"
JVM_OPTIONS = ROOT / "bank-java" / "jvm.options"  # the heap and GC of both Java variants, everywhere
