"""What is measured while a level runs, beside JMeter's samples: the processes' CPU and memory
(resources), the service's /metrics (scrape), CPU flame graphs, the manifest of what ran where."""
