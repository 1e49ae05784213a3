"""A run's figures from its raw files: summaries with intervals, the spread between repeats, the
comparison of two runs, and the narrative's sentences.
"""
