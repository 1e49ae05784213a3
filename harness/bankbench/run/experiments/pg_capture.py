"""`make pgwire`: what one request costs PostgreSQL, each service at the same rate. Every level of
the run is captured on PostgreSQL's port (tshark, on the loopback) while a sampler reads the
context switches of PostgreSQL's processes; over the level's measured window this counts, per
request: the protocol messages by type each way (Parse against Execute: statements prepared
against executed), the TCP segments, the backends that served a request, new connections, and
PostgreSQL's voluntary and involuntary context switches; beside them the level's own figures:
PostgreSQL's and the service's CPU per request. The services run in turn at each pool size
(bankbench.load.profiles.levels), so the machine's drift falls on all of them alike.

Writes pgwire.json in the run folder: per level, those figures (bankbench.results.runs)."""

from __future__ import annotations

import collections
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import psutil

from bankbench.errors import UserError
from bankbench.load.profiles import levels as expand
from bankbench.results import files, levels
from bankbench.results.runs import PGWIRE_FILE
from bankbench.run.environments.interface import Options
from bankbench.run.environments.native import Native
from bankbench.run.runner import Session, remaining

SNAPLEN = 256  # bytes of each packet kept: the message headers, not the rows
FIELDS = ("frame.time_epoch", "tcp.dstport", "tcp.len", "tcp.stream", "tcp.flags.syn", "tcp.flags.ack",
          "pgsql.type")


def run(opts: Options) -> Path:
    """Runs the profile's levels (services in turn) with each one captured; returns the run folder."""
    if not shutil.which("tshark"):
        raise UserError("make pgwire captures PostgreSQL's port with tshark: apt-get install tshark")
    todo = expand(opts.profile)
    record: dict = {"rate": opts.profile.users[0], "levels": {}}
    with Session(opts, Native) as session:
        calibrated = session.where.calibrate(todo, session.run_dir)
        port = session.where.cluster.port
        for i, level in enumerate(todo, 1):
            staged = files.staged_capture_path(session.run_dir, level.id)
            with _captured(port, staged) as switches:
                out = session.run_level(level, f"[{i}/{len(todo)}]", remaining(todo[i - 1:]),
                                        calibrated.get(level.users))
            staged.rename(files.pg_capture_path(out))
            record["levels"][level.id] = per_request(out, port, switches)
            files.write_record(session.run_dir, PGWIRE_FILE, record)
    return session.final


def read(run_dir: Path) -> dict:
    """A run's pgwire.json."""
    return files.record(run_dir, PGWIRE_FILE)


@contextmanager
def _captured(port: int, capture: Path) -> Iterator[list[tuple[float, int, int]]]:
    """Captures PostgreSQL's port into `capture` and samples the context switches of its
    processes each second, as (epoch s, voluntary, involuntary) over the postmaster's tree."""
    tshark = subprocess.Popen(["tshark", "-q", "-i", "lo", "-f", f"tcp port {port}", "-s", str(SNAPLEN),
                               "-w", str(capture)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples: list[tuple[float, int, int]] = []
    stop = threading.Event()
    sampler = threading.Thread(target=_sample_switches, args=(port, samples, stop), daemon=True)
    sampler.start()
    try:
        yield samples
    finally:
        stop.set()
        sampler.join()
        tshark.terminate()
        tshark.wait(timeout=30)


def _sample_switches(port: int, samples: list[tuple[float, int, int]], stop: threading.Event) -> None:
    while not stop.wait(1.0):
        postmasters = [c.pid for c in psutil.net_connections("tcp")
                       if c.status == psutil.CONN_LISTEN and c.laddr.port == port and c.pid]
        if not postmasters:
            continue
        root = psutil.Process(postmasters[0])
        voluntary = involuntary = 0
        for proc in (root, *root.children()):
            try:
                switches = proc.num_ctx_switches()
            except psutil.NoSuchProcess:
                continue
            voluntary += switches.voluntary
            involuntary += switches.involuntary
        samples.append((time.time(), voluntary, involuntary))


def per_request(level_dir: Path, port: int, switches: list[tuple[float, int, int]]) -> dict:
    """The level's figures per request over its measured window (module doc)."""
    summary = levels.level_summary(level_dir, intervals=False)
    overall = summary["overall"]
    start = summary["level"]["measure_from_ms"] / 1000
    window = (start, start + overall["requests"] / overall["throughput_rps"])
    return {"requests": overall["requests"], "throughput_rps": overall["throughput_rps"], "p99_ms": overall["p99_ms"],
            **summary.get("efficiency", {}),
            **tally(_packets(files.pg_capture_path(level_dir), port), port, window, overall["requests"]),
            **switched(switches, window, overall["throughput_rps"])}


def tally(packets: Iterable[Packet], port: int, window: tuple[float, float], requests: int) -> dict:
    """Per request, the messages by type each way, the TCP segments and new connections within
    `window` (epoch seconds); and the backends that were sent a request there."""
    to_pg, from_pg, counts = collections.Counter(), collections.Counter(), collections.Counter()
    backends = set()
    for packet in packets:
        if not window[0] <= packet.time < window[1]:
            continue
        sent = packet.dport == port
        counts["segments_to_pg" if sent else "segments_from_pg"] += packet.length > 0
        counts["new_connections"] += packet.syn and not packet.ack
        if sent and packet.length:
            backends.add(packet.stream)
        (to_pg if sent else from_pg).update(packet.messages)

    def per(counter: collections.Counter) -> dict[str, float]:
        return {name: round(n / requests, 4) for name, n in sorted(counter.items())}

    return {"to_pg": per(to_pg), "from_pg": per(from_pg), **per(counts), "backends": len(backends)}


def switched(samples: list[tuple[float, int, int]], window: tuple[float, float], rate: float) -> dict:
    """PostgreSQL's voluntary and involuntary context switches per request over the samples
    within `window`; {} with fewer than two there."""
    inside = [s for s in samples if window[0] <= s[0] <= window[1]]
    if len(inside) < 2:
        return {}
    served = rate * (inside[-1][0] - inside[0][0])
    return {"pg_voluntary_switches": round((inside[-1][1] - inside[0][1]) / served, 3),
            "pg_involuntary_switches": round((inside[-1][2] - inside[0][2]) / served, 3)}


class Packet(NamedTuple):
    time: float  # epoch seconds
    dport: int
    length: int  # TCP payload bytes
    stream: str  # tshark's number of the TCP connection
    syn: bool
    ack: bool
    messages: list[str]  # the PostgreSQL messages it carries, by tshark's names


def _packets(capture: Path, port: int) -> Iterator[Packet]:
    """The capture's packets as tshark decodes the port's traffic."""
    out = subprocess.run(["tshark", "-r", str(capture), "-d", f"tcp.port=={port},pgsql", "-T", "fields",
                          *(arg for field in FIELDS for arg in ("-e", field)), "-E", "occurrence=a",
                          "-E", "aggregator=,"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        t, dport, length, stream, syn, ack, types = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
        yield Packet(float(t), int(dport or 0), int(length or 0), stream, syn in ("1", "True"), ack in ("1", "True"),
                     [name for name in types.split(",") if name])
