"""HTTP/1.1 on the standard library's ThreadingHTTPServer (a thread per connection, keep-alive),
with net/http's behaviour where the contract needs it: every answer JSON (a request the parser
cannot read is 400 `malformed request`), any method routed, bodies never read past their limit,
a connection silent or idle for 10 s dropped, graceful shutdown."""

from __future__ import annotations

import email.errors
import logging
import re
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote_to_bytes, urlsplit

from bankpy import errors
from bankpy.api import Answer, App, Match
from bankpy.errors import Error

STALL_S = 10  # a client silent this long mid-request, or idle between requests, is dropped
DISCARD_MAX = 256 << 10  # an unread body up to this is skipped to keep the connection (net/http)
LINGER_S = 1.0  # after answering a body left unread: read on before closing, so no RST eats the answer
BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")
# A header line the email parser behind http.server could not read (no colon, a space in the
# name, no name): net/http and Tomcat answer 400. Its other defects are about values, such as a
# multipart type without a boundary, which only a body parser would mind.
HEADER_DEFECTS = (email.errors.MissingHeaderBodySeparatorDefect, email.errors.InvalidHeaderDefect)
UNLIMITED = ("/", "/metrics")  # liveness and monitoring: no database, never refused (Server.admit)
CLIENT_GONE = 499  # nginx's status for a client gone before its answer, as bank-go counts it
log = logging.getLogger("bankpy")


class BodyBroken(Exception):
    """The request body cannot be read: the client broke off, stalled or framed it wrongly."""


class Server(ThreadingHTTPServer):
    """Serves `app`; a daemon thread per connection."""

    daemon_threads = True
    request_queue_size = 4096  # the listen backlog (the kernel caps it at somaxconn)

    def __init__(self, port: int, app: App, max_concurrent: int):
        self.app = app
        self.admission = threading.BoundedSemaphore(max_concurrent)
        self.busy = 0  # requests being answered
        self.quiet = threading.Condition()
        self.stopping = False
        super().__init__(("", port), Handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # without HTTPServer's reverse DNS lookup
        self.server_name, self.server_port = "localhost", self.server_address[1]

    @contextmanager
    def request(self) -> Iterator[None]:
        with self.quiet:
            self.busy += 1
        try:
            yield
        finally:
            with self.quiet:
                self.busy -= 1
                self.quiet.notify_all()

    @contextmanager
    def admit(self, path: str) -> Iterator[bool]:
        """Whether a request to `path` may be served now: at most max_concurrent at once, running
        or waiting for a pooled connection; one more is refused at once (503 with Retry-After),
        as bank-go's admit and bank-java's AdmissionFilter do. Liveness and metrics always are."""
        if path in UNLIMITED:
            yield True
        elif not self.admission.acquire(blocking=False):
            yield False
        else:
            try:
                with self.app.metrics.concurrent.track_inprogress():
                    yield True
            finally:
                self.admission.release()

    def stop(self, timeout: float) -> bool:
        """Stops accepting, then waits up to timeout for the requests being answered; idle
        keep-alive connections are simply closed with the process. True when all finished."""
        self.stopping = True
        self.shutdown()
        self.server_close()
        with self.quiet:
            return self.quiet.wait_for(lambda: self.busy == 0, timeout)


class Handler(BaseHTTPRequestHandler):
    """One connection: its requests in turn (bankpy.api.Request for the handlers)."""

    protocol_version = "HTTP/1.1"
    timeout = STALL_S  # every read and write on the socket
    disable_nagle_algorithm = True
    server: Server

    def handle_one_request(self) -> None:
        self.expect_continue = self.continued = False
        self.length, self.chunked, self.body = 0, False, "none"  # body: none, unread, read, broken
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.command, self.request_version = "", ""
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
            elif not self.raw_requestline:
                self.close_connection = True
            elif not self.raw_requestline.strip():  # net/http reads no empty line as a request
                self.command, self.request_version = "", ""
                self.send_error(HTTPStatus.BAD_REQUEST)
            elif self.parse_request():
                self.serve()
        except OSError:  # timed out, reset, broken pipe: the connection is done
            self.close_connection = True

    def serve(self) -> None:
        path, framing = self.target_path(), self.framing()
        if (path is None or self.request_version == "HTTP/0.9" or not self.has_one_host()
                or any(isinstance(d, HEADER_DEFECTS) for d in self.headers.defects)):
            return self.send_error(HTTPStatus.BAD_REQUEST)
        if framing is not None:
            return self.send_error(framing)
        if path == "*":  # OPTIONS *, about the server rather than a path: 200, as net/http and Tomcat
            return self.write(Answer(200, b"", content_type=""))
        segments = [unquote_to_bytes(s).decode("utf-8", "replace") for s in path.split("/")]
        app, start = self.server.app, time.perf_counter()
        with self.server.request(), self.server.admit(path) as admitted:
            match = app.route(self.command, segments) if admitted else Match("UNKNOWN", error=errors.OVERLOADED)
            try:
                if match.route is None:
                    raise match.error
                self.params = match.params
                answer = match.route.handler(app, self)
            except Error as err:
                answer = Answer.of(err)
            except Exception:
                log.exception("internal error")
                answer = Answer.of(errors.INTERNAL)
            status = answer.status
            try:
                self.write(answer)
            except OSError:  # the client reset the connection before its answer (a closed one takes it)
                status = CLIENT_GONE
                raise
            finally:
                app.metrics.observe(self.command, match.uri, status, time.perf_counter() - start)
        self.after_answer()

    def target_path(self) -> str | None:
        """The path of the request target (origin or absolute form), None when unreadable."""
        target = self.path
        if any(ord(c) <= 0x20 or ord(c) == 0x7F for c in target):
            return None
        if target == "*" and self.command == "OPTIONS":
            return target
        if not target.startswith("/"):
            if "://" not in target:
                return None
            target = urlsplit(target).path or "/"
        path = target.split("?", 1)[0]
        return None if BAD_PERCENT.search(path) else path

    def has_one_host(self) -> bool:
        hosts = self.headers.get_all("Host") or []
        return len(hosts) == 1 or (not hosts and self.request_version == "HTTP/1.0")

    def framing(self) -> int | None:
        """Reads how the body is framed; the error status when it cannot be."""
        encodings = self.headers.get_all("Transfer-Encoding")
        lengths = {v.strip() for v in self.headers.get_all("Content-Length") or []}
        if encodings:
            if [e.strip().lower() for e in encodings] != ["chunked"]:
                return HTTPStatus.NOT_IMPLEMENTED
            self.length, self.chunked, self.body = None, True, "unread"
        elif lengths:
            if len(lengths) > 1 or not all(v.isascii() and v.isdigit() for v in lengths):
                return HTTPStatus.BAD_REQUEST
            self.length = int(lengths.pop())
            self.body = "unread" if self.length else "none"
        return None

    # --- bankpy.api.Request ---------------------------------------------------------------

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def content_length(self) -> int | None:
        return self.length

    def read_body(self, limit: int) -> bytes:
        if self.body == "none":
            return b""
        if self.length is not None and self.length > limit:
            raise errors.TOO_LARGE
        if self.expect_continue and not self.continued:
            self.continued = True
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            if self.chunked:
                data = self.read_chunked(limit)
            elif len(data := self.rfile.read(self.length)) != self.length:
                raise BodyBroken
        except (OSError, BodyBroken):  # net/http's body read error: not a JSON object
            self.body = "broken"
            raise errors.NOT_OBJECT from None
        self.body = "read"
        return data

    def read_chunked(self, limit: int) -> bytes:
        """The chunked body; TOO_LARGE from the size line of the chunk that would pass limit."""
        data = bytearray()
        while True:
            line = self.rfile.readline(1024)
            size = line.split(b";", 1)[0].strip()
            if not line.endswith(b"\n") or not CHUNK_SIZE.fullmatch(size):
                raise BodyBroken
            if int(size, 16) == 0:
                break
            if len(data) + int(size, 16) > limit:
                raise errors.TOO_LARGE
            chunk = self.rfile.read(int(size, 16))
            if len(chunk) != int(size, 16) or self.rfile.readline(3).strip(b"\r\n") != b"":
                raise BodyBroken
            data += chunk
        while (line := self.rfile.readline(8192)) not in (b"\r\n", b"\n"):  # trailers
            if not line.endswith(b"\n"):
                raise BodyBroken
        return bytes(data)

    # --- answering ------------------------------------------------------------------------

    def write(self, answer: Answer) -> None:
        """The whole answer in one write; the connection closes after it if it must."""
        if self.server.stopping or self.body == "broken" or (self.body == "unread" and (
                self.chunked or self.length > DISCARD_MAX or (self.expect_continue and not self.continued))):
            self.close_connection = True
        payload = answer.payload()
        phrase = HTTPStatus(answer.status).phrase
        lines = [f"HTTP/1.1 {answer.status} {phrase}", f"Date: {self.date_time_string()}",
                 f"Content-Length: {len(payload)}", *(f"{name}: {value}" for name, value in answer.headers)]
        if answer.content_type:
            lines.append(f"Content-Type: {answer.content_type}")
        if self.close_connection:
            lines.append("Connection: close")
        elif self.request_version == "HTTP/1.0":
            lines.append("Connection: keep-alive")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self.wfile.write(head if self.command == "HEAD" else head + payload)

    def after_answer(self) -> None:
        """Skips a small unread body to keep the connection; lingers before closing on a large one."""
        if self.body != "unread":
            return
        if not self.close_connection:
            if len(self.rfile.read(self.length)) != self.length:
                self.close_connection = True
            return
        try:
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + LINGER_S
            self.connection.settimeout(LINGER_S)
            while time.monotonic() < deadline and self.connection.recv(65536):
                pass
        except OSError:
            pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The parser's errors, as JSON (bank-go's statusAnswer); the connection closes."""
        self.close_connection = True
        self.write(Answer.of(errors.status_error(code, HTTPStatus(code).phrase)))

    def handle_expect_100(self) -> bool:
        self.expect_continue = True  # 100 Continue only once the body is read, as net/http
        return True

    def log_message(self, format: str, *args) -> None:
        pass
