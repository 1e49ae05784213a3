"""The JMeter image's entrypoint, run with stand-ins for jmeter, curl and hostname."""

import os
import subprocess
from pathlib import Path

import pytest

ENTRYPOINT = Path(__file__).parents[2] / "docker" / "jmeter" / "entrypoint.sh"
FAKES = {
    # Records its arguments, one per line, and writes a results file when asked for one.
    "jmeter": 'printf "%s\\n" "$@" > "$CALLS/jmeter"\n'
              'while [ $# -gt 0 ]; do [ "$1" = -l ] && echo "timeStamp" > "$2"; shift; done\n'
              'echo "Starting ${JMETER_MODE:-distributed} test with remote engines: [10.42.1.8]'
              ' @ 2026 Nov 22 (1795310510477)"\n'
              'exit "${JMETER_RC:-0}"',
    # The health endpoint answers.
    "curl": 'echo "$*" >> "$CALLS/curl"',
    "hostname": 'echo "169.254.172.2 10.42.1.7 "',
}


@pytest.fixture
def image(tmp_path):
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    calls.mkdir()
    for name, body in FAKES.items():
        (bin_dir / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_dir / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CALLS": str(calls),
           "RESULTS_DIR": str(tmp_path / "results"), "JMETER_WORKERS": "10.42.1.8,10.42.1.9"}

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(ENTRYPOINT), *args], env={**env, **extra},
                              capture_output=True, text=True, timeout=30)

    run.calls = calls
    run.results = tmp_path / "results"
    return run


def test_worker_serves_on_fixed_rmi_ports_at_its_vpc_address(image):
    assert image("worker").returncode == 0
    args = (image.calls / "jmeter").read_text().split("\n")
    assert "-s" in args and "-Jserver_port=1099" in args and "-Jserver.rmi.localport=50000" in args
    assert "-Djava.rmi.server.hostname=10.42.1.7" in args and "-Jserver.rmi.ssl.disable=true" in args
    assert args[args.index("-q") + 1] == "/opt/bankbench/bankbench.properties"
    assert "-Jjmeterengine.force.system.exit=false" in args


def test_controller_drives_the_workers_with_global_properties(image):
    done = image("controller", "host=10.42.1.20", "port=8080", "users=250")
    assert done.returncode == 0, done.stderr
    args = (image.calls / "jmeter").read_text().split("\n")
    assert args[args.index("-R") + 1] == "10.42.1.8,10.42.1.9"
    assert args[args.index("-q") + 1] == "/opt/bankbench/bankbench.properties"
    assert {"-Ghost=10.42.1.20", "-Gport=8080", "-Gusers=250", "-Jclient.rmi.localport=60000"} <= set(args)
    assert "http://10.42.1.20:8080/health" in (image.calls / "curl").read_text()
    assert sorted(p.name for p in image.results.iterdir()) == [
        "controller.out", "ended_ms", "exit_code", "jmeter.csv", "started_ms"]
    assert (image.results / "started_ms").read_text().strip() == "1795310510477"
    assert int((image.results / "ended_ms").read_text()) > 1795310510477


def test_controller_reports_a_failed_run(image):
    done = image("controller", "host=10.42.1.20", JMETER_RC="3")
    assert done.returncode == 3 and (image.results / "exit_code").read_text().strip() == "3"


def test_controller_needs_its_workers(image):
    done = image("controller", "host=10.42.1.20", JMETER_WORKERS="")
    assert done.returncode != 0 and "JMETER_WORKERS" in done.stderr


def test_run_drives_the_plan_in_this_container_with_local_properties(image):
    """docker compose --profile jmeter run jmeter run host=bank-go ... (docker-compose.yml)."""
    done = image("run", "host=bank-go", "users=100", "duration=60", JMETER_WORKERS="", JMETER_MODE="standalone")
    assert done.returncode == 0, done.stderr
    args = (image.calls / "jmeter").read_text().split("\n")
    assert "-R" not in args and {"-Jhost=bank-go", "-Jusers=100", "-Jduration=60"} <= set(args)
    assert "http://bank-go:8080/health" in (image.calls / "curl").read_text()
    assert (image.results / "exit_code").read_text().strip() == "0"
    assert (image.results / "started_ms").read_text().strip() == "1795310510477"
