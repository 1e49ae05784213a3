"""A run's figures from its raw files, read through results/: intervals, spreads, differences,
the verdict's figures and their AWS projection. Figures only: publish/ words them."""
