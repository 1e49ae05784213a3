"""The body of POST /transaction, checked in the contract's order (bank-go's server/json.go)."""

from __future__ import annotations

import json

from bankpy.errors import (
    AMOUNT_RANGE,
    MAX_BODY,
    MAX_MONEY,
    MEDIA_TYPE,
    NOT_OBJECT,
    SAME_CLIENT,
    TOO_LARGE,
    not_integer,
)

JSON_TYPE = "application/json"
FIELDS = ("from_client_id", "to_client_id", "amount")


class NotInteger:
    """A JSON number with a fraction or an exponent, or an integer too long for 64 bits: never a
    valid field, even 1.0 or 1e2."""


def _int(text: str) -> int | NotInteger:
    return int(text) if len(text) <= 20 else NotInteger()


def _reject(text: str) -> None:
    raise ValueError(f"{text} is not JSON")  # NaN, Infinity: Python's json takes them, JSON not


def is_json(content_type: str) -> bool:
    """Whether a Content-Type names application/json: the media type only, ASCII case aside; a
    parameter such as charset changes nothing."""
    media_type = content_type.split(";", 1)[0].strip(" \t")
    return media_type.isascii() and media_type.lower() == JSON_TYPE


def read(req) -> bytes:
    """The body of a request meant to be JSON: 415 for another Content-Type (none at all is taken
    as JSON), 413 for a body over MAX_BODY bytes, told by Content-Length before reading or, when
    chunked, as soon as it passes the limit: never read whole."""
    content_type = req.header("Content-Type")
    if content_type and not is_json(content_type):
        raise MEDIA_TYPE
    length = req.content_length()
    if length is not None and length > MAX_BODY:
        raise TOO_LARGE
    return req.read_body(MAX_BODY)


def decode(req) -> tuple[int, int, int]:
    """from_client_id, to_client_id and amount, or the contract's error: a JSON object, then each
    field a 64-bit integer, then amount in range, then two different clients."""
    body = read(req)
    try:
        doc = json.loads(body.decode("utf-8", "replace"), parse_int=_int,
                         parse_float=lambda _: NotInteger(), parse_constant=_reject)
    except (ValueError, RecursionError):
        raise NOT_OBJECT from None
    if not isinstance(doc, dict):
        raise NOT_OBJECT
    values = []
    for name in FIELDS:
        value = doc.get(name)
        if type(value) is not int or not -2**63 <= value < 2**63:  # bool is no integer here
            raise not_integer(name)
        values.append(value)
    src, dst, amount = values
    if not 1 <= amount <= MAX_MONEY:
        raise AMOUNT_RANGE
    if src == dst:
        raise SAME_CLIENT
    return src, dst, amount
