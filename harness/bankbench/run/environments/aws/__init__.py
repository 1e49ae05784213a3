"""The `aws` environment on the stack of infra/, and `bankbench aws up|push|down|cost`.

See docs/aws.md and infra/README.md."""
