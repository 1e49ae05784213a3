# bankbench on AWS ECS: one dedicated EC2 host per role, as in the 2019 rematch. The service
# under test, PostgreSQL and the JMeter workers each get their own auto-scaling group and
# capacity provider, so a task of one role never shares a machine with another role.

provider "aws" {
  region = var.region

  # Every resource carries these tags: `aws-down` and the cost explorer find the stack by them.
  default_tags {
    tags = {
      Project   = "bankbench"
      Stack     = var.name
      ManagedBy = "terraform"
    }
  }
}

data "aws_region" "current" {}

data "aws_default_tags" "current" {}

# The ECS-optimized Amazon Linux 2023 image, resolved at plan time from its public parameter.
data "aws_ssm_parameter" "ecs_ami" {
  name = var.ecs_ami_parameter
}

locals {
  # The three host roles: instance type and how many hosts of it. The load generator's role
  # (jmeter) has one host per JMeter worker plus one for the task that runs a level's load
  # (loadgen.tf): JMeter's controller, so that its result collection never competes with load
  # generation, or Gatling, which needs no workers.
  hosts = {
    postgres = { instance_type = var.postgres_instance_type, count = 1 }
    service  = { instance_type = var.service_instance_type, count = 1 }
    jmeter   = { instance_type = var.jmeter_instance_type, count = var.jmeter_workers + 1 }
  }

  namespace     = "${var.name}.internal"
  postgres_host = "${aws_service_discovery_service.postgres.name}.${local.namespace}"
}
