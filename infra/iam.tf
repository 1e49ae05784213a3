# Least privilege: the hosts run the ECS agent; the execution role pulls images, ships logs and
# reads the database password; only the task that runs a level's load (JMeter's controller or
# Gatling, loadgen.tf) has a task role, to write its results.
# The service under test, PostgreSQL and the workers call no AWS API at all.

data "aws_partition" "current" {}

locals {
  aws_policy = "arn:${data.aws_partition.current.partition}:iam::aws:policy"

  host_policies = merge(
    { ecs = "${local.aws_policy}/service-role/AmazonEC2ContainerServiceforEC2Role" },
    var.enable_ssm_sessions ? { ssm = "${local.aws_policy}/AmazonSSMManagedInstanceCore" } : {},
  )

  # Trust policies: who may assume a role (EC2 hosts or ECS tasks).
  trust = {
    for principal in ["ec2", "ecs-tasks"] : principal => jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "${principal}.amazonaws.com" } }]
    })
  }
}

resource "aws_iam_role" "host" {
  name               = "${var.name}-host"
  assume_role_policy = local.trust["ec2"]
}

resource "aws_iam_role_policy_attachment" "host" {
  for_each = local.host_policies

  role       = aws_iam_role.host.name
  policy_arn = each.value
}

resource "aws_iam_instance_profile" "host" {
  name = "${var.name}-host"
  role = aws_iam_role.host.name
}

resource "aws_iam_role" "task_execution" {
  name               = "${var.name}-task-execution"
  assume_role_policy = local.trust["ecs-tasks"]
}

resource "aws_iam_role_policy_attachment" "task_execution" {
  role       = aws_iam_role.task_execution.name
  policy_arn = "${local.aws_policy}/service-role/AmazonECSTaskExecutionRolePolicy"
}

# ECS injects the password as POSTGRES_PASSWORD; the parameter uses the AWS-managed SSM key,
# which needs no kms:Decrypt grant.
resource "aws_iam_role_policy" "read_db_password" {
  name = "read-db-password"
  role = aws_iam_role.task_execution.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "ssm:GetParameters", Resource = aws_ssm_parameter.db_password.arn }]
  })
}

resource "aws_iam_role" "load_results" {
  name               = "${var.name}-load-results"
  assume_role_policy = local.trust["ecs-tasks"]
}

resource "aws_iam_role_policy" "write_results" {
  name = "write-results"
  role = aws_iam_role.load_results.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "s3:PutObject", Resource = "${aws_s3_bucket.results.arn}/runs/*" }]
  })
}
