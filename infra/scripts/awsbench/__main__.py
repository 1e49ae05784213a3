import sys

from awsbench.cli import main

sys.exit(main())
