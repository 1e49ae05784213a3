# Where things are kept: container images (ECR), benchmark results (S3), container logs
# (CloudWatch Logs) and the database password (SSM Parameter Store). All of it goes away with
# `make aws-down`: `make aws-bench` has already copied the results into results/runs/.

locals {
  # The services' images (services.yaml), each once: services may share one (java and
  # java-virtual), and one() refuses an image that two entries build from different Dockerfiles.
  service_dockerfiles = { for bank in values(local.bank_services) : bank.image => bank.dockerfile... }

  # ECR repository of each image that `make aws-push` builds, and its Dockerfile (context: repo root).
  images = merge(
    { for image, dockerfiles in local.service_dockerfiles : image => one(distinct(dockerfiles)) },
    {
      jmeter   = "jmeter/Dockerfile"
      gatling  = "gatling/Dockerfile"
      postgres = "infra/docker/postgres/Dockerfile"
    },
  )
}

resource "aws_ecr_repository" "image" {
  for_each = local.images

  name = "${var.name}/${each.key}"
  # `make aws-push` pushes :latest again after each change; runs record the digest they ran.
  image_tag_mutability = "MUTABLE"
  force_delete         = true

  image_scanning_configuration {
    scan_on_push = true
  }
}

resource "aws_ecr_lifecycle_policy" "image" {
  for_each = aws_ecr_repository.image

  repository = each.value.name
  policy = jsonencode({
    rules = [{
      rulePriority = 1
      description  = "keep the last 5 images"
      selection    = { tagStatus = "any", countType = "imageCountMoreThan", countNumber = 5 }
      action       = { type = "expire" }
    }]
  })
}

resource "aws_s3_bucket" "results" {
  bucket_prefix = "${var.name}-results-"
  # The results of every run are downloaded as soon as the run ends; the bucket is scratch.
  force_destroy = true
}

resource "aws_s3_bucket_public_access_block" "results" {
  bucket                  = aws_s3_bucket.results.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "results" {
  bucket = aws_s3_bucket.results.id

  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "results" {
  bucket = aws_s3_bucket.results.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

# One log group per host role; streams are named after the task family.
resource "aws_cloudwatch_log_group" "role" {
  for_each = local.hosts

  name              = "/ecs/${var.name}/${each.key}"
  retention_in_days = var.log_retention_days
}

resource "aws_ssm_parameter" "db_password" {
  name        = "/${var.name}/postgres-password"
  description = "Password of the bankbench PostgreSQL user"
  type        = "SecureString"
  value       = var.db_password
}
