"""What a run does besides a level's load: calibration, warm-up, chaos, and the searches of
`make capacity` (capacity_search, bisection) and `make tune` (tuning, sweep)."""
