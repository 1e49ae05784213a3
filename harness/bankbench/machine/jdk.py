"""The one JDK of bankbench: where it is found.

The one JDK of bankbench (21+, with javac): it builds and runs the Java services.
The first fit of $JAVA_HOME, $BANK_JAVA_HOME, the PATH's `java`, /usr/lib/jvm's (newest first).
Standard library only: the Makefile runs `python3 -m bankbench.machine.jdk` before .venv exists.

See docs/setup.md#prerequisites."""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from bankbench.errors import UserError

MIN_VERSION = 21  # virtual threads; one JDK for both variants keeps them comparable
JVM_DIR = Path("/usr/lib/jvm")
INSTALL = ("apt-get install openjdk-21-jdk-headless (Debian 12: temurin-21-jdk from "
           "Adoptium's apt repository)")


@dataclass(frozen=True)
class Jdk:
    home: Path
    version: str  # JAVA_VERSION of its `release` file, e.g. 25.0.3
    origin: str  # which candidate: JAVA_HOME, BANK_JAVA_HOME, PATH or /usr/lib/jvm


def release_version(home: Path) -> str:
    """JAVA_VERSION from the `release` file that every JDK since 9 ships; "" without one."""
    release = home / "release"
    text = release.read_text() if release.is_file() else ""
    match = re.search(r'^JAVA_VERSION="([^"]+)"', text, re.MULTILINE)
    return match.group(1) if match else ""


def feature(version: str) -> int:
    """The feature release of a JAVA_VERSION: 25 for 25.0.3, 8 for 1.8.0_412, 0 for ""."""
    match = re.match(r"(?:1\.)?(\d+)", version)
    return int(match.group(1)) if match else 0


def candidates() -> list[tuple[str, Path]]:
    """(origin, home) in order of precedence, each home once."""
    found = [(var, Path(os.environ[var])) for var in ("JAVA_HOME", "BANK_JAVA_HOME")
             if os.environ.get(var)]
    if java := shutil.which("java"):
        found.append(("PATH", Path(java).resolve().parents[1]))  # <home>/bin/java
    found += [(str(JVM_DIR), home) for home in sorted(JVM_DIR.glob("*"), reverse=True,
                                                       key=lambda h: feature(release_version(h)))]
    unique: dict[Path, tuple[str, Path]] = {}
    for origin, home in found:
        unique.setdefault(home.resolve(), (origin, home))
    return list(unique.values())


def unfit(home: Path) -> str | None:
    """Why `home` cannot be the JDK, or None when it can."""
    if not (home / "bin" / "java").exists():
        return "no bin/java"
    if feature(version := release_version(home)) < MIN_VERSION:
        return f"Java {version or 'of unknown version'}, {MIN_VERSION}+ needed"
    if not (home / "bin" / "javac").exists():
        return f"a JRE without javac: install the JDK ({INSTALL})"
    return None


def select() -> tuple[Jdk | None, list[str]]:
    """The first fit candidate, and a note on each one skipped before it."""
    notes = []
    for origin, home in candidates():
        if why := unfit(home):
            notes.append(f"{origin} {home} skipped: {why}")
        else:
            return Jdk(home, release_version(home), origin), notes
    return None, notes


def java_home() -> Path:
    jdk, notes = select()
    if jdk is None:
        tried = "".join(f"\n  {note}" for note in notes)
        raise UserError(f"no JDK {MIN_VERSION}+ found in JAVA_HOME, BANK_JAVA_HOME, the PATH or "
                        f"{JVM_DIR}: {INSTALL}{tried}")
    return jdk.home


def main() -> int:
    """Prints the JDK's home (for the Makefile and scripts/with-jdk.sh), notes on stderr."""
    try:
        home = java_home()
    except UserError as err:
        print(f"bankbench jdk: {err}", file=sys.stderr)
        return 1
    for note in select()[1]:
        print(f"bankbench jdk: note: {note}", file=sys.stderr)
    print(home)
    return 0


if __name__ == "__main__":
    sys.exit(main())
