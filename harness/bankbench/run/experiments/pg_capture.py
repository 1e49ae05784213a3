"""`make pgwire`: each service's PostgreSQL port captured, at the same rate.

`make pgwire`: what one request costs PostgreSQL, each service at the same rate, in turn at each
pool size. Each level's port is captured (tshark, on the loopback) while a sampler reads
PostgreSQL's processes each second; pgwire.json gets per request the protocol messages (Parse
against Execute: statements prepared against executed), segments, backends and CPU times.

See docs/request-cost.md#how-it-is-measured-make-pgwire."""

import collections
import itertools
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import psutil

from bankbench.analyse import levels
from bankbench.errors import UserError
from bankbench.load.profiles import levels as expand
from bankbench.results import files
from bankbench.run.environments.interface import Options
from bankbench.run.environments.native import Native
from bankbench.run.runner import Session, remaining

SNAPLEN = 256  # bytes of each packet kept: the message headers, not the rows
BACKEND = re.compile(r"\(\d+\)|\[local\]")  # a backend's title names its client: "127.0.0.1(43210)"
FIELDS = ("frame.time_epoch", "tcp.dstport", "tcp.len", "tcp.stream", "tcp.flags.syn", "tcp.flags.ack",
          "pgsql.type")


def run(opts: Options) -> Path:
    """Runs the profile's levels, each captured; returns the run folder."""
    if not shutil.which("tshark"):
        raise UserError("make pgwire captures PostgreSQL's port with tshark: apt-get install tshark")
    todo = expand(opts.profile)
    record: dict = {"rate": opts.profile.users[0], "levels": {}}
    with Session(opts) as session:
        calibrated = session.where.calibrate(todo, session.run_dir)
        native = session.where
        assert isinstance(native, Native)  # Session's default environment: PostgreSQL on this machine
        port = native.cluster.port
        for i, level in enumerate(todo, 1):
            staged = files.staged_capture_path(session.run_dir, level.id)
            with _captured(port, staged) as switches:
                out = session.run_level(level, f"[{i}/{len(todo)}]", remaining(todo[i - 1:]),
                                        calibrated.get(level.users))
            staged.rename(out / files.PG_CAPTURE)
            record["levels"][level.id] = per_request(out, port, switches)
            files.write_pgwire(session.run_dir, record)
    return session.final


@contextmanager
def _captured(port: int, capture: Path) -> Iterator[list["Sample"]]:
    """Captures PostgreSQL's port into `capture` and samples PostgreSQL's processes each second."""
    tshark = subprocess.Popen(["tshark", "-q", "-i", "lo", "-f", f"tcp port {port}", "-s", str(SNAPLEN),
                               "-w", str(capture)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples: list[Sample] = []
    stop = threading.Event()

    def sample_each_second() -> None:
        while not stop.wait(1.0):
            if (now := sample(port)) is not None:
                samples.append(now)

    sampler = threading.Thread(target=sample_each_second, daemon=True)
    sampler.start()
    try:
        yield samples
    finally:
        stop.set()
        sampler.join()
        tshark.terminate()
        tshark.wait(timeout=30)


class Sample(NamedTuple):
    """Counters over the postmaster's tree at one moment: context switches, and CPU seconds."""

    time: float  # epoch seconds
    voluntary: int
    involuntary: int
    backend_user: float  # of the backends, the processes that serve a client's connection
    backend_system: float
    background: float  # user and system of every other PostgreSQL process, the postmaster included
    softirq: float  # the machine's, every CPU: work the kernel charges to no process


def sample(port: int) -> Sample | None:
    """PostgreSQL's counters now, over the postmaster that listens on `port`; None while none does."""
    postmasters = [c.pid for c in psutil.net_connections("tcp")
                   if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid]
    if not postmasters:
        return None
    root = psutil.Process(postmasters[0])
    switches: collections.Counter[str] = collections.Counter()  # context switches
    seconds: collections.defaultdict[str, float] = collections.defaultdict(int)  # CPU, as a Counter sums it
    for proc in (root, *root.children()):
        try:
            with proc.oneshot():
                ctx, cpu, title = proc.num_ctx_switches(), proc.cpu_times(), " ".join(proc.cmdline())
        except psutil.NoSuchProcess:
            continue
        switches.update(voluntary=ctx.voluntary, involuntary=ctx.involuntary)
        if proc is not root and BACKEND.search(title):
            seconds["backend_user"] += cpu.user
            seconds["backend_system"] += cpu.system
        else:
            seconds["background"] += cpu.user + cpu.system
    return Sample(time.time(), switches["voluntary"], switches["involuntary"], seconds["backend_user"],
                  seconds["backend_system"], seconds["background"], psutil.cpu_times().softirq)


def per_request(level_dir: Path, port: int, samples: list[Sample]) -> dict:
    """The level's figures per request over its measured window (module doc)."""
    summary = levels.judged(level_dir)
    overall = summary.overall
    if not overall.throughput_rps:
        raise UserError(f"{level_dir.name} measured no request: nothing to divide its capture by")
    start = summary.level.measure_from_ms / 1000
    window = (start, start + overall.requests / overall.throughput_rps)
    return {"requests": overall.requests, "throughput_rps": overall.throughput_rps, "p99_ms": overall.p99_ms,
            **summary.efficiency.document,
            **tally(_packets(level_dir / files.PG_CAPTURE, port), port, window, overall.requests),
            **sampled(samples, window, overall.throughput_rps)}


def tally(packets: Iterable["Packet"], port: int, window: tuple[float, float], requests: int) -> dict:
    """Per request within `window` (epoch s): messages each way, segments, connections, backends."""
    to_pg: collections.Counter[str] = collections.Counter()
    from_pg: collections.Counter[str] = collections.Counter()
    counts: collections.Counter[str] = collections.Counter()
    backends = set()
    executed: list[str] = []  # the backend of each Execute, in the wire's order
    for packet in packets:
        if not window[0] <= packet.time < window[1]:
            continue
        sent = packet.dport == port
        counts["segments_to_pg" if sent else "segments_from_pg"] += packet.length > 0
        counts["new_connections"] += packet.syn and not packet.ack
        if sent and packet.length:
            backends.add(packet.stream)
            executed += [packet.stream] * packet.messages.count("Execute")
        (to_pg if sent else from_pg).update(packet.messages)

    def per(counter: collections.Counter) -> dict[str, float]:
        return {name: round(n / requests, 4) for name, n in sorted(counter.items())}

    return {"to_pg": per(to_pg), "from_pg": per(from_pg), **per(counts), "backends": len(backends),
            **spread(executed)}


def spread(executed: list[str]) -> dict:
    """The fewest backends that ran half the Executes, and the share run by the same backend as the
    one before: one that runs statement after statement keeps the CPU's caches warm."""
    if not executed:
        return {}
    busiest = itertools.accumulate(n for _, n in collections.Counter(executed).most_common())
    half = next(i for i, total in enumerate(busiest, 1) if 2 * total >= len(executed))
    repeats = sum(a == b for a, b in itertools.pairwise(executed))
    return {"backends_for_half": half, "same_backend_share": round(repeats / max(len(executed) - 1, 1), 4)}


def sampled(samples: list[Sample], window: tuple[float, float], rate: float) -> dict:
    """Per request over the samples in `window`, as Sample splits them; {} with fewer than two."""
    inside = [s for s in samples if window[0] <= s.time <= window[1]]
    if len(inside) < 2:
        return {}
    first, last = inside[0], inside[-1]
    served = rate * (last.time - first.time)
    return {"pg_voluntary_switches": round((last.voluntary - first.voluntary) / served, 3),
            "pg_involuntary_switches": round((last.involuntary - first.involuntary) / served, 3),
            **{f"pg_{name}_ms": round((getattr(last, name) - getattr(first, name)) * 1000 / served, 4)
               for name in ("backend_user", "backend_system", "background")},
            "softirq_ms": round((last.softirq - first.softirq) * 1000 / served, 4)}


class Packet(NamedTuple):
    time: float  # epoch seconds
    dport: int
    length: int  # TCP payload bytes
    stream: str  # tshark's number of the TCP connection
    syn: bool
    ack: bool
    messages: list[str]  # the PostgreSQL messages it carries, by tshark's names


def _packets(capture: Path, port: int) -> Iterator[Packet]:
    out = subprocess.run(["tshark", "-r", str(capture), "-d", f"tcp.port=={port},pgsql", "-T", "fields",
                          *(arg for field in FIELDS for arg in ("-e", field)), "-E", "occurrence=a",
                          "-E", "aggregator=,"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        t, dport, length, stream, syn, ack, types = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
        yield Packet(float(t), int(dport or 0), int(length or 0), stream, syn in ("1", "True"), ack in ("1", "True"),
                     [name for name in types.split(",") if name])
