# Hosts: instance type and count per role, the PostgreSQL host's NVMe disk, task sizes; the
# services' tasks and images.

mock_provider "aws" {
  source = "./tests/mocks"
}

variables {
  db_password = "a-test-password-of-some-length"
}

run "instance_type_per_role" {
  assert {
    condition     = aws_launch_template.host["service"].instance_type == "m5.large"
    error_message = "the service under test must run on an m5.large"
  }
  assert {
    condition     = aws_launch_template.host["jmeter"].instance_type == "m5.xlarge"
    error_message = "JMeter must run on m5.xlarge hosts"
  }
  assert {
    condition     = aws_launch_template.host["postgres"].instance_type == "c5d.xlarge"
    error_message = "PostgreSQL must run on a c5d.xlarge by default"
  }
  assert {
    condition     = aws_launch_template.host["service"].image_id == "ami-0123456789abcdef0"
    error_message = "hosts must boot the AMI of the public ECS parameter"
  }
}

run "one_jmeter_host_per_worker_plus_the_controller" {
  variables {
    jmeter_workers = 5
  }

  assert {
    condition     = aws_autoscaling_group.host["jmeter"].desired_capacity == 6 && aws_autoscaling_group.host["jmeter"].max_size == 6
    error_message = "5 workers need 6 JMeter hosts (one controller)"
  }
  assert {
    condition     = output.ecs_services["jmeter-worker"] == 5 && output.jmeter_workers == 5
    error_message = "the worker service must run one task per worker"
  }
  assert {
    condition     = aws_autoscaling_group.host["service"].desired_capacity == 1 && aws_autoscaling_group.host["postgres"].desired_capacity == 1
    error_message = "one service host and one PostgreSQL host"
  }
}

run "postgres_host_formats_and_mounts_its_nvme_disk" {
  assert {
    condition = alltrue([
      for fragment in ["Amazon EC2 NVMe Instance Storage", "mkfs.xfs -f \"$disk\"", "mount /mnt/nvme", "mkdir -p /mnt/nvme/pgdata", "/etc/fstab"] :
      strcontains(base64decode(aws_launch_template.host["postgres"].user_data), fragment)
    ])
    error_message = "the PostgreSQL host must format and mount its instance-store disk"
  }
  assert {
    # The mount comes before the host joins the cluster, so no task lands on a host without it.
    condition = (
      strcontains(base64decode(aws_launch_template.host["postgres"].user_data), "ECS_CLUSTER=bankbench")
      && length(split("ECS_CLUSTER", base64decode(aws_launch_template.host["postgres"].user_data))[0]) > length(split("mount /mnt/nvme", base64decode(aws_launch_template.host["postgres"].user_data))[0])
    )
    error_message = "the PostgreSQL host must join the cluster after mounting the disk"
  }
  assert {
    condition     = !strcontains(base64decode(aws_launch_template.host["service"].user_data), "mkfs") && strcontains(base64decode(aws_launch_template.host["service"].user_data), "ECS_CLUSTER=bankbench")
    error_message = "other hosts only join the cluster"
  }
}

run "postgres_task_keeps_its_data_on_the_nvme_host_path" {
  assert {
    condition     = one(aws_ecs_task_definition.this["postgres"].volume).host_path == "/mnt/nvme/pgdata"
    error_message = "the PostgreSQL task must mount the NVMe directory of its host"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this["postgres"].container_definitions)[0].mountPoints[0] == { sourceVolume = "pgdata", containerPath = "/var/lib/postgresql/data" }
    error_message = "the host directory must be PostgreSQL's data directory"
  }
}

run "tasks_reserve_their_whole_host" {
  variables {
    postgres_instance_type = "c5d.2xlarge"
  }

  assert {
    condition     = aws_ecs_task_definition.this["go"].cpu == "2048" && aws_ecs_task_definition.this["go"].memory == "7168"
    error_message = "the service task must reserve the 2 vCPUs and 7/8 of the memory of an m5.large"
  }
  assert {
    condition     = aws_ecs_task_definition.this["postgres"].cpu == "7936" && aws_ecs_task_definition.this["postgres"].memory == "14080"
    error_message = "PostgreSQL must reserve its c5d.2xlarge, less room for the admin task"
  }
  assert {
    condition = alltrue(flatten([
      for family in ["jmeter-controller", "gatling"] : [
        for container in jsondecode(aws_ecs_task_definition.this[family].container_definitions) :
        container.cpu > 0 && container.memory > 0
      ]
    ]))
    error_message = "every container must have its CPU and memory set"
  }
}

run "cost_per_hour_follows_the_hosts" {
  variables {
    jmeter_workers = 1
  }

  assert {
    # m5.large + 2 x m5.xlarge + c5d.xlarge at the prices of instances.csv + NAT and its address + 4 x 30 GiB gp3
    condition = abs(output.cost_per_hour_usd - (
      sum([for row in csvdecode(file("instances.csv")) : tonumber(row.usd_per_hour) * lookup({ "m5.large" = 1, "m5.xlarge" = 2, "c5d.xlarge" = 1 }, row.type, 0)])
      + 0.05 + 4 * 30 * 0.08 / 730
    )) < 0.0001
    error_message = "cost_per_hour_usd must add the hosts at the prices of instances.csv, the NAT gateway and the volumes"
  }
}

run "virtual_threads_only_for_java_virtual" {
  assert {
    condition = (
      contains(jsondecode(aws_ecs_task_definition.this["java-virtual"].container_definitions)[0].environment, { name = "VIRTUAL_THREADS", value = "true" })
      && contains(jsondecode(aws_ecs_task_definition.this["java"].container_definitions)[0].environment, { name = "VIRTUAL_THREADS", value = "false" })
    )
    error_message = "java-virtual must set VIRTUAL_THREADS=true, java false"
  }
}

# The expected services come from the registry (services.yaml, one level above infra/ where the
# tests run), so a new service needs no change here.
run "a_task_and_an_image_per_service_of_the_registry" {
  assert {
    condition     = toset(keys(aws_ecs_task_definition.this)) == setunion(["postgres", "admin", "jmeter-worker", "jmeter-controller", "gatling"], keys(yamldecode(file("../services.yaml"))))
    error_message = "one task family per service of services.yaml, besides PostgreSQL, admin, JMeter and Gatling"
  }
  assert {
    condition = alltrue([
      for service, bank in yamldecode(file("../services.yaml")) :
      jsondecode(aws_ecs_task_definition.this[service].container_definitions)[0].image == "${aws_ecr_repository.image[bank.image].repository_url}:latest"
      && jsondecode(aws_ecs_task_definition.this[service].container_definitions)[0].logConfiguration.options["awslogs-group"] == aws_cloudwatch_log_group.role["service"].name
    ])
    error_message = "each service must run its image of services.yaml and log to the service host's group"
  }
  assert {
    condition = (
      toset(keys(output.ecr_repositories)) == setunion(["jmeter", "gatling", "postgres"], [for bank in yamldecode(file("../services.yaml")) : bank.image])
      && alltrue([for bank in yamldecode(file("../services.yaml")) : output.ecr_repositories[bank.image].dockerfile == bank.dockerfile])
    )
    error_message = "ECR must hold the image of each service of services.yaml, with its Dockerfile, and PostgreSQL's, JMeter's and Gatling's"
  }
}

run "services_keep_their_own_pool_defaults" {
  assert {
    condition = alltrue(flatten([
      for service in keys(yamldecode(file("../services.yaml"))) : [
        for variable in jsondecode(aws_ecs_task_definition.this[service].container_definitions)[0].environment :
        !contains(["POSTGRES_CONNECTIONS_SIZE", "POSTGRES_ACQUIRE_TIMEOUT_MS"], variable.name)
      ]
    ]))
    error_message = "pool size and acquire timeout are the services' own defaults; the driver sets the pool size per level"
  }
}

# The load of a level runs in the task of the profile's generator (profiles.toml `generator`).
# The mock gives every repository one URL: tests/emulator.py tells the images apart.
run "each_load_generator_runs_its_own_image" {
  assert {
    condition = (
      jsondecode(aws_ecs_task_definition.this["gatling"].container_definitions)[0].image == "${aws_ecr_repository.image["gatling"].repository_url}:latest"
      && jsondecode(aws_ecs_task_definition.this["jmeter-controller"].container_definitions)[0].image == "${aws_ecr_repository.image["jmeter"].repository_url}:latest"
      && output.ecr_repositories["gatling"].dockerfile == "gatling/Dockerfile"
    )
    error_message = "Gatling's task must run the image of gatling/Dockerfile, JMeter's controller JMeter's"
  }
  assert {
    condition = alltrue([
      for family, generator in { gatling = "gatling", jmeter-controller = "jmeter" } :
      jsondecode(aws_ecs_task_definition.this[family].container_definitions)[0].name == generator
      && jsondecode(aws_ecs_task_definition.this[family].container_definitions)[1].name == "upload"
      && jsondecode(aws_ecs_task_definition.this[family].container_definitions)[1].dependsOn == [{ containerName = generator, condition = "COMPLETE" }]
      && jsondecode(aws_ecs_task_definition.this[family].container_definitions)[0].logConfiguration.options["awslogs-group"] == aws_cloudwatch_log_group.role["jmeter"].name
    ])
    error_message = "each load task must upload its generator's results once it has ended, and log to the load generator's group"
  }
  assert {
    condition = (
      jsondecode(aws_ecs_task_definition.this["gatling"].container_definitions)[0].command == ["run"]
      && jsondecode(aws_ecs_task_definition.this["jmeter-controller"].container_definitions)[0].command == ["controller"]
    )
    error_message = "Gatling's entrypoint must run the load itself, JMeter's drive the workers"
  }
}
