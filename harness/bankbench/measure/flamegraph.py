"""CPU profiles of the services as flame graphs, drawn by each ecosystem's own tool.

Self-contained HTML, drawn by each ecosystem's own well-kept tool: this module records, fetches and
hands files over, and draws nothing itself. Java: a JDK Flight Recording -> jfrconv,
async-profiler's converter (pinned by SHA-256), whose `--cpu` finds nothing in a JDK recording (all
STATE_RUNNABLE): the default, or `--cpu-time` for JDK 25's jdk.CPUTimeSample. Go: net/http/pprof's
(symbolized) profile -> `go tool pprof -http`'s flame graph page, saved: the Go team's viewer, in
the toolchain already, drawing offline (rejected: our own stack folding for jfrconv, speedscope's
several files, one more module over pprof/driver).

See docs/benchmarks.md#inside-the-services."""

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bankbench import paths
from bankbench.bank.processes import stop_group
from bankbench.errors import UserError
from bankbench.machine import jdk, postgres_binaries
from bankbench.machine.postgres import free_port

KINDS = ("pprof", "jfr")  # the profilers of services.yaml that record something
CONVERTER = "tools.profiler:jfr-converter:4.5"  # async-profiler 4.5's converter, main one.convert.Main
CONVERTER_SHA256 = "d8a5452b26adb11a2a0abf0c53799a6fd60dbccb0647efa5a734e3c46ced3df4"
CACHE = paths.ROOT / ".cache" / "tools"  # git-ignored
# Seconds for `go tool pprof -http` to serve: since Go 1.25 it builds pprof on first use (~45 s).
SERVE_TIMEOUT = 300.0


def render(profile: Path, out_html: Path, kind: str, *, title: str | None = None,
           window: tuple[float, float] | None = None) -> Path:
    """Draws `profile` as one HTML flame graph at `out_html`. JFR only (a Go profile titles itself
    and spans only the seconds fetched): `title`, and `window` (start, end) in epoch seconds."""
    if kind not in KINDS:
        raise UserError(f"unknown profile kind {kind!r}: choose from {', '.join(KINDS)}")
    if not profile.is_file() or profile.stat().st_size == 0:
        why = " (a JVM killed before it exits cleanly writes none)" if kind == "jfr" else ""
        raise UserError(f"no {kind} profile at {profile}{why}")
    out_html.parent.mkdir(parents=True, exist_ok=True)
    partial = out_html.with_name(f".{out_html.name}.partial.html")
    if kind == "jfr":
        _render_jfr(profile, partial, title or f"{profile.name}: Java CPU", window)
    else:
        partial.write_text(_render_pprof(profile))
    partial.replace(out_html)
    return out_html


def java_options(jfr_path: Path, *, cpu_time: bool = False) -> list[str]:
    """The JVM options that record a CPU profile into `jfr_path` (its directory made here, or the
    JVM refuses to start), written at exit, SIGTERM too; `cpu_time` adds JDK 25's CPU-time samples
    of every thread (JEP 509), like Go's profiler, beyond a few threads in Java code per 10 ms."""
    jfr_path = Path(jfr_path).absolute()
    if "," in str(jfr_path) or any(c.isspace() for c in str(jfr_path)):
        raise UserError(f"{jfr_path}: a JFR file name cannot hold commas or spaces (JVM option "
                        f"syntax, and JAVA_OPTS is split on spaces)")
    jfr_path.parent.mkdir(parents=True, exist_ok=True)
    settings = [f"filename={jfr_path}", "settings=profile", "dumponexit=true"]
    if cpu_time:
        settings.append("jdk.CPUTimeSample#enabled=true")
    return [f"-XX:StartFlightRecording={','.join(settings)}"]


def fetch_go_profile(pprof_url: str, seconds: int, out: Path) -> Path:
    """Fetches a `seconds`-long CPU profile from `pprof_url` (URL or host:port) into `out`."""
    base = pprof_url if "://" in pprof_url else f"http://{pprof_url}"
    url = f"{base.rstrip('/')}/debug/pprof/profile"
    try:
        answer = httpx.get(url, params={"seconds": seconds}, timeout=seconds + 30)
    except httpx.HTTPError as err:
        raise UserError(f"fetching a Go CPU profile from {url} failed: {err}") from err
    if answer.status_code != 200:
        raise UserError(f"{url} answered {answer.status_code}: {answer.text[:500]}")
    if not answer.content.startswith(b"\x1f\x8b"):  # pprof profiles are gzipped protobuf
        raise UserError(f"{url} sent something other than a pprof profile: {answer.text[:200]!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(answer.content)
    return out


def converter_jar() -> Path:
    """The converter's jar, fetched once and checked (postgres_binaries.maven_jar)."""
    jar = CACHE / f"{CONVERTER.replace(':', '-')}.jar"
    if jar.is_file() and postgres_binaries.sha256_of(jar) == CONVERTER_SHA256:
        return jar
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        postgres_binaries.maven_jar(CONVERTER, CONVERTER_SHA256, Path(tmp),
                                    "(needed to draw Java flame graphs)", timeout=600).replace(jar)
    return jar


def _render_jfr(jfr: Path, out: Path, title: str, window: tuple[float, float] | None) -> None:
    """jfrconv's HTML: CPU-time samples when the recording has them, else execution samples."""
    event = ["--cpu-time"] if _count_events(jfr, "jdk.CPUTimeSample") else []
    # --from/--to take epoch milliseconds (or offsets from the recording's start when small).
    span = ["--from", str(int(window[0] * 1000)), "--to", str(int(window[1] * 1000))] \
        if window else []
    command = [str(jdk.java_home() / "bin" / "java"), "-jar", str(converter_jar()), *event, *span,
               "--dot", "--title", title, "-o", "html", str(jfr), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not out.is_file():
        raise UserError(f"drawing {jfr} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def _count_events(jfr: Path, event: str) -> int:
    done = subprocess.run([str(jdk.java_home() / "bin" / "jfr"), "summary", str(jfr)],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise UserError(f"{jfr} is not a readable recording: {done.stderr.strip()[:500]}")
    match = re.search(rf"^\s*{re.escape(event)}\s+(\d+)", done.stdout, re.MULTILINE)
    return int(match.group(1)) if match else 0


def _render_pprof(profile: Path) -> str:
    """`go tool pprof -http`'s flame graph page; retried when another process takes the port."""
    if (go := shutil.which("go")) is None:
        raise UserError("drawing a Go profile needs `go` on the PATH (it builds the Go service "
                        "too): see `make doctor`")
    with tempfile.TemporaryDirectory(prefix="bankbench-pprof-") as tmp:  # no go.mod, no litter
        for _ in range(3):
            port = free_port()
            log = Path(tmp) / "pprof.log"
            with open(log, "w") as sink:
                proc = subprocess.Popen(
                    [go, "tool", "pprof", "-no_browser", "-symbolize=none",
                     f"-http=127.0.0.1:{port}", str(profile.absolute())],
                    cwd=tmp, env={**os.environ, "PPROF_TMPDIR": tmp}, stdin=subprocess.DEVNULL,
                    stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                page = _flamegraph_page(proc, f"http://127.0.0.1:{port}/ui/flamegraph", log)
            finally:
                stop_group(proc, 10)  # `go tool` runs pprof as its child
            if page is not None:
                return page
    raise UserError(f"go tool pprof found no free port to serve {profile} on")


def _flamegraph_page(proc: subprocess.Popen, url: str, log: Path) -> str | None:
    """The page at `url` once pprof serves it; None when pprof lost its port to another process."""
    deadline = time.monotonic() + SERVE_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            text = log.read_text()
            if "address already in use" in text:
                return None
            raise UserError(f"go tool pprof exited with {proc.returncode}:\n{text[-2000:]}")
        try:
            answer = httpx.get(url, timeout=30)
        except httpx.TransportError:
            time.sleep(0.1)
            continue
        if answer.status_code != 200:
            raise UserError(f"go tool pprof answered {answer.status_code} at {url}: "
                            f"{answer.text[:500]}")
        return answer.text
    raise UserError(f"go tool pprof did not serve within {SERVE_TIMEOUT:.0f} s:\n"
                    f"{log.read_text()[-2000:]}")
