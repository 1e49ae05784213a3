"""A run's figures from its raw files, read through results/: summaries with intervals, the
spread between repeats, the differences between two runs, the verdict's figures, and what the
CPU per request projects to on AWS instances. Figures only: publish/ words them.
"""
