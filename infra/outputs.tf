# Everything the scripts in aws environment (harness/bankbench/run/environments/aws/) needs; read
# with `terraform output -json`.

output "region" {
  description = "AWS region of the stack."
  value       = data.aws_region.current.name
}

output "cost_per_hour_usd" {
  description = "Estimated cost of the running stack per hour, on-demand us-east-1 prices of instances.csv."
  value       = local.cost_per_hour_usd
}

output "hosts" {
  description = "Per host role: instance type, number of hosts, auto-scaling group and capacity provider."
  value = {
    for role, host in local.hosts : role => {
      instance_type      = host.instance_type
      count              = host.count
      autoscaling_group  = aws_autoscaling_group.host[role].name
      capacity_provider  = aws_ecs_capacity_provider.host[role].name
      cpu_units_per_task = local.task_size[role].cpu
    }
  }
}

output "cluster_name" {
  description = "Name of the ECS cluster."
  value       = aws_ecs_cluster.main.name
}

output "subnet_id" {
  description = "Private subnet in which every task runs."
  value       = aws_subnet.private.id
}

output "security_group_ids" {
  description = "Security group of each task role (postgres, service, jmeter, admin) and of the hosts."
  value       = { for role, group in aws_security_group.this : role => group.id }
}

output "task_definitions" {
  description = "Task definition ARN of each task family: postgres, admin, each service of services.yaml, jmeter-worker, and the load of a level: jmeter-controller, gatling."
  value       = { for family, task in aws_ecs_task_definition.this : family => task.arn }
}

output "ecs_services" {
  description = "ECS services that the aws environment scales up for a run and down after it, with the count it runs."
  value       = { for name, service in aws_ecs_service.this : name => local.ecs_services[name].count }
}

output "jmeter_workers" {
  description = "Number of JMeter worker tasks."
  value       = var.jmeter_workers
}

output "service_port" {
  description = "HTTP port of the service under test."
  value       = local.ports.service
}

output "log_groups" {
  description = "CloudWatch log group of each host role."
  value       = { for role, group in aws_cloudwatch_log_group.role : role => group.name }
}

output "results_bucket" {
  description = "S3 bucket receiving the raw results of each run under runs/<run>/."
  value       = aws_s3_bucket.results.id
}

output "ecr_repositories" {
  description = "ECR repository URL of each image, with the Dockerfile that builds it (context: repository root)."
  value       = { for image, repo in aws_ecr_repository.image : image => { url = repo.repository_url, dockerfile = local.images[image] } }
}

output "db_password_parameter" {
  description = "SSM parameter holding the PostgreSQL password."
  value       = aws_ssm_parameter.db_password.name
}

output "postgresql" {
  description = "How the services reach PostgreSQL, and where its data lives on the host."
  value = {
    host     = local.postgres_host
    port     = local.ports.postgres
    database = local.db.name
    user     = local.db.user
    data_dir = local.postgres_data_dir
  }
}
