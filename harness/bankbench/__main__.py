"""`python -m bankbench`: the command line of bankbench.cli.

See harness/README.md."""

import sys

from bankbench.cli import main

sys.exit(main())
