"""What a run does besides a level's load: the load generator's calibration, the warm-up of a warm
start, faults struck mid-level (chaos), and `make capacity`'s search for the highest rate and the
smallest heap (capacity_search, over the bisections of bisection), and `make tune`'s sweeps of
each service's settings at its capacity rate (tuning, over the choices of sweep)."""
