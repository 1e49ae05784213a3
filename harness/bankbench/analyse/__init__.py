"""The analysis floor: a run's figures, no words.

From a run's raw files, read through results/: intervals, spreads, differences, the verdict's
figures and their AWS projection. Figures only: publish/ shows them, as tables and charts.

See harness/README.md and docs/method.md#how-to-read-the-figures."""
