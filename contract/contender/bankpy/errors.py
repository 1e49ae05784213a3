"""The error answers of api/openapi.yaml, with their exact messages."""

from __future__ import annotations

MAX_MONEY = 10**15  # the largest amount or opening balance (api/openapi.yaml)
MAX_BODY = 65536  # a transfer takes well under 200 bytes


class Error(Exception):
    """An error answer of the contract: its status and message go to the client as they are."""

    def __init__(self, status: int, message: str, headers: tuple[tuple[str, str], ...] = ()):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers

    def body(self) -> dict[str, str]:
        return {"status": "Error", "message": self.message}


NO_ROUTE = Error(404, "not found")
NOT_OBJECT = Error(400, "request body must be a JSON object")
BALANCE_RANGE = Error(400, f"balance must be a whole number from 0 to {MAX_MONEY}")
BAD_ID = Error(400, "id must be an integer")
AMOUNT_RANGE = Error(400, f"amount must be from 1 to {MAX_MONEY}")
SAME_CLIENT = Error(400, "from_client_id and to_client_id must differ")
MEDIA_TYPE = Error(415, "Content-Type must be application/json")
TOO_LARGE = Error(413, f"request body must be at most {MAX_BODY} bytes")
CLIENT_NOT_FOUND = Error(404, "client not found")
NO_FUNDS = Error(422, "insufficient funds")
INTERNAL = Error(500, "internal error")
MALFORMED = Error(400, "malformed request")
UNAVAILABLE = Error(503, "database unavailable")
# Past the admission limit (bankpy.web.Server.admit); Retry-After in seconds, as bank-go's.
OVERLOADED = Error(503, "service overloaded", (("Retry-After", "1"),))


def not_integer(name: str) -> Error:
    """The answer to a body field that is not a 64-bit integer."""
    return Error(400, f"{name} must be an integer")


def method_not_allowed(allow: list[str]) -> Error:
    return Error(405, "method not allowed", (("Allow", ", ".join(allow)),))


def status_error(status: int, phrase: str) -> Error:
    """The answer of a status that the HTTP layer gives without detail, bank-go's statusAnswer:
    400 is a malformed request, 5xx an internal error, others say their reason phrase."""
    if status == 400:
        return MALFORMED
    return Error(status, INTERNAL.message if status >= 500 else phrase.lower())
