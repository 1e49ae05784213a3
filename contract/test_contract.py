"""Every endpoint and status code of api/openapi.yaml, against each service."""

from __future__ import annotations

import pytest

import openapi
from conftest import Api

MAX_MONEY = openapi.spec()["components"]["schemas"]["Amount"]["maximum"]  # 10^15
BALANCE_RANGE = f"balance must be a whole number from 0 to {MAX_MONEY}"
AMOUNT_RANGE = f"amount must be from 1 to {MAX_MONEY}"


def error(resp, status: int, message: str) -> None:
    assert (resp.status_code, resp.json()) == (status, {"status": "Error", "message": message})


def test_liveness(svc: Api) -> None:
    resp = svc.get("/")
    assert (resp.status_code, resp.json()) == (200, {"status": "Ok"})


def test_health(svc: Api) -> None:
    resp = svc.get("/health")
    assert (resp.status_code, resp.json()) == (200, {"status": "Ok"})


@pytest.mark.parametrize("balance", [0, 1, 400, MAX_MONEY])
def test_create_client(svc: Api, balance: int) -> None:
    resp = svc.post(f"/client/new/{balance}")
    assert resp.status_code == 200
    body = resp.json()
    assert body == {"id": body["id"], "name": "", "email": "", "phone": "", "balance": balance}
    assert svc.balance(body["id"]) == balance


def test_create_client_with_sign(svc: Api) -> None:
    assert svc.post("/client/new/+7").json()["balance"] == 7


@pytest.mark.parametrize("balance", ["-1", str(MAX_MONEY + 1), "abc", "1.5", "1e3", "0x10",
                                     "99999999999999999999999", "%D9%A3", "%201"])
def test_create_client_rejects(svc: Api, balance: str) -> None:
    error(svc.post(f"/client/new/{balance}"), 400, BALANCE_RANGE)


@pytest.mark.parametrize("client_id", ["abc", "1.0", "99999999999999999999", "%D9%A3", "1e3"])
def test_balance_rejects_non_integer_id(svc: Api, client_id: str) -> None:
    error(svc.get(f"/client/{client_id}/balance"), 400, "id must be an integer")


@pytest.mark.parametrize("client_id", ["-5", "0", str(2**63 - 1)])
def test_balance_unknown_client(svc: Api, client_id: str) -> None:
    error(svc.get(f"/client/{client_id}/balance"), 404, "client not found")


def test_transfer(svc: Api) -> None:
    a, b = svc.new_client(400), svc.new_client(300)
    resp = svc.transfer(a, b, 10)
    assert resp.status_code == 200
    body = resp.json()
    assert body == {"id": body["id"], "from_client_id": a, "to_client_id": b, "amount": 10}
    assert (svc.balance(a), svc.balance(b)) == (390, 310)


def test_transfer_whole_balance(svc: Api) -> None:
    a, b = svc.new_client(50), svc.new_client(0)
    assert svc.transfer(a, b, 50).status_code == 200
    assert (svc.balance(a), svc.balance(b)) == (0, 50)


def test_transfer_insufficient_funds_changes_nothing(svc: Api) -> None:
    a, b = svc.new_client(5), svc.new_client(0)
    error(svc.transfer(a, b, 6), 422, "insufficient funds")
    assert (svc.balance(a), svc.balance(b)) == (5, 0)


def test_transfer_unknown_client(svc: Api) -> None:
    a = svc.new_client(100)
    error(svc.transfer(a, 2**62, 1), 404, "client not found")
    error(svc.transfer(2**62, a, 1), 404, "client not found")
    assert svc.balance(a) == 100


def test_transfer_unknown_client_before_funds(svc: Api) -> None:
    a = svc.new_client(0)
    error(svc.transfer(a, 2**62, 1), 404, "client not found")


def test_transfer_ignores_unknown_fields(svc: Api) -> None:
    a, b = svc.new_client(10), svc.new_client(0)
    resp = svc.post("/transaction", json={"id": 99, "from_client_id": a, "to_client_id": b,
                                          "amount": 1, "note": "x"})
    assert resp.status_code == 200 and resp.json()["id"] != 99


def test_transfer_does_not_need_content_type(svc: Api) -> None:
    a, b = svc.new_client(10), svc.new_client(0)
    body = f'{{"from_client_id":{a},"to_client_id":{b},"amount":1}}'
    assert "content-type" not in svc.client.build_request("POST", "/", content=body).headers
    assert svc.post("/transaction", content=body).status_code == 200


OBJECT = "request body must be a JSON object"
FROM, TO, AMOUNT = ("from_client_id must be an integer", "to_client_id must be an integer",
                    "amount must be an integer")


@pytest.mark.parametrize("body,message", [
    ("", OBJECT), ("{", OBJECT), ("[]", OBJECT), ("null", OBJECT), ("1", OBJECT),
    ('"text"', OBJECT), ('{"from_client_id":1,"to_client_id":2,"amount":3} x', OBJECT),
    ("{}", FROM),
    ('{"to_client_id":2,"amount":3}', FROM),
    ('{"from_client_id":1,"amount":3}', TO),
    ('{"from_client_id":1,"to_client_id":2}', AMOUNT),
    ('{"from_client_id":null,"to_client_id":2,"amount":3}', FROM),
    ('{"from_client_id":"1","to_client_id":2,"amount":3}', FROM),
    ('{"from_client_id":1.0,"to_client_id":2,"amount":3}', FROM),
    ('{"from_client_id":1,"to_client_id":2e0,"amount":3}', TO),
    ('{"from_client_id":1,"to_client_id":2,"amount":1.5}', AMOUNT),
    ('{"from_client_id":1,"to_client_id":2,"amount":true}', AMOUNT),
    ('{"from_client_id":1,"to_client_id":2,"amount":[3]}', AMOUNT),
    ('{"from_client_id":1,"to_client_id":2,"amount":9223372036854775808}', AMOUNT),
    ('{"from_client_id":-99999999999999999999,"to_client_id":2,"amount":3}', FROM),
    ('{"from_client_id":1,"to_client_id":2,"amount":0}', AMOUNT_RANGE),
    ('{"from_client_id":1,"to_client_id":2,"amount":-5}', AMOUNT_RANGE),
    ('{"from_client_id":1,"to_client_id":2,"amount":1000000000000001}', AMOUNT_RANGE),
    ('{"from_client_id":7,"to_client_id":7,"amount":1}', "from_client_id and to_client_id must differ"),
    ('{"amount":0,"from_client_id":"x"}', FROM),
])
def test_transfer_rejects(svc: Api, body: str, message: str) -> None:
    error(svc.post("/transaction", content=body), 400, message)


@pytest.mark.parametrize("method,path", [
    ("GET", "/nope"), ("GET", "/client"), ("GET", "/client/1/balance/"), ("POST", "/client/new"),
    ("GET", "/client/1/balance/extra"),
])
def test_unknown_path(svc: Api, method: str, path: str) -> None:
    error(svc.request(method, path), 404, "not found")


@pytest.mark.parametrize("method,path", [
    ("GET", "/transaction"), ("PUT", "/transaction"), ("DELETE", "/client/1/balance"),
    ("POST", "/client/1/balance"), ("GET", "/client/new/5"), ("POST", "/health"), ("POST", "/"),
])
def test_wrong_method(svc: Api, method: str, path: str) -> None:
    error(svc.request(method, path), 405, "method not allowed")
