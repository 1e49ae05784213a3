"""`bankbench calibrate` (make calibrate): the load generator's calibration alone.

What JMeter drives on its CPUs for each load of a profile, against the calibration target
(bankbench.run.experiments.calibration); `bench` runs the same step first. Cached: only a load not
yet calibrated with these settings is measured, unless --force.

See docs/method.md#a-load-generator-that-is-never-the-bottleneck."""

import argparse
import os

from bankbench.commands.plan import add_profile_arguments, profile_from_args, with_base_rates
from bankbench.load.profiles import levels
from bankbench.machine import placement
from bankbench.run.experiments import calibration


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_profile_arguments(p)
    p.add_argument("--cpu-placement", choices=placement.MODES,
                   help=f"the run's CPU placement to calibrate for (default: {placement.DEFAULT} "
                        "where there are 2 CPUs or more)")
    p.add_argument("--force", action="store_true", help="measure again, even what is cached")


def main(args: argparse.Namespace) -> int:
    mode = args.cpu_placement or placement.default_mode()
    where = placement.plan(mode)
    affinity = os.sched_getaffinity(0)
    where.pin_harness()  # JMeter on the load generator's CPUs, as in a run
    try:
        calibration.calibrate(levels(with_base_rates(profile_from_args(args), args.rate, mode)), where,
                              force=args.force)
    finally:
        os.sched_setaffinity(0, affinity)
    return 0
