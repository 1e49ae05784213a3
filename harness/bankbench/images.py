"""What the containers of ENV=compose run: each image's digest and the versions inside it.

The versions are read from the images, not from the host: the Go build info of the binary and
the libraries of the jar that the image's entrypoint starts, and the image's own `java -version`.
"""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
import tempfile
from pathlib import Path

from bankbench import composefile, manifest, registry
from bankbench.errors import UserError


def _docker(*args: str) -> subprocess.CompletedProcess:
    out = subprocess.run(["docker", *args], capture_output=True)
    if out.returncode != 0:
        raise UserError(f"docker {' '.join(args)} failed: {out.stderr.decode().strip()}")
    return out


def digest(image: str) -> str:
    """The image's content digest (its ID: local builds have no registry digest)."""
    return _docker("image", "inspect", "--format", "{{.Id}}", image).stdout.decode().strip()


def program(image: str) -> str:
    """The file the image's entrypoint runs: its first word, or the jar after -jar."""
    entrypoint = json.loads(_docker("image", "inspect", "--format", "{{json .Config.Entrypoint}}",
                                    image).stdout)
    return entrypoint[entrypoint.index("-jar") + 1] if "-jar" in entrypoint else entrypoint[0]


def copy_out(image: str, path: str, into: Path) -> Path:
    """Copies file `path` out of `image` into the folder `into`; returns the copy."""
    container = _docker("create", image).stdout.decode().strip()
    try:
        tar = _docker("cp", f"{container}:{path}", "-").stdout
    finally:
        _docker("rm", container)
    with tarfile.open(fileobj=io.BytesIO(tar)) as files:
        files.extractall(into, filter="data")
    return into / Path(path).name


def versions(postgres_image: str, postgresql: str) -> dict[str, str]:
    """The versions of what runs in the containers, and each image's digest."""
    found: dict[str, str] = {}
    built = {entry.image: entry for entry in registry.entries().values()}  # java-virtual: java's image
    for entry in built.values():
        image = composefile.image_name(entry)
        with tempfile.TemporaryDirectory() as tmp:
            artifact = copy_out(image, program(image), Path(tmp))
            found |= manifest.build_versions(entry, artifact,
                                             ["docker", "run", "--rm", "--entrypoint", "java", image])
        found[f"image {image}"] = digest(image)
    return {**found, "postgresql": postgresql, f"image {postgres_image}": digest(postgres_image),
            "jmeter": manifest.jmeter_version()}
