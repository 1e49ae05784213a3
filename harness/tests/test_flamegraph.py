"""Flame graphs of real profiles: a Go CPU profile fetched from a running net/http/pprof server
and JDK Flight Recordings written when their JVM gets SIGTERM, each drawn to HTML whose data
names the function that burned the CPU. About 15 s once the Go build cache is warm and the
converter jar is cached (its first fetch, with the Maven wrapper, adds about 10 s)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bankbench.errors import UserError
from bankbench.machine import jdk
from bankbench.measure import flamegraph

GO_PROGRAM = """\
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
)

//go:noinline
func spinBusyGo(n int) uint64 {
	h := uint64(1)
	for i := 0; i < n; i++ {
		h = h*31 + (uint64(i) ^ (h >> 7))
	}
	return h
}

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() {
		var sum uint64
		for {
			sum += spinBusyGo(1_000_000)
		}
	}()
	fmt.Println(ln.Addr())
	http.Serve(ln, nil)
}
"""

JAVA_PROGRAM = """\
public class Spin {
    static long spinBusyJava(long n) {
        long h = 1;
        for (long i = 0; i < n; i++) { h = h * 31 + (i ^ (h >>> 7)); }
        return h;
    }

    public static void main(String[] args) {
        System.out.println("spinning");
        System.out.flush();
        long sum = 0;
        while (true) { sum += spinBusyJava(1_000_000); }
    }
}
"""
SPIN_SECONDS = 2


@dataclass(frozen=True)
class Recordings:
    execution: Path  # settings=profile: jdk.ExecutionSample
    cpu_time: Path  # and jdk.CPUTimeSample (JDK 25+)
    spun: tuple[float, float]  # the last second of the spin, in epoch seconds


@pytest.fixture(scope="module")
def go_profile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A 1 s CPU profile of a Go program that spins in spinBusyGo, fetched as the harness does."""
    src = tmp_path_factory.mktemp("go")
    (src / "main.go").write_text(GO_PROGRAM)
    subprocess.run(["go", "build", "-o", "busy", "main.go"], cwd=src, check=True, timeout=120)
    busy = subprocess.Popen([str(src / "busy")], stdout=subprocess.PIPE, text=True)
    try:
        address = busy.stdout.readline().strip()
        yield flamegraph.fetch_go_profile(address, 1, src / "cpu.pb.gz")
    finally:
        busy.kill()
        busy.wait()


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Recordings:
    """Two JVMs spinning in spinBusyJava, one with jdk.CPUTimeSample, stopped by SIGTERM as the
    harness stops the services. They run side by side to save time."""
    src = tmp_path_factory.mktemp("java")
    (src / "Spin.java").write_text(JAVA_PROGRAM)
    java = jdk.java_home() / "bin" / "java"
    jvms = {}
    for cpu_time in (False, True):
        jfr = src / f"cpu-time-{cpu_time}" / "spin.jfr"  # a directory java_options makes
        jvms[cpu_time] = (jfr, subprocess.Popen(
            [str(java), *flamegraph.java_options(jfr, cpu_time=cpu_time), "Spin.java"],
            cwd=src, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    try:
        said = {cpu_time: [] for cpu_time in jvms}
        for cpu_time, (_, jvm) in jvms.items():
            while (line := jvm.stdout.readline()) and line.strip() != "spinning":
                said[cpu_time].append(line)
        time.sleep(SPIN_SECONDS)
        spun = (time.time() - 1, time.time())
        for _, jvm in jvms.values():
            jvm.send_signal(signal.SIGTERM)
        for cpu_time, (_, jvm) in jvms.items():
            assert jvm.wait(30) == 128 + signal.SIGTERM, "".join(said[cpu_time])
    finally:
        for _, jvm in jvms.values():
            if jvm.poll() is None:
                jvm.kill()
                jvm.wait()
    return Recordings(execution=jvms[False][0], cpu_time=jvms[True][0], spun=spun)


def self_contained(html: str) -> bool:
    return "<script src" not in html and "<link" not in html


@pytest.mark.integration
def test_go_profile_is_drawn_with_its_hot_function(go_profile: Path, tmp_path: Path) -> None:
    out = flamegraph.render(go_profile, tmp_path / "flames" / "go.html", "pprof")
    html = out.read_text()
    assert "main.spinBusyGo" in html
    assert self_contained(html)
    assert not list(out.parent.glob(".*partial*"))


@pytest.mark.integration
def test_jfr_written_on_sigterm_is_drawn_with_its_hot_method(recordings: Recordings,
                                                             tmp_path: Path) -> None:
    out = flamegraph.render(recordings.execution, tmp_path / "java.html", "jfr", title="spin")
    html = out.read_text()
    assert "spinBusyJava" in html and "<h1>spin</h1>" in html
    assert self_contained(html)


@pytest.mark.integration
def test_a_window_keeps_only_its_samples(recordings: Recordings, tmp_path: Path) -> None:
    spun = flamegraph.render(recordings.execution, tmp_path / "spun.html", "jfr",
                             window=recordings.spun)
    assert "spinBusyJava" in spun.read_text()
    start, _ = recordings.spun
    before = flamegraph.render(recordings.execution, tmp_path / "before.html", "jfr",
                               window=(start - 3600, start - 3599))
    assert "spinBusyJava" not in before.read_text()


@pytest.mark.integration
def test_cpu_time_samples_are_drawn_when_recorded(recordings: Recordings,
                                                  tmp_path: Path) -> None:
    if jdk.feature(jdk.release_version(jdk.java_home())) < 25:
        pytest.skip("jdk.CPUTimeSample is JDK 25+")
    assert flamegraph._count_events(recordings.cpu_time, "jdk.CPUTimeSample") > 0
    assert flamegraph._count_events(recordings.execution, "jdk.CPUTimeSample") == 0
    html = flamegraph.render(recordings.cpu_time, tmp_path / "java.html", "jfr").read_text()
    assert "spinBusyJava" in html


def test_java_options_record_a_profile_written_at_exit(tmp_path: Path) -> None:
    jfr = tmp_path / "new" / "x.jfr"
    assert flamegraph.java_options(jfr) == [
        f"-XX:StartFlightRecording=filename={jfr},settings=profile,dumponexit=true"]
    assert jfr.parent.is_dir()
    assert flamegraph.java_options(jfr, cpu_time=True)[0].endswith(
        ",jdk.CPUTimeSample#enabled=true")
    with pytest.raises(UserError, match="commas or spaces"):
        flamegraph.java_options(tmp_path / "a,b.jfr")


def test_unreachable_pprof_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"fetching a Go CPU profile from http://127\.0\.0\.1:"):
        flamegraph.fetch_go_profile(f"127.0.0.1:{flamegraph.free_port()}", 1,
                                    tmp_path / "cpu.pb.gz")


def test_missing_profile_or_kind_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="a JVM killed before it exits cleanly writes none"):
        flamegraph.render(tmp_path / "none.jfr", tmp_path / "out.html", "jfr")
    (tmp_path / "cpu.pb.gz").write_bytes(b"x")
    with pytest.raises(UserError, match="unknown profile kind 'python'"):
        flamegraph.render(tmp_path / "cpu.pb.gz", tmp_path / "out.html", "python")


@pytest.mark.integration
def test_go_profile_without_go_is_a_user_error(go_profile: Path, tmp_path: Path,
                                               path_without: Callable[..., str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", path_without("go"))
    with pytest.raises(UserError, match="needs `go` on the PATH"):
        flamegraph.render(go_profile, tmp_path / "go.html", "pprof")
