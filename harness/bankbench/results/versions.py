"""The schema version of each run record, and the check every reader makes of it.

One schema: a reader takes a record of the version here or refuses it, saying what to do. The
manifest's `schema_version` versions the run folder, its level.json, money.json and verify.json
files with it (a key added to them would show in the summaries, which must rebuild as they are;
results.runs checks it as it reads a run); capacity.json, tuning.json, soak.json and pgwire.json
carry their own, as make startup's records do. `make migrate` (bankbench.results.migration) brings
run folders and records written before to these versions.

See results/LAYOUT.md#schema-versions."""

from pathlib import Path

from bankbench.errors import UserError

KEY = "schema_version"  # the first key of every versioned record
MANIFEST = 2  # manifest.json's: the run folder's, its level.json files' with it
CAPACITY = 1  # capacity.json's: every contender named, `design`, `in_turn` and `long_s` in every run
TUNING = 1  # tuning.json's: the duels' protocol (`paired`), `carried` and `not_searched` in every record
SOAK = 1  # soak.json's (its key `version` before every record had the same)
PGWIRE = 1  # pgwire.json's: every figure in every level, null where the run did not measure it
STARTUP = 1  # make startup's records' (results/startup/<stamp>.json)


def check(path: Path, document: dict, version: int) -> dict:
    """`document`, read from `path`, if it is of `version`; else a UserError that says what to do."""
    found = document.get(KEY)
    if found == version:
        return document
    todo = ("it was written by a newer harness: update this one" if isinstance(found, int) and found > version
            else "run `make migrate` to bring it to this version")
    raise UserError(f"{path} has {described(document)}, this harness reads version {version}: {todo}")


def described(document: dict) -> str:
    """A record's version in words: `schema_version 2`, or `no schema_version`."""
    return f"{KEY} {document[KEY]}" if KEY in document else f"no {KEY}"


def stamped(document: dict, version: int) -> dict:
    """`document` with `version` as its first key, as every writer puts it."""
    return {KEY: version, **{key: value for key, value in document.items() if key != KEY}}
