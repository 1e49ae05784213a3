"""The bank's clients and ledger in PostgreSQL: a fixed-size psycopg_pool pool running the
statements of db/queries/ verbatim, one statement per request in autocommit, as bank-go does."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import RawCursor
from psycopg.conninfo import make_conninfo
from psycopg.types.numeric import Int8
from psycopg_pool import ConnectionPool, PoolTimeout

from bankpy.config import Config

QUERIES = Path(__file__).resolve().parents[3] / "db" / "queries"
CONNECT_TIMEOUT_S = 3  # as bank-go's connectTimeout and pgjdbc's connectTimeout
QUERY_TIMEOUT = "10s"  # a database call is abandoned after 10 s (docs/configuration.md)
MAX_LIFETIME_S = 30 * 60  # psycopg_pool shortens each by up to 5 %, so they do not expire at once
# A connection idle this long is checked (an empty query) before use: HikariCP's
# aliveBypassWindowMs and bank-go's pingAfterIdle. A check is a round trip, so all pools check alike.
CHECK_AFTER_IDLE_S = 0.5
# How long a pool slot keeps retrying a connection it could not open (1 s, 2 s... apart) before
# psycopg_pool gives it up; a request that then waits regrows the pool. So while the server is
# down or refuses more connections, requests wait for a busy connection, as with HikariCP.
RECONNECT_S = 3
POOL_NAME = "bank"  # the `pool` label of the pool series (api/metrics.yaml)
# SQLSTATEs that mean the server cannot serve now: class 08 (connection exception), shutting
# down or starting (57P01-57P03), too many connections (53300), and the query timeout above
# (57014): bank-go's classify, which also maps its own query timeout to 503.
UNAVAILABLE = {"57P01", "57P02", "57P03", "53300", "57014"}


def statement(name: str) -> str:
    """db/queries/<name>.sql, its whole text trimmed of surrounding white space (comments
    included): the very text bank-go and bank-java send."""
    return (QUERIES / f"{name}.sql").read_text().strip()


HEALTH, CREATE_CLIENT, BALANCE, TRANSFER = (
    statement(name) for name in ("health", "create_client", "balance", "transfer"))


class NotFound(Exception):
    """A client does not exist."""


class InsufficientFunds(Exception):
    """The source balance is below the amount of a transfer."""


class Unavailable(Exception):
    """The database cannot serve now: no pooled connection in time, or an outage."""


@dataclass(frozen=True)
class PoolStats:
    """A snapshot of the pool, with the meanings of HikariCP's metrics (api/metrics.yaml)."""

    max: int
    open: int
    active: int
    idle: int
    pending: int
    acquires: int
    acquire_seconds: float
    timeouts: int
    created: int


class BankConnection(psycopg.Connection):
    """A pooled connection that knows since when it has been idle."""

    idle_since: float | None = None  # None: never used, just opened


class Store:
    """Runs the bank's statements on a pool of `pool_size` connections. It does not wait for the
    database: the pool connects in the background, so the service starts while it is down."""

    def __init__(self, cfg: Config):
        self.acquire_timeout_s = cfg.acquire_timeout_s
        self.lock = threading.Lock()
        self.pending = self.active = self.acquires = self.timeouts = 0
        self.acquire_seconds = 0.0
        conninfo = make_conninfo(host=cfg.host, port=cfg.db_port, user=cfg.user,
                                 password=cfg.password, dbname=cfg.database,
                                 connect_timeout=CONNECT_TIMEOUT_S,
                                 options=f"-c statement_timeout={QUERY_TIMEOUT}")
        # RawCursor binds on the server with PostgreSQL's own $1 placeholders: the statement
        # text reaches PostgreSQL unchanged. prepare_threshold=0 prepares each statement on its
        # first use on a connection, as pgx does.
        self.pool = ConnectionPool(
            conninfo, connection_class=BankConnection, name=POOL_NAME, open=False,
            kwargs={"autocommit": True, "cursor_factory": RawCursor, "prepare_threshold": 0},
            min_size=cfg.pool_size, max_size=cfg.pool_size, timeout=cfg.acquire_timeout_s,
            max_lifetime=MAX_LIFETIME_S, reconnect_timeout=RECONNECT_S, check=_check)
        self.pool.open(wait=False)

    def close(self) -> None:
        self.pool.close()

    def health(self) -> None:
        """A trivial query in the simple protocol, as pgx sends a statement without arguments:
        nothing to prepare on a new connection."""
        self._one(HEALTH, (), prepare=False)

    def create_client(self, balance: int) -> dict:
        """The new client; its opening deposit, when above zero, is written by the same statement."""
        row = self._one(CREATE_CLIENT, (Int8(balance),))
        return dict(zip(("id", "name", "email", "phone", "balance"), row, strict=True))

    def balance(self, client_id: int) -> int:
        row = self._one(BALANCE, (Int8(client_id),))
        if row is None:
            raise NotFound
        return row[0]

    def transfer(self, src: int, dst: int, amount: int) -> int:
        """Moves amount and returns the ledger row's id; NotFound or InsufficientFunds, in which
        case nothing changed (db/queries/transfer.sql)."""
        found, funded, ledger_id = self._one(TRANSFER, (Int8(src), Int8(dst), Int8(amount)))
        if not found:
            raise NotFound
        if not funded:
            raise InsufficientFunds
        return ledger_id

    def _one(self, sql: str, params: tuple, prepare: bool | None = None) -> tuple | None:
        """The first row of sql on a pooled connection; database errors come back classified."""
        conn = self._acquire()
        try:
            return conn.execute(sql, params, prepare=prepare).fetchone()
        except psycopg.Error as err:
            raise classify(err) from err
        finally:
            conn.idle_since = time.monotonic()
            with self.lock:
                self.active -= 1
            self.pool.putconn(conn)

    def _acquire(self) -> BankConnection:
        """A pooled connection within the acquire timeout, else Unavailable; the wait is counted."""
        start = time.monotonic()
        with self.lock:
            self.pending += 1
        try:
            conn = self.pool.getconn()
        except PoolTimeout:
            with self.lock:
                self.timeouts += 1
            raise Unavailable from None
        finally:
            with self.lock:
                self.pending -= 1
        with self.lock:
            self.active += 1
            self.acquires += 1
            self.acquire_seconds += time.monotonic() - start
        return conn

    def stats(self) -> PoolStats:
        pool = self.pool.get_stats()
        with self.lock:
            active, pending = self.active, self.pending
            acquires, seconds, timeouts = self.acquires, self.acquire_seconds, self.timeouts
        idle = pool.get("pool_available", 0)
        created = pool.get("connections_num", 0) - pool.get("connections_errors", 0)
        return PoolStats(max=self.pool.max_size, open=active + idle, active=active, idle=idle,
                         pending=pending, acquires=acquires, acquire_seconds=seconds,
                         timeouts=timeouts, created=created)


def _check(conn: BankConnection) -> None:
    """psycopg_pool's check on acquire, only for a connection idle past CHECK_AFTER_IDLE_S; a
    failure makes the pool replace the connection and hand out another."""
    if conn.idle_since is not None and time.monotonic() - conn.idle_since > CHECK_AFTER_IDLE_S:
        conn.execute("")


def classify(err: psycopg.Error) -> Exception:
    """Unavailable when the database cannot serve now (a lost or refused connection, an outage
    SQLSTATE, the query timeout); any other error as it is: a bug, answered 500."""
    if err.sqlstate is None and isinstance(err, (psycopg.OperationalError, psycopg.InterfaceError)):
        return Unavailable(str(err))
    if err.sqlstate and (err.sqlstate in UNAVAILABLE or err.sqlstate.startswith("08")):
        return Unavailable(str(err))
    return err
