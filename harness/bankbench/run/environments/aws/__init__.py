"""The `aws` environment: the stack of infra/ (Terraform, ECS, ECR, S3, CloudWatch) driven by the
runner like the local ones, and the plumbing of `bankbench aws up|push|down|cost`.
"""
