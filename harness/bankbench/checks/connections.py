"""`make connections`: 10,000 keep-alive connections held open to one service.

The articles' "10,000 users" as 10,000 keep-alive TCP connections to one service on 127.0.0.1 held
at once, each sending `GET /client/{id}/balance` in two parts 0.5 s apart, then idle a few seconds
(within the 10 s idle timeout). Counted per service: connections opened and refused, answers by
status, connections it closed or reset, its peak RSS and thread count.

See docs/configuration.md#configuration-same-names-in-every-service and
results/connections/README.md."""

import argparse
import asyncio
import json
import random
import resource
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx
import psutil

from bankbench import paths, registry, runid
from bankbench.bank import processes
from bankbench.machine.postgres import Cluster
from bankbench.measure import manifest
from bankbench.measure.resources import Background

HOST = "127.0.0.1"
TRICKLE_S = 0.5  # pause inside each request: the two halves arrive apart
THINK_S = (2.0, 6.0)  # between requests on one connection: below the 10 s idle timeout
CONNECT_TIMEOUT_S = 10.0
ANSWER_TIMEOUT_S = 15.0  # an answer slower than this counts as a timeout
CONNECT_BATCH = 500  # connections opened per ramp step, one step every RAMP_STEP_S
RAMP_STEP_S = 0.25


@dataclass
class Tally:
    """What the clients saw, updated from the event loop only."""

    opened: int = 0
    connect_failed: Counter = field(default_factory=Counter)
    answers: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # by the service, mid-connection
    open_now: int = 0
    open_peak: int = 0

    def as_dict(self) -> dict:
        return {"opened": self.opened, "connect_failed": dict(self.connect_failed),
                "answers_by_status": {str(k): v for k, v in sorted(self.answers.items())},
                "answered": sum(self.answers.values()), "dropped_by_service": dict(self.dropped),
                "open_peak": self.open_peak}


def raise_fd_limit(needed: int) -> None:
    """Raises this process's open-file limit to its hard limit (children inherit it)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise RuntimeError(f"open-file hard limit {hard} is below the {needed} needed")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Watch(Background):
    """Samples the service process every second: peak RSS (MB) and peak thread count."""

    def __init__(self, pid: int):
        super().__init__()
        self.proc = psutil.Process(pid)
        self.rss_peak_mb = self.rss_last_mb = 0.0
        self.threads_peak = 0

    def run(self) -> None:
        while not self.stopped.wait(1.0):
            try:
                with self.proc.oneshot():
                    self.rss_last_mb = self.proc.memory_info().rss / 2**20
                    threads = self.proc.num_threads()
            except psutil.NoSuchProcess:
                return
            self.rss_peak_mb = max(self.rss_peak_mb, self.rss_last_mb)
            self.threads_peak = max(self.threads_peak, threads)


async def _client(port: int, ids: list[int], deadline: float, tally: Tally) -> None:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port),
                                                CONNECT_TIMEOUT_S)
    except (TimeoutError, OSError) as err:
        tally.connect_failed[type(err).__name__] += 1
        return
    tally.opened += 1
    tally.open_now += 1
    tally.open_peak = max(tally.open_peak, tally.open_now)
    try:
        await asyncio.sleep(random.uniform(0, THINK_S[1]))  # spread the first requests
        while time.monotonic() < deadline:
            writer.write(f"GET /client/{random.choice(ids)}/balance HTTP/1.1\r\n".encode())
            await writer.drain()
            await asyncio.sleep(TRICKLE_S)
            writer.write(f"Host: {HOST}:{port}\r\n\r\n".encode())
            await writer.drain()
            status = await asyncio.wait_for(_read_answer(reader), ANSWER_TIMEOUT_S)
            if status is None:
                tally.dropped["closed"] += 1
                return
            tally.answers[status] += 1
            await asyncio.sleep(random.uniform(*THINK_S))
    except TimeoutError:
        tally.dropped["answer_timeout"] += 1
    except OSError as err:
        tally.dropped[type(err).__name__] += 1
    finally:
        tally.open_now -= 1
        writer.close()


async def _read_answer(reader: asyncio.StreamReader) -> int | None:
    """Reads one response (status line, headers, Content-Length or chunked body); None on EOF."""
    if not (status_line := await reader.readline()):
        return None
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        while size := int((await reader.readline()).strip() or b"0", 16):
            await reader.readexactly(size + 2)
        await reader.readline()
    return int(status_line.split()[1])


async def _load(port: int, ids: list[int], connections: int, duration_s: float) -> Tally:
    tally = Tally()
    ramp_s = connections / CONNECT_BATCH * RAMP_STEP_S
    deadline = time.monotonic() + ramp_s + duration_s
    tasks = []
    for start in range(0, connections, CONNECT_BATCH):
        tasks += [asyncio.create_task(_client(port, ids, deadline, tally))
                  for _ in range(min(CONNECT_BATCH, connections - start))]
        await asyncio.sleep(RAMP_STEP_S)
    # Every client stops sending at the deadline; the extra time bounds its last answer.
    await asyncio.wait(tasks, timeout=duration_s + ramp_s + ANSWER_TIMEOUT_S + THINK_S[1])
    for task in tasks:
        task.cancel()
    return tally


def run(port: int, pid: int, ids: list[int], connections: int, duration_s: float) -> dict:
    """Holds `connections` slow keep-alive clients on the service at `port` for `duration_s`."""
    watch = Watch(pid)
    watch.start()
    rss_before = psutil.Process(pid).memory_info().rss / 2**20
    t0 = time.monotonic()
    tally = asyncio.run(_load(port, ids, connections, duration_s))
    watch.stop()
    alive = psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    return {"connections": connections, "duration_s": duration_s,
            "elapsed_s": round(time.monotonic() - t0, 1), **tally.as_dict(),
            "service_alive": alive, "rss_before_mb": round(rss_before, 1),
            "rss_peak_mb": round(watch.rss_peak_mb, 1), "rss_end_mb": round(watch.rss_last_mb, 1),
            "threads_peak": watch.threads_peak}


# The verb: `bankbench connections`.
OUT = paths.ROOT / "results" / "connections"
POOL = 50
CLIENTS = 100  # accounts the connections read balances of


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--connections", type=int, default=10_000)
    p.add_argument("--duration", type=float, default=60, help="seconds held after the ramp-up")


def main(args: argparse.Namespace) -> int:
    # Each side holds one descriptor per connection; the services inherit the raised limit.
    raise_fd_limit(args.connections + 1000)
    stamp = runid.stamp()
    rows = []
    with Cluster.create() as cluster:
        for name in args.service.split(","):
            cluster.reset()
            with processes.local_service(name, POOL, cluster=cluster,
                                        log=paths.STATE / "connections" / f"{name}.log") as proc:
                ids = [httpx.post(f"{proc.url}/client/new/1000").json()["id"]
                       for _ in range(CLIENTS)]
                port = int(proc.url.rsplit(":", 1)[1])
                row = {"service": name, **run(port, proc.pid, ids, args.connections, args.duration)}
            print(_line(row), flush=True)
            rows.append(row)
    OUT.mkdir(parents=True, exist_ok=True)
    doc = {"created_utc": stamp, "git": manifest.git(), "machine": manifest.machine(),
           "load": {"connections": args.connections, "duration_s": args.duration,
                    "trickle_s": TRICKLE_S, "think_s": THINK_S,
                    "pool": POOL, "request": "GET /client/{id}/balance, keep-alive"},
           "results": rows}
    (OUT / f"{stamp}.json").write_text(json.dumps(doc, indent=2) + "\n")
    (OUT / "README.md").write_text(_readme(doc))
    print(f"written: {(OUT / 'README.md').relative_to(paths.ROOT)}, {stamp}.json")
    return 0 if all(r["service_alive"] and r["answered"] for r in rows) else 1


def _line(r: dict) -> str:
    return (f"{r['service']}: {r['opened']}/{r['connections']} connections opened "
            f"(peak {r['open_peak']} open), {r['answered']} answers {r['answers_by_status']}, "
            f"connect failures {r['connect_failed'] or 0}, dropped {r['dropped_by_service'] or 0}, "
            f"RSS {r['rss_before_mb']:.0f} -> peak {r['rss_peak_mb']:.0f} MB, "
            f"threads peak {r['threads_peak']}, alive {r['service_alive']}")


def _readme(doc: dict) -> str:
    load = doc["load"]
    head = ("| service | opened | peak open | answers (by status) | connect failures | "
            "dropped by service | RSS before / peak / end (MB) | threads peak | alive |\n"
            "|---|---|---|---|---|---|---|---|---|\n")
    rows = "".join(
        f"| {r['service']} | {r['opened']} / {r['connections']} | {r['open_peak']} | "
        f"{r['answered']} {r['answers_by_status']} | {r['connect_failed'] or 0} | "
        f"{r['dropped_by_service'] or 0} | {r['rss_before_mb']:.0f} / {r['rss_peak_mb']:.0f} / "
        f"{r['rss_end_mb']:.0f} | {r['threads_peak']} | {r['service_alive']} |\n"
        for r in doc["results"])
    return (f"# Many connections\n\n"
            f"`make connections` ({doc['created_utc']}, commit {doc['git'].get('commit', '?')}): "
            f"{load['connections']} keep-alive connections to 127.0.0.1 held {load['duration_s']:.0f} s "
            f"after the ramp-up, each sending `{load['request']}` in two parts "
            f"{load['trickle_s']} s apart, then waiting {load['think_s'][0]:.0f}-"
            f"{load['think_s'][1]:.0f} s; pool {load['pool']}. Client and service share this "
            f"machine's {doc['machine'].get('cores', '?')} cores.\n\n{head}{rows}\n"
            "Settings both services state alike (see their READMEs): at most 10,000 open "
            "connections (more wait in the kernel's listen backlog), a client silent for 10 s "
            "while sending a request, or idle for 10 s between requests, is disconnected.\n\n"
            "Reading: \"alive\" and zero connect failures and drops mean every connection was "
            "held and every request answered. Go's memory is its connections' goroutines and "
            "buffers; a JVM keeps the heap it has grown to (RSS at the end equals the peak), up "
            "to its maximum heap, by default a quarter of the machine's memory: `JAVA_OPTS=-Xmx...` "
            "bounds it lower. With virtual threads each waiting request's stack lives on that heap.\n")
