# The services under test: bank-go, bank-java, and bank-java on virtual threads (the same image
# with VIRTUAL_THREADS=true). The benchmark driver starts one task per level with that level's
# pool size, so there is no ECS service here: just the three task definitions.

locals {
  bank_services = {
    go           = { image = "bank-go", environment = {} }
    java         = { image = "bank-java", environment = { VIRTUAL_THREADS = "false" } }
    java-virtual = { image = "bank-java", environment = { VIRTUAL_THREADS = "true" } }
  }

  # The configuration both services read, with their defaults; the driver overrides
  # POSTGRES_CONNECTIONS_SIZE per level.
  bank_environment = {
    POSTGRES_HOST               = local.postgres_host
    POSTGRES_PORT               = tostring(local.ports.postgres)
    POSTGRES_USER               = local.db.user
    POSTGRES_NAME               = local.db.name
    POSTGRES_CONNECTIONS_SIZE   = "95"
    POSTGRES_ACQUIRE_TIMEOUT_MS = "3000"
    PORT                        = tostring(local.ports.service)
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
          for name, value in merge(local.bank_environment, bank.environment) : { name = name, value = value }
        ]
        secrets          = local.db_password_secret
        ulimits          = local.nofile
        stopTimeout      = 15 # graceful shutdown finishes in-flight requests within 10 s
        logConfiguration = local.log_configuration[service]
      }])
    }
  }
}
