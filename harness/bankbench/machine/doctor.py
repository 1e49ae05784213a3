"""`make doctor`: each prerequisite of bankbench, found or not, and how to install it.

For each, the version found and needed, and the command that installs it on Debian 12, Debian 13 or
Ubuntu 24.04 (docs/setup.md: the same, in this order). With names (`... doctor go wrk`) it checks
only those, as required, silent when they are there; `--install debian13` prints the commands that
install the required ones there (`make newcomer` runs them in a fresh root). Standard library only:
it runs before .venv.

See docs/setup.md#prerequisites."""

from __future__ import annotations

import importlib.util
import os
import platform
import pwd
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from bankbench import paths
from bankbench.errors import UserError
from bankbench.machine import jdk, postgres_binaries

MIN_GO = (1, 21)  # the first Go that fetches the toolchain go.mod names (GOTOOLCHAIN=auto)
MIN_TERRAFORM = (1, 9)
# The distributions with install commands, by /etc/os-release's ID and VERSION_ID.
DISTROS = {"debian12": "Debian 12", "debian13": "Debian 13", "ubuntu24.04": "Ubuntu 24.04"}


@dataclass(frozen=True)
class Finding:
    ok: bool
    found: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prerequisite:
    name: str
    needed: str
    install: str | Mapping[str, str]  # one command everywhere, or one per key of DISTROS
    probe: Callable[[], Finding]
    optional_for: str = ""  # the targets that need it, when the others do not
    fetched: bool = False  # the make targets fetch it when it is absent: nothing to install

    def installs(self) -> dict[str, str]:
        install = self.install
        return {distro: install if isinstance(install, str) else install[distro] for distro in DISTROS}

    def how_to_install(self, distro: str | None) -> str:
        """The command for `distro`; else each command with its distributions (docs/setup.md's)."""
        installs = self.installs()
        if distro in installs:
            return installs[distro]
        by_command: dict[str, list[str]] = {}
        for key, command in installs.items():
            by_command.setdefault(command, []).append(DISTROS[key])
        if len(by_command) == 1:
            return next(iter(by_command))
        return "; ".join(f"{', '.join(names)}: {command}" for command, names in by_command.items())


def apt(*packages: str) -> str:
    return f"apt-get install {' '.join(packages)}"


def distro(os_release: Path = Path("/etc/os-release")) -> str | None:
    """This machine's key in DISTROS (e.g. debian13), or None for another distribution."""
    try:
        fields = dict(line.split("=", 1) for line in os_release.read_text().splitlines()
                      if "=" in line)
    except OSError:
        return None
    key = fields.get("ID", "").strip('"') + fields.get("VERSION_ID", "").strip('"')
    return key if key in DISTROS else None


def _output(*cmd: str, env: dict[str, str] | None = None) -> str:
    """A command's first line (stdout or stderr) up to any ( or [; "" when it is not installed."""
    if not shutil.which(cmd[0]):
        return ""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20,
                             env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        return ""
    first = next(iter((out.stdout + out.stderr).splitlines()), "")
    return re.split(r" [(\[]", first)[0].strip()


def _version(text: str) -> tuple[int, ...]:
    match = re.search(r"(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else ()


def _any_of(*commands: tuple[str, ...]) -> Callable[[], Finding]:
    """A probe that only needs one of the commands to answer (with its version)."""
    def probe() -> Finding:
        found = next(filter(None, (_output(*cmd) for cmd in commands)), "")
        return Finding(bool(found), found or "not found")
    return probe


def _python() -> Finding:
    version = platform.python_version()
    if sys.version_info < (3, 11):
        return Finding(False, version)
    if importlib.util.find_spec("ensurepip") is None:  # what Debian's python3-venv adds
        return Finding(False, f"{version} without venv")
    return Finding(True, f"{version} with venv")


def go_toolchain() -> str:
    """The toolchain bank-go/go.mod names, e.g. go1.26.8."""
    gomod = (paths.ROOT / "bank-go" / "go.mod").read_text()
    match = re.search(r"^toolchain (\S+)", gomod, re.MULTILINE)
    return match.group(1) if match else "unknown"


def _go() -> Finding:
    # GOTOOLCHAIN=local: the Go installed here, not the toolchain it would switch to.
    # str.replace, not removeprefix: this runs on the Python 3.8 it may have to report as too old.
    found = _output("go", "version", env={"GOTOOLCHAIN": "local"}).replace("go version ", "", 1)
    return Finding(_version(found) >= MIN_GO, found or "not found")


def _jdk() -> Finding:
    found, notes = jdk.select()
    where = f"{found.version} at {found.home} ({found.origin})" if found else "none fit"
    return Finding(found is not None, where, tuple(notes))


def _postgresql() -> Finding:
    try:
        bindir, origin = postgres_binaries.locate()
    except UserError as err:
        return Finding(False, str(err))
    if bindir is None:
        return Finding(True, f"none here: {origin}")
    return Finding(True, f"{postgres_binaries.version(bindir)} at {bindir} ({origin})")


def _server_user() -> Finding:
    if os.geteuid() != 0:
        return Finding(True, "not needed: not root")
    try:
        return Finding(True, f"uid {pwd.getpwnam(postgres_binaries.SERVER_USER).pw_uid}")
    except KeyError:
        return Finding(False, "no such user")


def _terraform() -> Finding:
    found = _output("terraform", "version")
    return Finding(_version(found) >= MIN_TERRAFORM, found or "not found")


def _pgbench() -> Finding:
    try:
        found = postgres_binaries.pgbench()
    except UserError as err:
        return Finding(False, str(err))
    if found is None:
        return Finding(False, f"not found (of {postgres_binaries.MAJOR} or newer; the packaged server has none)")
    return Finding(True, f"{postgres_binaries.major(found)} at {found}")


def _util_linux() -> Finding:
    missing = [tool for tool in ("taskset", "runuser") if not shutil.which(tool)]
    return Finding(not missing, f"no {', '.join(missing)}" if missing else "taskset, runuser")


def _docker() -> Finding:
    engine = _output("docker", "version", "--format", "{{.Server.Version}}")
    if not _version(engine):
        return Finding(False, "no engine answering" if shutil.which("docker") else "not found")
    compose = _output("docker", "compose", "version", "--short")
    if not _version(compose):
        return Finding(False, f"engine {engine}, but no compose v2 plugin (`docker compose`)")
    return Finding(True, f"engine {engine}, compose {compose}")


# Debian 13 and Ubuntu 24.04 have no PostgreSQL 15: their pgbench (17, 16) drives it all the same.
FETCHED = f"nothing: fetched on first use (or PG_BINDIR=<a PostgreSQL {postgres_binaries.MAJOR} bin/>)"
PREREQUISITES = (
    Prerequisite("make", "GNU Make", apt("make"), _any_of(("make", "--version"))),
    Prerequisite("git", "any", apt("git"), _any_of(("git", "--version"))),
    # The Maven wrapper downloads Maven with either.
    Prerequisite("curl", "curl or wget", apt("curl"),
                 _any_of(("curl", "--version"), ("wget", "--version"))),
    Prerequisite("python3", "3.11+ with venv", apt("python3", "python3-venv"), _python),
    Prerequisite("go", f"{MIN_GO[0]}.{MIN_GO[1]}+ (it fetches {go_toolchain()}, named in go.mod)",
                 {"debian12": "a Go from https://go.dev/dl (Debian 12's golang-go is 1.19)",
                  "debian13": apt("golang-go"), "ubuntu24.04": apt("golang-go")}, _go),
    Prerequisite("jdk", f"JDK {jdk.MIN_VERSION}+ with javac",
                 {"debian12": "temurin-21-jdk from Adoptium's apt repository (Debian 12 has 17)",
                  "debian13": apt("openjdk-21-jdk-headless"),
                  "ubuntu24.04": apt("openjdk-21-jdk-headless")}, _jdk),
    Prerequisite("postgresql", f"{postgres_binaries.MAJOR} server, found or fetched",
                 {"debian12": apt("postgresql-15"), "debian13": FETCHED, "ubuntu24.04": FETCHED},
                 _postgresql, fetched=True),
    Prerequisite("postgres-user", "as root: the user that runs the server",
                 f"useradd --system --user-group {postgres_binaries.SERVER_USER}", _server_user),
    Prerequisite("util-linux", "taskset (CPU placement), runuser (as root)", apt("util-linux"),
                 _util_linux),
    Prerequisite("terraform", f"{MIN_TERRAFORM[0]}.{MIN_TERRAFORM[1]}+",
                 "apt-get install terraform (HashiCorp's apt repository)", _terraform,
                 "make aws-*, the infra suite of make test"),
    Prerequisite("wrk", "any", apt("wrk"), _any_of(("wrk", "--version")), "make quick-bench"),
    Prerequisite("pgbench", f"PostgreSQL {postgres_binaries.MAJOR}'s or newer",
                 {"debian12": apt("postgresql-15"), "debian13": apt("postgresql-17"),
                  "ubuntu24.04": apt("postgresql-16")}, _pgbench, "make quick-bench, make pg-spread"),
    Prerequisite("tshark", "any", apt("tshark"), _any_of(("tshark", "--version")), "make pgwire"),
    Prerequisite("docker", "an engine with compose v2",
                 {"debian12": f"{apt('docker.io')}, and docker-compose-plugin from Docker's "
                              "apt repository",
                  "debian13": apt("docker.io", "docker-compose"),
                  "ubuntu24.04": apt("docker.io", "docker-compose-v2")},
                 _docker, "ENV=compose, make images, make aws-push, the Docker suites of make test"),
    Prerequisite("debootstrap", "any, as root", apt("debootstrap"),
                 _any_of(("debootstrap", "--version")),
                 "make offline-images, make newcomer (the newcomer suite of make test)"),
)


def table(rows: list[tuple[Prerequisite, Finding, bool]], on: str | None) -> str:
    """A line per prerequisite; how to install a missing one on `on`, else on each of DISTROS."""
    where = "as root" if on is None else DISTROS.get(on, "as root")
    lines = [("", "prerequisite", "found", "needed", f"install ({where})")]
    for p, finding, required in rows:
        needed = p.needed + (f"; only for {p.optional_for}" if p.optional_for else "")
        status = "ok" if finding.ok else "MISSING" if required else "absent"
        lines.append((status, p.name, finding.found, needed,
                      "" if finding.ok else p.how_to_install(on)))
    widths = [max(len(line[col]) for line in lines) for col in range(4)]
    text = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)) + "  " + line[4]
            for line in lines]
    notes = [f"note: {note}" for _, finding, _ in rows for note in finding.notes]
    return "\n".join(line.rstrip() for line in text + notes)


def check(names: list[str]) -> int:
    """Prints the table (all, or `names` only if one is missing); 1 if a required one is missing."""
    known = {p.name: p for p in PREREQUISITES}
    if unknown := [name for name in names if name not in known]:
        print(f"bankbench doctor: unknown {', '.join(unknown)}; known: {', '.join(known)}",
              file=sys.stderr)
        return 2
    chosen = [known[name] for name in names] or list(PREREQUISITES)
    # Named ones are required by whoever names them; otherwise only the optional ones are not.
    rows = [(p, p.probe(), bool(names) or not p.optional_for) for p in chosen]
    missing = [p.name for p, finding, required in rows if required and not finding.ok]
    if names and not missing:
        return 0
    print(table(rows, distro()))
    if missing:
        print(f"doctor: missing {', '.join(missing)}: install as shown, then run `make doctor`")
        return 1
    print("doctor: every required prerequisite is here")
    return 0


def install_commands(on: str) -> list[str]:
    """docs/setup.md's commands installing the required prerequisites on `on` (`make newcomer`)."""
    return [p.installs()[on] for p in PREREQUISITES if not p.optional_for and not p.fetched]


def main(args: list[str]) -> int:
    if args[:1] == ["--install"]:
        if len(args) != 2 or args[1] not in DISTROS:
            print(f"usage: bankbench.machine.doctor --install {'|'.join(DISTROS)}", file=sys.stderr)
            return 2
        print("\n".join(install_commands(args[1])))
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
