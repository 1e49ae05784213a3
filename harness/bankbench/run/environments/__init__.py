"""Where a benchmark runs: what the runner asks of every environment (interface), the two of this
machine (native, compose, and what they share: local; compose's images and docker-compose.yml:
images, composefile) and AWS ECS (aws/)."""
