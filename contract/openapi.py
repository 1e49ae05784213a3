"""Checks HTTP responses against api/openapi.yaml, the contract of both services."""

from __future__ import annotations

import re
from functools import cache

import httpx
import yaml
from jsonschema import Draft202012Validator

from bankbench import paths


@cache
def spec() -> dict:
    return yaml.safe_load(paths.OPENAPI.read_text())


def _template(path: str) -> str:
    """The spec's path template that `path` matches (a literal segment beats a parameter)."""
    segments = path.split("?")[0].rstrip("/").split("/") or [""]
    best = None
    for template in spec()["paths"]:
        parts = template.rstrip("/").split("/")
        if len(parts) != len(segments):
            continue
        pairs = list(zip(parts, segments, strict=True))
        if not all(p == s or re.fullmatch(r"\{\w+\}", p) for p, s in pairs):
            continue
        literal = sum(p == s for p, s in pairs)
        if best is None or literal > best[0]:
            best = (literal, template)
    return best[1] if best else ""


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        target = spec()
        for key in node["$ref"].removeprefix("#/").split("/"):
            target = target[key]
        node = target
    return node


def check(resp: httpx.Response) -> None:
    """Fails unless the response is one the contract documents for its request."""
    template = _template(resp.request.url.path)
    operation = spec()["paths"].get(template, {}).get(resp.request.method.lower())
    if resp.status_code == 200 and operation and "text/plain" in _resolve(
            operation["responses"]["200"])["content"]:  # GET /metrics
        assert resp.headers.get("content-type", "").startswith("text/plain"), resp.headers
        return
    assert resp.headers.get("content-type") == "application/json", resp.headers
    body = resp.json()
    if operation is None:  # unknown route or method: the generic error
        assert resp.status_code in (404, 405), resp.status_code
        schema = spec()["components"]["schemas"]["Error"]
    else:
        documented = operation["responses"]
        assert str(resp.status_code) in documented, (
            f"{resp.request.method} {template}: {resp.status_code} is not in the contract")
        response = _resolve(documented[str(resp.status_code)])
        schema = response["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": spec()["components"]})
    errors = [e.message for e in validator.iter_errors(body)]
    assert not errors, f"{resp.request.method} {resp.request.url.path} -> {body}: {errors}"
