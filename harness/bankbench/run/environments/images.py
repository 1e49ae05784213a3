"""What the containers of ENV=compose run: their images' digests and versions.

Each image's digest and the versions read inside it (the build info of the program its entrypoint
starts, its own `java -version`), not the host's.

See docs/benchmarks.md#envcompose and results/LAYOUT.md#manifestjson."""

import io
import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from bankbench import registry
from bankbench.errors import UserError
from bankbench.measure import manifest
from bankbench.run.environments import composefile


def _docker(*args: str) -> bytes:
    out = subprocess.run(["docker", *args], capture_output=True)
    if out.returncode != 0:
        raise UserError(f"docker {' '.join(args)} failed: {out.stderr.decode().strip()}")
    return out.stdout


def digest(image: str) -> str:
    """The image's content digest (its ID: local builds have no registry digest)."""
    return _docker("image", "inspect", "--format", "{{.Id}}", image).decode().strip()


def program(image: str) -> str:
    """The file the image's entrypoint runs: its first word, or the jar after -jar."""
    entrypoint = json.loads(_docker("image", "inspect", "--format", "{{json .Config.Entrypoint}}",
                                    image))
    return entrypoint[entrypoint.index("-jar") + 1] if "-jar" in entrypoint else entrypoint[0]


def present(image: str) -> bool:
    """Whether an engine here holds `image` (by name or name@digest)."""
    return bool(shutil.which("docker")) and subprocess.run(
        ["docker", "image", "inspect", image], capture_output=True).returncode == 0


def contents(entry: registry.Entry, image: str) -> dict[str, str]:
    """The versions inside the image of registry `entry`, its program copied out of a container."""
    path = program(image)
    container = _docker("create", image).decode().strip()
    try:
        tar = _docker("cp", f"{container}:{path}", "-")
    finally:
        _docker("rm", container)
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(fileobj=io.BytesIO(tar)) as files:
        files.extractall(tmp, filter="data")
        artifact = Path(tmp) / Path(path).name
        return manifest.build_versions(entry, artifact, ["docker", "run", "--rm", "--entrypoint", "java", image])


def versions(postgres_image: str, postgresql: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in registry.by_image().values():  # java-virtual runs java's image
        image = composefile.image_name(entry)
        found |= contents(entry, image)
        found[f"image {image}"] = digest(image)
    return {**found, "postgresql": postgresql, f"image {postgres_image}": digest(postgres_image),
            "jmeter": manifest.jmeter_version()}
