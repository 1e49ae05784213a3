"""A benchmark run: the runner (runner.py) drives one environment (environments/: native,
compose, aws) level by level, with the experiments a run makes besides the levels' load
(experiments/: the load generator's calibration, the warm-up, faults, the capacity search), and
writes results/runs/<run>/.
"""
