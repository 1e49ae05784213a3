import sys

from bankbench.cli import main

sys.exit(main())
