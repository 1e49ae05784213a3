"""`bankbench migrate [FOLDER ...]` (make migrate): run folders brought to this harness's schema.

Every run folder under each FOLDER (default results/: the runs and the experiments' folders beside
them, and make startup's records) brought once to the schema versions every reader requires
(bankbench.results.migration); it prints the files it rewrote. A second migration rewrites nothing.

See results/LAYOUT.md#schema-versions."""

import argparse
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.results import migration


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folders", nargs="*", type=Path, metavar="FOLDER",
                        help=f"run folders, or folders holding them (default: {paths.RESULTS})")


def main(args: argparse.Namespace) -> int:
    folders = args.folders or [paths.RESULTS]
    run_dirs = [run_dir for folder in folders for run_dir in migration.run_folders(folder)]
    if not run_dirs:
        raise UserError(f"no run folder (one with a manifest.json) under {', '.join(map(str, folders))}")
    rewritten = 0
    for run_dir in run_dirs:
        if names := migration.migrate_run(run_dir):
            print(f"{run_dir}: {', '.join(names)}")
            rewritten += 1
    if not args.folders:
        for path in migration.migrate_startups():
            print(f"{path}: stamped")
    print(f"{rewritten} of {len(run_dirs)} run folders migrated; the others were of this schema already")
    return 0
