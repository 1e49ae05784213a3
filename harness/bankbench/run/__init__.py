"""A benchmark run: the runner drives an environment (native, compose or aws) level by level,
with the load, faults (chaos) and measurements, and writes results/runs/<run>/.
"""
