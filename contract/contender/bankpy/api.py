"""The routes and handlers of api/openapi.yaml, apart from HTTP itself (bankpy.web): a handler
takes the App and a Request and returns an Answer, or raises an errors.Error."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bankpy import errors, store, transfer
from bankpy.errors import MAX_MONEY, Error
from bankpy.metrics import CONTENT_TYPE as METRICS_TYPE, Metrics

INTEGER = re.compile(r"[+-]?0*([0-9]{1,19})")  # strconv.ParseInt's base 10: ASCII digits, a sign
PROBE_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")  # bank-go's, in Allow's order
log = logging.getLogger("bankpy")


@dataclass
class Answer:
    """A response: `body` as JSON (bytes as they are), with extra headers."""

    status: int
    body: object
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, err: Error) -> Answer:
        return cls(err.status, err.body(), headers=err.headers)

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body, separators=(",", ":")).encode()


class Request(Protocol):
    """What a handler reads of a request (bankpy.web.Handler is one)."""

    params: dict[str, str]

    def header(self, name: str) -> str | None: ...

    def content_length(self) -> int | None: ...

    def read_body(self, limit: int) -> bytes:
        """The whole body, or errors.TOO_LARGE once it passes limit bytes."""


@dataclass(frozen=True)
class App:
    """What the handlers need: the store and the metrics."""

    store: store.Store
    metrics: Metrics

    def route(self, method: str, segments: list[str]) -> Match:
        """The route serving method on the path's decoded segments, with its parameters and the
        uri label of the metrics; else the error: 405 if another method has a route (with Allow),
        else 404 (bank-go's handleNoRoute), labelled as Micrometer does."""
        matches = [(route, params) for route in ROUTES
                   if (params := route.match(segments)) is not None]
        for route, params in matches:
            if route.serves(method):
                return Match(route.pattern, route, params)
        allow = [probe for probe in PROBE_METHODS if any(route.serves(probe) for route, _ in matches)]
        if allow:
            return Match("UNKNOWN", error=errors.method_not_allowed(allow))
        return Match("NOT_FOUND", error=errors.NO_ROUTE)


@dataclass(frozen=True)
class Match:
    """What App.route found: a route and its parameters, or the error to answer."""

    uri: str
    route: Route | None = None
    params: dict[str, str] | None = None
    error: Error | None = None


@dataclass(frozen=True)
class Route:
    """A method and a path pattern whose `{name}` segments are parameters."""

    method: str
    pattern: str
    handler: Callable[[App, Request], Answer]

    def serves(self, method: str) -> bool:
        return method == self.method or (method == "HEAD" and self.method == "GET")

    def match(self, segments: list[str]) -> dict[str, str] | None:
        parts = self.pattern.split("/")
        if len(parts) != len(segments):
            return None
        params = {}
        for part, segment in zip(parts, segments, strict=True):
            if part.startswith("{") and segment:
                params[part[1:-1]] = segment
            elif part != segment:
                return None
        return params


def parse_int(text: str) -> int | None:
    """A 64-bit integer in strconv.ParseInt's base-10 syntax, else None."""
    if not INTEGER.fullmatch(text):
        return None
    value = int(text)
    return value if -2**63 <= value < 2**63 else None


def liveness(_app: App, _req: Request) -> Answer:
    """GET /: the process serves, whatever the database."""
    return Answer(200, {"status": "Ok"})


def health(app: App, _req: Request) -> Answer:
    """GET /health: whether the database answers. Any failure is 503, not logged: a down
    database would flood the log."""
    try:
        app.store.health()
    except Exception:
        raise errors.UNAVAILABLE from None
    return Answer(200, {"status": "Ok"})


def metrics(app: App, _req: Request) -> Answer:
    return Answer(200, app.metrics.page(), content_type=METRICS_TYPE)


def create_client(app: App, req: Request) -> Answer:
    balance = parse_int(req.params["balance"])
    if balance is None or not 0 <= balance <= MAX_MONEY:
        raise errors.BALANCE_RANGE
    return Answer(200, call(app.store.create_client, balance))


def balance(app: App, req: Request) -> Answer:
    """Any integer is looked up: ids below 1 are simply not found."""
    client_id = parse_int(req.params["id"])
    if client_id is None:
        raise errors.BAD_ID
    return Answer(200, {"balance": call(app.store.balance, client_id)})


def transfer_money(app: App, req: Request) -> Answer:
    src, dst, amount = transfer.decode(req)
    ledger_id = call(app.store.transfer, src, dst, amount)
    return Answer(200, {"id": ledger_id, "from_client_id": src, "to_client_id": dst, "amount": amount})


def call(method: Callable, *args):
    """method(*args), the store's errors turned into the contract's answers; any other error is
    logged and answered 500 internal error: its text is not the client's business."""
    try:
        return method(*args)
    except store.NotFound:
        raise errors.CLIENT_NOT_FOUND from None
    except store.InsufficientFunds:
        raise errors.NO_FUNDS from None
    except store.Unavailable:
        raise errors.UNAVAILABLE from None
    except Exception:
        log.exception("internal error in %s", method.__name__)
        raise errors.INTERNAL from None


# Every route of the service: where to look for the handler of a request.
ROUTES = (
    Route("GET", "/", liveness),
    Route("GET", "/health", health),
    Route("POST", "/client/new/{balance}", create_client),
    Route("GET", "/client/{id}/balance", balance),
    Route("POST", "/transaction", transfer_money),
    Route("GET", "/metrics", metrics),
)
