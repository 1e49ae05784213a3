"""Hostile input over raw connections: what a client library would not send, and slow clients.

Every answer is the contract's JSON error with a 4xx, alike in all services; nothing hangs.
"""

from __future__ import annotations

import http.client
import socket
import time

import httpx
import pytest

from conftest import Api

pytestmark = pytest.mark.hardening("hostile")

STALL_S = 10  # both services drop a client silent this long mid-request, or idle this long
SLACK_S = 4


def raw(api: Api, request: bytes, timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    """Sends bytes as they are and reads one answer: status, headers (lower-case), body."""
    url = httpx.URL(str(api.client.base_url))
    with socket.create_connection((url.host, url.port), timeout=timeout) as sock:
        sock.sendall(request)
        resp = http.client.HTTPResponse(sock, method=request.split(b" ", 1)[0].decode())
        resp.begin()
        body = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def json_error(status: int, message: str) -> tuple[int, str, bytes]:
    return status, "application/json", f'{{"status":"Error","message":"{message}"}}'.encode()


def answer(got: tuple[int, dict[str, str], bytes]) -> tuple[int, str, bytes]:
    status, headers, body = got
    return status, headers.get("content-type", ""), body


@pytest.mark.parametrize("target", ["/client/%zz/balance", "/client/%/balance", "/%C0%"])
def test_malformed_percent_encoding(svc: Api, target: str) -> None:
    request = f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    assert answer(raw(svc, request)) == json_error(400, "malformed request")


def test_malformed_content_type_ignored_without_body(svc: Api) -> None:
    resp = svc.client.get("/health", headers={"content-type": "multipart/form-data"})
    assert (resp.status_code, resp.json()) == (200, {"status": "Ok"})


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data", "application/jsonx", "json"])
def test_transfer_other_content_type(svc: Api, content_type: str) -> None:
    resp = svc.post("/transaction", content='{"from_client_id":1,"to_client_id":2,"amount":1}',
                    headers={"content-type": content_type})
    assert (resp.status_code, resp.json()["message"]) == (415, "Content-Type must be application/json")


def test_transfer_json_content_type_with_parameters(svc: Api) -> None:
    a, b = svc.new_client(10), svc.new_client(0)
    resp = svc.post("/transaction", content=f'{{"from_client_id":{a},"to_client_id":{b},"amount":1}}',
                    headers={"content-type": "Application/JSON; charset=UTF-8"})
    assert resp.status_code == 200


def test_oversized_body_refused_unread(svc: Api) -> None:
    """A declared 10 MB body is refused from its headers alone: nothing of it is ever sent."""
    request = (b"POST /transaction HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: 10485760\r\n\r\n")
    t0 = time.monotonic()
    got = raw(svc, request)
    assert answer(got) == json_error(413, "request body must be at most 65536 bytes")
    assert time.monotonic() - t0 < 5


def test_oversized_chunked_body_refused(svc: Api) -> None:
    def chunks():
        for _ in range(160):  # 10 MB in 64 KiB chunks
            yield b"{" * 65536
    resp = svc.client.post("/transaction", content=chunks(), headers={"content-type": "application/json"})
    assert (resp.status_code, resp.json()["message"]) == (413, "request body must be at most 65536 bytes")


@pytest.mark.parametrize("path,allow", [("/", "GET, HEAD"), ("/health", "GET, HEAD"),
                                        ("/client/1/balance", "GET, HEAD"), ("/client/new/1", "POST"),
                                        ("/transaction", "POST")])
def test_options_not_served(svc: Api, path: str, allow: str) -> None:
    status, headers, body = raw(svc, f"OPTIONS {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert answer((status, headers, body)) == json_error(405, "method not allowed")
    assert headers["allow"] == allow


def test_head_is_get_without_body(svc: Api) -> None:
    status, headers, body = raw(svc, b"HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, headers["content-type"], body) == (200, "application/json", b"")
    status, headers, _ = raw(svc, b"HEAD /transaction HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, headers["allow"]) == (405, "POST")


def test_a_connection_serves_any_number_of_requests(svc: Api) -> None:
    """Keep-alive without a request limit, in every service (Tomcat's default closes a
    connection after 100 requests; net/http never does): 300 requests, one connection."""
    url = httpx.URL(str(svc.client.base_url))
    conn = http.client.HTTPConnection(url.host, url.port, timeout=10)
    try:
        for _ in range(300):
            conn.request("GET", "/")
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200 and resp.getheader("connection", "").lower() != "close"
        sock = conn.sock
        conn.request("GET", "/")
        conn.getresponse().read()
        assert conn.sock is sock  # not reconnected
    finally:
        conn.close()


def test_slow_clients_dropped(svc: Api) -> None:
    """Headers trickled then stalled, and an idle keep-alive connection: both closed in time."""
    url = httpx.URL(str(svc.client.base_url))
    slow = socket.create_connection((url.host, url.port))
    idle = socket.create_connection((url.host, url.port))
    try:
        idle.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert idle.recv(65536).startswith(b"HTTP/1.1 200")
        for byte in b"GET /health HTTP/1.1\r\nHo":  # under 3 s, then nothing more
            slow.sendall(bytes([byte]))
            time.sleep(0.1)
        last_byte = time.monotonic()
        for sock in (slow, idle):
            sock.settimeout(STALL_S + SLACK_S)
            try:
                while sock.recv(65536):  # any answer, then the end of the stream
                    pass
            except ConnectionResetError:
                pass  # closed with unread data: dropped all the same
        assert time.monotonic() - last_byte < STALL_S + SLACK_S
    finally:
        slow.close()
        idle.close()


EQUIVALENT = [b"OPTIONS /health HTTP/1.1\r\nHost: x\r\n\r\n",
              b"HEAD /client/1/balance HTTP/1.1\r\nHost: x\r\n\r\n",
              b"GET /client/%zz/balance HTTP/1.1\r\nHost: x\r\n\r\n",
              b"POST /transaction HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 2\r\n\r\n{}",
              b"DELETE /client/new/5 HTTP/1.1\r\nHost: x\r\n\r\n"]


@pytest.mark.parametrize("request_bytes", EQUIVALENT, ids=lambda r: r.split(b"\r\n")[0].decode())
def test_same_raw_answer(apis: list[Api], request_bytes: bytes) -> None:
    answers = {}
    for api in apis:
        status, headers, body = raw(api, request_bytes)
        answers[api.name] = (status, headers.get("content-type"), headers.get("allow"), body)
    assert len(set(answers.values())) == 1, answers
