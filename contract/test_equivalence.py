"""The same request answered the same way by every service: status, Content-Type and body.

All services share one database, so a client created through one is visible to the others.
Only ids that a request creates are masked; everything else must match exactly.
"""

from __future__ import annotations

import httpx
import pytest

from conftest import Api


def answer(resp: httpx.Response) -> tuple:
    body = resp.json()
    if resp.status_code == 200 and "id" in body and resp.request.method == "POST":
        body = {**body, "id": "<new id>"}
    return resp.status_code, resp.headers["content-type"], body


def same_everywhere(apis: list[Api], method: str, path: str, content: str | None = None) -> None:
    answers = {api.name: answer(api.request(method, path, content=content)) for api in apis}
    assert len(set(map(repr, answers.values()))) == 1, answers


@pytest.fixture(scope="module")
def known(running) -> tuple[int, int]:
    """A funded client and an empty one, shared by the requests below."""
    name, proc = next(iter(running.items()))
    api = Api(name, proc.url)
    return api.new_client(10**12), api.new_client(0)


REQUESTS = [
    ("GET", "/"), ("GET", "/health"), ("GET", "/client/{rich}/balance"),
    ("GET", "/client/{poor}/balance"), ("GET", "/client/123456789012/balance"),
    ("GET", "/client/x/balance"), ("GET", "/client/-1/balance"), ("POST", "/client/new/12"),
    ("POST", "/client/new/-12"), ("POST", "/client/new/1000000000000001"), ("GET", "/missing"),
    ("DELETE", "/transaction"), ("PATCH", "/client/new/1"),
]
BODIES = [
    '{"from_client_id":{rich},"to_client_id":{poor},"amount":1}',
    '{"from_client_id":{poor},"to_client_id":{rich},"amount":1}',
    '{"from_client_id":{rich},"to_client_id":123456789012,"amount":1}',
    '{"from_client_id":{rich},"to_client_id":{rich},"amount":1}',
    '{"from_client_id":{rich},"to_client_id":{poor},"amount":0}',
    '{"from_client_id":{rich},"to_client_id":{poor}}', '{"from_client_id":"1"}', "[1]", "", "{",
    '{"from_client_id":{rich},"to_client_id":{poor},"amount":1,"extra":{"nested":[1,2]}}',
]


@pytest.mark.parametrize("method,path", REQUESTS)
def test_same_answer(apis: list[Api], known: tuple[int, int], method: str, path: str) -> None:
    rich, poor = known
    same_everywhere(apis, method, path.format(rich=rich, poor=poor))


@pytest.mark.parametrize("body", BODIES)
def test_same_transfer_answer(apis: list[Api], known: tuple[int, int], body: str) -> None:
    rich, poor = known
    filled = body.replace("{rich}", str(rich)).replace("{poor}", str(poor))
    same_everywhere(apis, "POST", "/transaction", filled)


def test_same_balances_seen(apis: list[Api], known: tuple[int, int]) -> None:
    """A transfer through one service is what every other reads."""
    rich, poor = known
    before = apis[0].balance(poor)
    assert apis[-1].transfer(rich, poor, 5).status_code == 200
    assert {api.balance(poor) for api in apis} == {before + 5}
