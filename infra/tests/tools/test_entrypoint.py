"""The entrypoints of the load generators' images (JMeter's, Gatling's), run with stand-ins for
jmeter, java, curl and hostname."""

import os
import subprocess
from pathlib import Path

import pytest

from bankbench.load import gatling

DOCKER = Path(__file__).parents[2] / "docker"
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
    # Gatling's JVM: records its arguments, writes the samples file it is given, prints the start
    # line of the simulation (gatling/README.md).
    "java": 'printf "%s\\n" "$@" > "$CALLS/java"\n'
            'for arg; do case $arg in -Dsamples=*) echo "timeStamp" > "${arg#-Dsamples=}" ;; esac; done\n'
            'echo "Starting standalone test @ 2026-11-26T06:32:18.968Z (1795674738968)"\n'
            'exit "${JAVA_RC:-0}"',
}


@pytest.fixture(params=["jmeter"])
def image(request, tmp_path):
    """The entrypoint of the image of the generator `request.param`, run with the stand-ins."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    calls.mkdir()
    for name, body in FAKES.items():
        (bin_dir / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_dir / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CALLS": str(calls),
           "RESULTS_DIR": str(tmp_path / "results"), "JMETER_WORKERS": "10.42.1.8,10.42.1.9"}

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(DOCKER / request.param / "entrypoint.sh"), *args], env={**env, **extra},
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


@pytest.mark.parametrize("image", ["gatling"], indirect=True)
def test_gatling_runs_the_simulation_here_as_the_harness_does(image):
    """The whole load in this container: the harness's simulation and JDK 25 options, each
    property a -D, the files the aws environment fetches under the harness's names."""
    done = image("run", "host=10.42.1.20", "port=8080", "rate=75", "phases=30:350,60:1400",
                 GATLING_JVM="-Xms1g -Xmx1g")
    assert done.returncode == 0, done.stderr
    args = (image.calls / "java").read_text().split("\n")
    assert args[:len(gatling.OPENS) + 2] == [*gatling.OPENS, "-Xms1g", "-Xmx1g"]
    assert {"-Dhost=10.42.1.20", "-Dport=8080", "-Drate=75", "-Dphases=30:350,60:1400",
            f"-Dsamples={image.results / gatling.SAMPLES}"} <= set(args)
    assert args[args.index("-s") + 1] == gatling.SIMULATION and "io.gatling.app.Gatling" in args
    assert "http://10.42.1.20:8080/health" in (image.calls / "curl").read_text()
    assert sorted(p.name for p in image.results.iterdir()) == sorted(
        [gatling.SAMPLES, gatling.LOG, "started_ms", "ended_ms", "exit_code"])
    assert (image.results / "started_ms").read_text().strip() == "1795674738968"
    assert "Starting standalone test" in (image.results / gatling.LOG).read_text()


@pytest.mark.parametrize("image", ["gatling"], indirect=True)
def test_gatling_reports_a_failed_run(image):
    done = image("run", "host=10.42.1.20", JAVA_RC="1")
    assert done.returncode == 1 and (image.results / "exit_code").read_text().strip() == "1"
