# The ECS cluster and its capacity: per host role one launch template, one auto-scaling group
# of fixed size and one capacity provider. Tasks name the capacity provider of their role, and
# each reserves (nearly) a whole host, so every role has its machines to itself.

locals {
  postgres_mount    = "/mnt/nvme"
  postgres_data_dir = "${local.postgres_mount}/pgdata"

  # Tags of the instances and volumes the groups launch (default_tags stop at the launch template).
  host_tags = { for role in keys(local.hosts) : role => merge(data.aws_default_tags.current.tags, { Name = "${var.name}-${role}", Role = role }) }

  # Task family -> host role: where the task runs and which log group it writes to. Every
  # service under test (services.yaml) runs on the service host.
  task_roles = merge({
    postgres          = "postgres"
    admin             = "postgres"
    jmeter-worker     = "jmeter"
    jmeter-controller = "jmeter"
    gatling           = "jmeter"
  }, { for service in keys(local.bank_services) : service => "service" })
  log_configuration = {
    for family, role in local.task_roles : family => {
      logDriver = "awslogs"
      options = {
        awslogs-group         = aws_cloudwatch_log_group.role[role].name
        awslogs-region        = data.aws_region.current.name
        awslogs-stream-prefix = family
      }
    }
  }
  image_url = { for image, repo in aws_ecr_repository.image : image => "${repo.repository_url}:latest" }
  # Sockets per process: thousands of connections on the load generators and the service.
  nofile = [{ name = "nofile", softLimit = 65536, hardLimit = 65536 }]
}

# Every task definition, by family: PostgreSQL and the admin task (database.tf), the services
# under test (services.tf), the JMeter worker (jmeter.tf), the load of a level by JMeter's
# controller or by Gatling (loadgen.tf).
resource "aws_ecs_task_definition" "this" {
  for_each = merge(local.database_tasks, local.bank_tasks, local.jmeter_tasks, local.load_tasks)

  family                   = "${var.name}-${each.key}"
  network_mode             = "awsvpc"
  requires_compatibilities = ["EC2"]
  cpu                      = each.value.cpu
  memory                   = each.value.memory
  execution_role_arn       = aws_iam_role.task_execution.arn
  task_role_arn            = each.value.task_role_arn
  container_definitions    = each.value.containers

  dynamic "volume" {
    for_each = each.value.volumes

    content {
      name      = volume.key
      host_path = volume.value
    }
  }
}

resource "aws_ecs_cluster" "main" {
  name = var.name

  setting {
    name  = "containerInsights"
    value = "enabled" # per-task CPU and memory, the metrics.csv of a level
  }
}

resource "aws_launch_template" "host" {
  for_each = local.hosts

  name                   = "${var.name}-${each.key}"
  image_id               = data.aws_ssm_parameter.ecs_ami.insecure_value
  instance_type          = each.value.instance_type
  vpc_security_group_ids = [aws_security_group.this["host"].id]
  update_default_version = true
  user_data = base64encode(templatefile("${path.module}/templates/user_data.sh.tftpl", {
    role        = each.key
    cluster     = aws_ecs_cluster.main.name
    format_nvme = each.key == "postgres"
    mount       = local.postgres_mount
    data_dir    = local.postgres_data_dir
  }))

  iam_instance_profile {
    arn = aws_iam_instance_profile.host.arn
  }

  # One-minute EC2 metrics: the machine_cpu_pct column of a level's metrics.csv.
  monitoring {
    enabled = true
  }

  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  block_device_mappings {
    device_name = "/dev/xvda"

    ebs {
      volume_size           = local.root_volume_gib
      volume_type           = "gp3"
      encrypted             = true
      delete_on_termination = true
    }
  }

  dynamic "tag_specifications" {
    for_each = ["instance", "volume", "network-interface"]

    content {
      resource_type = tag_specifications.value
      tags          = local.host_tags[each.key]
    }
  }
}

resource "aws_autoscaling_group" "host" {
  for_each = local.hosts

  name                = "${var.name}-${each.key}"
  min_size            = each.value.count
  max_size            = each.value.count
  desired_capacity    = each.value.count
  vpc_zone_identifier = [aws_subnet.private.id]
  health_check_type   = "EC2"
  # Destroy terminates the instances without waiting for their tasks to drain; and no
  # protect_from_scale_in, with which `terraform destroy` waits forever.
  force_delete = true

  launch_template {
    id      = aws_launch_template.host[each.key].id
    version = aws_launch_template.host[each.key].latest_version
  }

  dynamic "tag" {
    for_each = local.host_tags[each.key]

    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = false # the launch template tags the instances
    }
  }
}

# A guard against a forgotten stack: at shutdown_at every group scales to zero instances.
resource "aws_autoscaling_schedule" "shutdown" {
  for_each = var.shutdown_at == null ? {} : aws_autoscaling_group.host

  scheduled_action_name  = "${each.value.name}-shutdown"
  autoscaling_group_name = each.value.name
  start_time             = var.shutdown_at
  min_size               = 0
  max_size               = 0
  desired_capacity       = 0
}

resource "aws_ecs_capacity_provider" "host" {
  for_each = local.hosts

  name = "${var.name}-${each.key}"

  auto_scaling_group_provider {
    auto_scaling_group_arn = aws_autoscaling_group.host[each.key].arn
    # The group size is fixed by Terraform; ECS neither scales it nor holds its instances.
    managed_termination_protection = "DISABLED"
    managed_draining               = "DISABLED"

    managed_scaling {
      status = "DISABLED"
    }
  }
}

resource "aws_ecs_cluster_capacity_providers" "main" {
  cluster_name       = aws_ecs_cluster.main.name
  capacity_providers = [for provider in aws_ecs_capacity_provider.host : provider.name]
}

# The long-running services of a run: PostgreSQL (found through Cloud Map) and the JMeter workers.
# Both stay at zero tasks until `make aws-bench` scales them up for a run, and back down after it.
locals {
  ecs_services = {
    postgres = {
      task_definition = aws_ecs_task_definition.this["postgres"].arn
      role            = "postgres"
      count           = 1
      registry        = aws_service_discovery_service.postgres.arn
    }
    jmeter-worker = {
      task_definition = aws_ecs_task_definition.this["jmeter-worker"].arn
      role            = "jmeter"
      count           = var.jmeter_workers
      registry        = null
    }
  }
}

resource "aws_ecs_service" "this" {
  for_each = local.ecs_services

  name            = each.key
  cluster         = aws_ecs_cluster.main.id
  task_definition = each.value.task_definition
  desired_count   = 0
  # Each group has exactly one host per task: replace a task in place, never add one first
  # (and never run two PostgreSQL tasks on one data directory).
  deployment_minimum_healthy_percent = 0
  deployment_maximum_percent         = 100
  force_delete                       = true

  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.host[each.value.role].name
    weight            = 1
  }

  network_configuration {
    subnets         = [aws_subnet.private.id]
    security_groups = [aws_security_group.this[each.value.role].id]
  }

  dynamic "service_registries" {
    for_each = each.value.registry == null ? [] : [each.value.registry]

    content {
      registry_arn = service_registries.value
    }
  }

  lifecycle {
    ignore_changes = [desired_count]
  }

  depends_on = [aws_ecs_cluster_capacity_providers.main]
}
