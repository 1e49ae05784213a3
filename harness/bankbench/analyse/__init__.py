"""A run's figures from its raw files: summaries with intervals, the spread between repeats, the
comparison of two runs, the narrative's sentences, and what the CPU per request projects to on
AWS instances.
"""
