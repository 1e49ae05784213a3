"""awsbench: deploy bankbench to AWS ECS, run its benchmark profiles there, tear it down.

Run as `python -m awsbench VERB` from infra/.venv-tools (the make targets aws-* do).
"""
