variable "name" {
  description = "Name of the stack: prefix of every resource name and value of the Stack tag."
  type        = string
  default     = "bankbench"

  validation {
    # Short and plain, because it ends up in bucket, role and target-group names.
    condition     = can(regex("^[a-z][a-z0-9-]{1,19}$", var.name))
    error_message = "name must be 2 to 20 lowercase letters, digits or dashes, starting with a letter."
  }
}

variable "region" {
  description = "AWS region. The prices in instances.csv (and so cost_per_hour_usd) are those of us-east-1."
  type        = string
  default     = "us-east-1"
}

variable "availability_zone" {
  description = "Availability zone of every host (one zone keeps latency low); null picks the first zone that offers all three instance types."
  type        = string
  default     = null
}

variable "service_instance_type" {
  description = "Instance type of the host of the service under test (the 2019 rematch used m5.large)."
  type        = string
  default     = "m5.large"

  validation {
    condition     = contains(local.allowed_types.service, var.service_instance_type)
    error_message = "service_instance_type must be one of ${join(", ", local.allowed_types.service)} (the roles column of instances.csv)."
  }
}

variable "jmeter_instance_type" {
  description = "Instance type of each load generator host: JMeter's controller and workers; Gatling runs on the controller's."
  type        = string
  default     = "m5.xlarge"

  validation {
    condition     = contains(local.allowed_types.jmeter, var.jmeter_instance_type)
    error_message = "jmeter_instance_type must be one of ${join(", ", local.allowed_types.jmeter)} (the roles column of instances.csv)."
  }
}

variable "postgres_instance_type" {
  description = "Instance type of the PostgreSQL host: a c5d, whose local NVMe disk holds the data."
  type        = string
  default     = "c5d.xlarge"

  validation {
    condition     = contains(local.allowed_types.postgres, var.postgres_instance_type)
    error_message = "postgres_instance_type must be one of ${join(", ", local.allowed_types.postgres)}, whose data disk is their instance-store NVMe (the roles column of instances.csv)."
  }
}

variable "jmeter_workers" {
  description = "Number of JMeter worker tasks, one host each, driven by one controller (JMeter distributed mode)."
  type        = number
  default     = 2

  validation {
    condition     = var.jmeter_workers >= 1 && var.jmeter_workers <= 10 && floor(var.jmeter_workers) == var.jmeter_workers
    error_message = "jmeter_workers must be a whole number from 1 to 10."
  }
}

variable "vpc_cidr" {
  description = "Address range of the VPC; the stack uses two /24 subnets of it."
  type        = string
  default     = "10.42.0.0/16"

  validation {
    condition     = can(cidrsubnet(var.vpc_cidr, 8, 1))
    error_message = "vpc_cidr must be an IPv4 range of /16 to /20."
  }
}

variable "db_password" {
  description = "Password of the PostgreSQL user, stored in SSM Parameter Store (scripts/up.py generates one)."
  type        = string
  sensitive   = true

  validation {
    condition     = length(var.db_password) >= 16
    error_message = "db_password must be at least 16 characters long."
  }
}

variable "enable_ssm_sessions" {
  description = "Let the hosts register with Systems Manager, so `aws ssm start-session` opens a shell without any inbound port."
  type        = bool
  default     = false
}

variable "shutdown_at" {
  description = "UTC time (RFC 3339) at which every auto-scaling group scales to zero, a guard against a forgotten stack; null for none. scripts/up.py sets it."
  type        = string
  default     = null

  validation {
    condition     = var.shutdown_at == null || can(formatdate("YYYY", var.shutdown_at))
    error_message = "shutdown_at must be an RFC 3339 time such as 2026-11-22T18:00:00Z."
  }
}

variable "log_retention_days" {
  description = "Days the container logs are kept in CloudWatch Logs."
  type        = number
  default     = 7
}

variable "ecs_ami_parameter" {
  description = "Public SSM parameter holding the ECS-optimized Amazon Linux 2023 AMI id."
  type        = string
  default     = "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"
}

variable "uploader_image" {
  description = "AWS CLI image of the sidecar that copies the load generator's results of a level to S3."
  type        = string
  default     = "public.ecr.aws/aws-cli/aws-cli:2.27.49"
}
