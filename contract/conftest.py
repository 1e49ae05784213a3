"""Fixtures of the black-box contract suite: one real PostgreSQL, every service of services.yaml on it.

Every test that takes `svc` runs once per service (ids go, java, java_virtual, helidon); the services are
started once per session from the built artifacts (`make build`).

Two tiers. The required tier, every test without a `hardening` mark: the API, money, status
codes and metrics, which every contender passes (`-m "not hardening"` runs it alone). The
hardening tier, `@pytest.mark.hardening(part)`: hostile input, pool limits, faults, overload; a
test of it runs for the services whose registry entry declares its part (`hardening` in
services.yaml).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from typing import TypeVar

import httpx
import pytest

from bankbench import paths, registry
from bankbench.bank import processes
from bankbench.machine.postgres import Cluster

import openapi

J = TypeVar("J")  # a job of `concurrently`
R = TypeVar("R")  # its result

POOL = 10
LOGS = paths.STATE / "test-reports" / "contract"


class Api:
    """An httpx client on one service that checks every answer against the contract."""

    def __init__(self, name: str, url: str):
        self.name = name
        self.client = httpx.Client(base_url=url, timeout=30)

    def request(self, method: str, path: str, **kwargs) -> httpx.Response:
        resp = self.client.request(method, path, **kwargs)
        openapi.check(resp)
        return resp

    def get(self, path: str) -> httpx.Response:
        return self.request("GET", path)

    def post(self, path: str, **kwargs) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def new_client(self, balance: int) -> int:
        resp = self.post(f"/client/new/{balance}")
        assert resp.status_code == 200, resp.text
        return resp.json()["id"]

    def balance(self, client_id: int) -> int:
        resp = self.get(f"/client/{client_id}/balance")
        assert resp.status_code == 200, resp.text
        return resp.json()["balance"]

    def transfer(self, src: int, dst: int, amount: int) -> httpx.Response:
        return self.post("/transaction",
                         json={"from_client_id": src, "to_client_id": dst, "amount": amount})


def concurrently(apis: Sequence[Api], jobs: Iterable[J], call: Callable[[list[Api], J], R], workers: int) -> list[R]:
    """`call(apis, job)` for every job on `workers` threads, each thread with clients of its own on
    `apis`' services: one httpx client shared by many threads can read from a socket that its pool
    has just closed under another thread (EBADF; encode/httpcore#1110)."""
    local = threading.local()

    def run(job: J) -> R:
        if not hasattr(local, "apis"):
            local.apis = [Api(api.name, str(api.client.base_url)) for api in apis]
        return call(local.apis, job)

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, jobs))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--services", default=",".join(registry.names()),
                     help="comma list of the services to test (default: all)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"hardening(part): the hardening tier, one of "
                            f"{', '.join(registry.HARDENING)}; runs for the services that declare it")


def selected(config: pytest.Config) -> list[str]:
    return config.getoption("--services").split(",")


def serving(config: pytest.Config, node: pytest.Item | pytest.Function) -> list[str]:
    """The selected services that a test is for: all of them in the required tier, those that
    declare its part in the hardening tier."""
    marker = node.get_closest_marker("hardening")
    return [name for name in selected(config) if marker is None or marker.args[0] in registry.get(name).hardening]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Runs each test taking `svc` (or `isolated`) once per service it is for."""
    for name in ("svc", "isolated", "crowded", "held", "defaulted", "overloaded"):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, serving(metafunc.config, metafunc.definition), indirect=True,
                                 ids=lambda n: n.replace("-", "_"))


def start(name: str, cluster: Cluster | None, pool: int | None = POOL, tag: str = "",
          env: dict[str, str] | None = None, **settings) -> AbstractContextManager[processes.Running]:
    """The service on `cluster`, else on a cluster of its own with `settings`, until the end of
    the with block; `pool` None: the service's own pool defaults; `env`: settings of the service
    (processes.get's)."""
    return processes.local_service(processes.get(name, settings=env), pool, cluster=cluster,
                                   log=LOGS / f"{name}{tag}.log", **settings)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    with Cluster.create() as c:
        yield c


@pytest.fixture(scope="session")
def running(request: pytest.FixtureRequest,
            cluster: Cluster) -> Iterator[dict[str, processes.Running]]:
    with ExitStack() as stack:
        yield {name: stack.enter_context(start(name, cluster)) for name in selected(request.config)}


@pytest.fixture
def svc(request: pytest.FixtureRequest, running: dict[str, processes.Running]) -> Api:
    return Api(request.param, running[request.param].url)


@pytest.fixture
def apis(request: pytest.FixtureRequest, running: dict[str, processes.Running]) -> list[Api]:
    """Every service the test is for, to compare their answers."""
    return [Api(name, running[name].url) for name in serving(request.config, request.node)]
