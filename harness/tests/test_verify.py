"""`verify`: its rule on hand-made counts, and a planted difference caught in a real service."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from bankbench import paths
from bankbench.bank import processes
from bankbench.checks import verify
from bankbench.errors import UserError


def one_statement(query: str = "SELECT balance FROM client WHERE id = $1") -> dict:
    return {"statements": {verify.fingerprint(query): {"query": query, "calls": 1.0}},
            "calls_per_request": 1.0, "transactions_per_request": 1.0,
            "setup": {"statements": {}, "transactions": 1.0}}


def faithful() -> dict[str, dict]:
    """Counts of a service that keeps the rule: one statement, one transaction per request."""
    counts = {}
    for request in verify.MIX:
        got = one_statement(f"statement of {request.name}") if request.statements else {
            "statements": {}, "calls_per_request": 0.0, "transactions_per_request": 0.0,
            "setup": {"statements": {}, "transactions": 0.0}}
        counts[request.name] = {**got, "statuses": [request.status]}
    return counts


@pytest.mark.parametrize("stall_at,paused", [(None, False), (0, False), (5, True)])
def test_a_batch_knows_when_an_answer_came_late(stall_at: int | None, paused: bool,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A stall past the pools' idle check marks the batch (it is sent again), but not on the first
    request, whose connection is new."""
    monkeypatch.setattr(verify, "POOL_CHECK_S", 0.05)
    sent = []

    def answer(request: httpx.Request) -> httpx.Response:
        if len(sent) == stall_at:
            time.sleep(0.06)
        sent.append(request)
        return httpx.Response(200)

    with httpx.Client(transport=httpx.MockTransport(answer), base_url="http://bank") as client:
        statuses, late = verify._batch(verify.MIX[0], client, {})
    assert (statuses, late, len(sent)) == ({200}, paused, 1 + verify.REQUESTS_PER_TYPE)


def test_faithful_services_pass() -> None:
    assert verify.problems({"a": faithful(), "b": faithful()}) == []


@pytest.mark.parametrize("change,expected", [
    (lambda got: got.update(transactions_per_request=1.05), "transactions per request 1.05"),
    (lambda got: got.update(calls_per_request=2.0), "calls per request 2"),
    (lambda got: got["statements"].update({"extra": {"query": "BEGIN", "calls": 1.0}}),
     "statements 2"),
    (lambda got: got.update(statuses=[200, 503]), "statuses [200, 503]"),
])
def test_a_difference_in_one_service_fails(change, expected) -> None:
    b = copy.deepcopy(faithful())
    change(b["balance"])
    found = verify.problems({"a": faithful(), "b": b})
    assert any(expected in p for p in found), found


def test_another_statement_text_fails() -> None:
    b = faithful()
    b["balance"] = {**one_statement("SELECT balance FROM client WHERE id = $1 LIMIT 1"),
                    "statuses": [200]}
    assert verify.problems({"a": faithful(), "b": b}) == [
        f"balance: the services sent different statements: "
        f"{{'a': [{verify.fingerprint('statement of balance')!r}], "
        f"'b': [{verify.fingerprint('SELECT balance FROM client WHERE id = $1 LIMIT 1')!r}]}}"]


def test_setup_of_a_connection_is_not_judged() -> None:
    b = faithful()
    b["transfer"]["setup"] = {"statements": {"x": {"query": "SET application_name = 'x'",
                                                   "calls": 1.0}}, "transactions": 2.0}
    assert verify.problems({"a": faithful(), "b": b}) == []


@pytest.fixture(scope="module")
def modified_go(tmp_path_factory: pytest.TempPathFactory) -> processes.Service:
    """A copy of the Go service whose balance statement differs by one harmless clause."""
    root = tmp_path_factory.mktemp("modified")
    for folder in ("db", "bank-go"):
        shutil.copytree(paths.ROOT / folder, root / folder, ignore=shutil.ignore_patterns("bin"))
    balance = root / "db" / "queries" / "balance.sql"
    original = "SELECT balance FROM client WHERE id = $1\n"
    assert balance.read_text() == original
    balance.write_text(original.rstrip() + " LIMIT 1\n")
    binary = root / "bank-go-modified"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=root / "bank-go", check=True,
                   timeout=300)
    return processes.Service("go-modified", (str(binary),))


@pytest.mark.integration
@pytest.mark.untimed
def test_verify_catches_a_planted_difference(modified_go, tmp_path: Path) -> None:
    out = tmp_path / "verify.json"
    with pytest.raises(UserError, match="balance: the services sent different statements"):
        verify.run([processes.get("go"), modified_go], tmp_path, out)
    (problem,) = json.loads(out.read_text())["problems"]  # all else kept the rule
    assert problem.startswith("balance: the services sent different statements")
