# The task that runs a level's load, one per level, for each load generator a profile may name
# (profiles.toml `generator`; the aws environment, harness/bankbench/run/environments/aws/, starts
# the one of the level's): JMeter's controller, which drives the workers of jmeter.tf, or
# Gatling (gatling/), which runs the whole load in its one JVM. Either reserves a host of the
# load generator's role, the one that no JMeter worker holds. The generator writes its results
# into a scratch volume, and an uploader sidecar copies them to S3 once it has ended.

locals {
  uploader = { cpu = 256, memory = 256 }
  # The generator's container: the task's host less the uploader.
  load_container = {
    cpu    = local.task_size.jmeter.cpu - local.uploader.cpu
    memory = local.task_size.jmeter.memory - local.uploader.memory
  }

  # Per task family: the generator's container, its image, the role its entrypoint plays and
  # what it gets besides the properties of the level (which the aws environment passes).
  load_generators = {
    jmeter-controller = {
      container      = "jmeter"
      image          = local.image_url["jmeter"]
      command        = ["controller"]
      environment    = [{ name = "HEAP", value = "-Xms${local.controller_heap_mib}m -Xmx${local.controller_heap_mib}m" }]
      systemControls = [] # the workers connect to the service, not the controller
    }
    gatling = {
      container      = "gatling"
      image          = local.image_url["gatling"]
      command        = ["run"]
      environment    = [] # GATLING_JVM comes per level: the harness's (harness/bankbench/load/gatling.py)
      systemControls = local.ephemeral_ports
    }
  }

  load_tasks = {
    for family, generator in local.load_generators : family => {
      cpu           = local.task_size.jmeter.cpu
      memory        = local.task_size.jmeter.memory
      task_role_arn = aws_iam_role.load_results.arn
      volumes       = { results = null } # a scratch volume of the task
      containers = jsonencode([
        {
          name = generator.container
          # Not essential: when it ends, the uploader still runs; the uploader's end stops the task.
          essential        = false
          image            = generator.image
          cpu              = local.load_container.cpu
          memory           = local.load_container.memory
          command          = generator.command
          environment      = generator.environment
          mountPoints      = [{ sourceVolume = "results", containerPath = "/results" }]
          ulimits          = local.nofile
          systemControls   = generator.systemControls
          logConfiguration = local.log_configuration[family]
        },
        {
          name       = "upload"
          essential  = true
          image      = var.uploader_image
          cpu        = local.uploader.cpu
          memory     = local.uploader.memory
          dependsOn  = [{ containerName = generator.container, condition = "COMPLETE" }]
          entryPoint = ["sh", "-c"]
          # RESULTS_PREFIX is set by the aws environment for each level.
          command = ["aws s3 cp --recursive --only-show-errors /results \"s3://$RESULTS_BUCKET/$RESULTS_PREFIX\""]
          environment = [
            { name = "RESULTS_BUCKET", value = aws_s3_bucket.results.id },
            { name = "AWS_REGION", value = data.aws_region.current.name },
          ]
          mountPoints      = [{ sourceVolume = "results", containerPath = "/results", readOnly = true }]
          logConfiguration = local.log_configuration[family]
        },
      ])
    }
  }
}
