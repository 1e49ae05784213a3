# PostgreSQL 15 with the shared schema and settings (db/schema.sql, db/postgresql.conf, baked
# into infra/docker/postgres/Dockerfile), its data on the host's NVMe disk; and the one-off
# admin task that resets the schema and runs the money check between levels.

locals {
  db = { name = "bank", user = "postgres" }

  db_password_secret = [{ name = "POSTGRES_PASSWORD", valueFrom = aws_ssm_parameter.db_password.arn }]

  database_tasks = {
    postgres = {
      cpu           = local.task_size.postgres.cpu
      memory        = local.task_size.postgres.memory
      task_role_arn = null
      volumes       = { pgdata = local.postgres_data_dir }
      containers = jsonencode([{
        name         = "postgres"
        image        = local.image_url["postgres"]
        essential    = true
        cpu          = local.task_size.postgres.cpu
        memory       = local.task_size.postgres.memory
        portMappings = [{ containerPort = local.ports.postgres, hostPort = local.ports.postgres, protocol = "tcp" }]
        environment = [
          { name = "POSTGRES_DB", value = local.db.name },
          { name = "POSTGRES_USER", value = local.db.user },
        ]
        secrets     = local.db_password_secret
        mountPoints = [{ sourceVolume = "pgdata", containerPath = "/var/lib/postgresql/data" }]
        # Docker's default 64 MB /dev/shm is too small for PostgreSQL's dynamic shared memory.
        linuxParameters = { sharedMemorySize = 1024 }
        ulimits         = local.nofile
        healthCheck = {
          command     = ["CMD", "bankbench-ready"] # the image's check: the real server, over TCP
          interval    = 5
          timeout     = 3
          retries     = 5
          startPeriod = 30
        }
        stopTimeout      = 60 # time for the shutdown checkpoint
        logConfiguration = local.log_configuration["postgres"]
      }])
    }

    # psql with the image's copy of db/schema.sql; the aws environment gives the command of
    # each run (reset, or SQL as text: settings, hot accounts, money check) and reads its log.
    admin = {
      cpu           = local.admin_task.cpu
      memory        = local.admin_task.memory
      task_role_arn = null
      volumes       = {}
      containers = jsonencode([{
        name      = "admin"
        image     = local.image_url["postgres"]
        essential = true
        cpu       = local.admin_task.cpu
        memory    = local.admin_task.memory
        command   = ["psql", "--version"]
        environment = [
          { name = "PGHOST", value = local.postgres_host },
          { name = "PGDATABASE", value = local.db.name },
          { name = "PGUSER", value = local.db.user },
        ]
        secrets          = [{ name = "PGPASSWORD", valueFrom = aws_ssm_parameter.db_password.arn }]
        logConfiguration = local.log_configuration["admin"]
      }])
    }
  }
}
