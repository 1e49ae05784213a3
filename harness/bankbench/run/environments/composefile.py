"""docker-compose.yml's services, written from services.yaml (make compose-file).

They go between its two markers (the rest is hand-edited). A test checks the committed file is what
this writes.

See docs/benchmarks.md#envcompose."""

import json
from pathlib import Path

import yaml

from bankbench import config, paths, registry
from bankbench.errors import UserError

BEGIN = "  # --- the services of services.yaml: written by `make compose-file`, do not edit ---\n"
END = "  # --- end of the services of services.yaml ---\n"


def service_name(name: str) -> str:
    return f"bank-{name}"


def postgres_image(path: Path = paths.COMPOSE) -> str:
    return yaml.safe_load(path.read_text())["services"]["postgres"]["image"]


def image_name(entry: registry.Entry) -> str:
    return f"bankbench/{entry.image}"


def block(entry: registry.Entry, builds: bool) -> str:
    """The service of `entry`; `builds` for the first service of its image (the others reuse it)."""
    lines = [f"  {service_name(entry.name)}:", "    <<: *service", f"    image: {image_name(entry)}"]
    if builds:
        lines += ["    build:", "      context: .", f"      dockerfile: {entry.dockerfile}",
                  "      args: *base-images"]
    lines += [f'    ports: ["127.0.0.1:{entry.port}:{config.DEFAULT_PORT}"]']
    if entry.environment:
        lines += ["    environment:", "      <<: *service-env"]
        lines += [f"      {key}: {json.dumps(value)}" for key, value in entry.environment.items()]
    return "\n".join(lines) + "\n"


def render(text: str) -> str:
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise UserError(f"docker-compose.yml needs the markers {BEGIN.strip()!r} and {END.strip()!r} once each")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    first = registry.by_image()  # the services without an image run natively only
    blocks = [block(e, e == first[e.image]) for e in registry.entries().values() if e.image]
    return head + BEGIN + "\n".join(blocks) + END + tail


def write(path: Path = paths.COMPOSE) -> bool:
    text = path.read_text()
    if (rendered := render(text)) != text:
        path.write_text(rendered)
    return rendered != text
