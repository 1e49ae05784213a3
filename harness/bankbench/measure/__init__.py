"""What is measured while a level runs, beside JMeter's samples: CPU and memory of the processes
(resources), the service's own /metrics (scrape), CPU profiles as flame graphs, and the manifest
of what ran where."""
