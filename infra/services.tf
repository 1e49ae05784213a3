# The services under test, one task definition each. The aws environment starts one task per
# level with that level's pool size, so there is no ECS service here.

locals {
  # The registry of the services (their image and own environment), which the harness and
  # docker compose read too: a new service needs no change here. A service without an image
  # runs natively only, so AWS never sees it.
  bank_services = { for name, bank in yamldecode(file("${path.module}/../services.yaml")) : name => bank if try(bank.image, null) != null }

  # Where the services find PostgreSQL and listen. Pool size and acquire timeout are not here:
  # the aws environment passes both per level (bankbench.config.pool_env).
  bank_environment = {
    POSTGRES_HOST = local.postgres_host
    POSTGRES_PORT = tostring(local.ports.postgres)
    POSTGRES_USER = local.db.user
    POSTGRES_NAME = local.db.name
    PORT          = tostring(local.ports.service)
  }

  bank_tasks = {
    for service, bank in local.bank_services : service => {
      cpu           = local.task_size.service.cpu
      memory        = local.task_size.service.memory
      task_role_arn = null
      volumes       = {}
      containers = jsonencode([{
        name         = "bank"
        image        = local.image_url[bank.image]
        essential    = true
        cpu          = local.task_size.service.cpu
        memory       = local.task_size.service.memory
        portMappings = [{ containerPort = local.ports.service, hostPort = local.ports.service, protocol = "tcp" }]
        environment = [
          for name, value in merge(local.bank_environment, try(bank.environment, {})) : { name = name, value = tostring(value) }
        ]
        secrets          = local.db_password_secret
        ulimits          = local.nofile
        stopTimeout      = 15 # graceful shutdown finishes in-flight requests within 10 s
        logConfiguration = local.log_configuration[service]
      }])
    }
  }
}
