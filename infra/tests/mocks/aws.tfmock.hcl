# Values the mocked AWS provider returns in place of random strings where the stack or the
# provider's own checks need realistic ones (ARNs, ids with their prefix, a region).

mock_data "aws_region" {
  defaults = { name = "us-east-1" }
}

mock_data "aws_partition" {
  defaults = { partition = "aws" }
}

mock_data "aws_default_tags" {
  defaults = { tags = { Project = "bankbench", Stack = "bankbench", ManagedBy = "terraform" } }
}

mock_data "aws_ssm_parameter" {
  defaults = { insecure_value = "ami-0123456789abcdef0" }
}

# Two zones: the first lacks c5d, as some real zones do.
mock_data "aws_ec2_instance_type_offerings" {
  defaults = {
    locations      = ["us-east-1a", "us-east-1a", "us-east-1a", "us-east-1b", "us-east-1b", "us-east-1b", "us-east-1b", "us-east-1b"]
    instance_types = ["m5.large", "m5.xlarge", "m5.2xlarge", "m5.large", "m5.xlarge", "m5.2xlarge", "c5d.xlarge", "c5d.2xlarge"]
  }
}

mock_resource "aws_iam_role" {
  defaults = { arn = "arn:aws:iam::123456789012:role/mock" }
}

mock_resource "aws_iam_instance_profile" {
  defaults = { arn = "arn:aws:iam::123456789012:instance-profile/mock" }
}

mock_resource "aws_launch_template" {
  defaults = { id = "lt-0123456789abcdef0", latest_version = 1 }
}

mock_resource "aws_autoscaling_group" {
  defaults = { arn = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:mock:autoScalingGroupName/mock" }
}

mock_resource "aws_s3_bucket" {
  defaults = { arn = "arn:aws:s3:::bankbench-results-mock", id = "bankbench-results-mock" }
}

mock_resource "aws_ssm_parameter" {
  defaults = { arn = "arn:aws:ssm:us-east-1:123456789012:parameter/bankbench/postgres-password" }
}

mock_resource "aws_service_discovery_service" {
  defaults = { arn = "arn:aws:servicediscovery:us-east-1:123456789012:service/srv-mock" }
}

mock_resource "aws_ecs_task_definition" {
  defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/mock:1" }
}

mock_resource "aws_ecs_cluster" {
  defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:cluster/bankbench", id = "arn:aws:ecs:us-east-1:123456789012:cluster/bankbench" }
}

mock_resource "aws_ecr_repository" {
  defaults = { repository_url = "123456789012.dkr.ecr.us-east-1.amazonaws.com/bankbench/mock" }
}

mock_resource "aws_vpc_endpoint" {
  defaults = { prefix_list_id = "pl-63a5400a" }
}
