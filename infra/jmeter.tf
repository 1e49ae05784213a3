# JMeter in its own distributed mode: N worker tasks (an ECS service, one host each) generate
# the load; per level the aws environment
# (harness/bankbench/run/environments/aws/environment.py) runs one controller task
# that drives them over RMI, collects their samples into one results file, and whose uploader
# sidecar copies the results to S3.

locals {
  uploader = { cpu = 256, memory = 256 }
  # JMeter's heap (HEAP, read by the image's entrypoint): three quarters of what the container has.
  worker_heap_mib     = floor(local.task_size.jmeter.memory * 3 / 4)
  controller_heap_mib = floor((local.task_size.jmeter.memory - local.uploader.memory) * 3 / 4)

  jmeter_tasks = {
    jmeter-worker = {
      cpu           = local.task_size.jmeter.cpu
      memory        = local.task_size.jmeter.memory
      task_role_arn = null
      volumes       = {}
      containers = jsonencode([{
        name        = "jmeter"
        image       = local.image_url["jmeter"]
        essential   = true
        cpu         = local.task_size.jmeter.cpu
        memory      = local.task_size.jmeter.memory
        command     = ["worker"]
        environment = [{ name = "HEAP", value = "-Xms${local.worker_heap_mib}m -Xmx${local.worker_heap_mib}m" }]
        ulimits     = local.nofile
        # More ephemeral ports for the many connections to the service.
        systemControls   = [{ namespace = "net.ipv4.ip_local_port_range", value = "1024 65000" }]
        logConfiguration = local.log_configuration["jmeter-worker"]
      }])
    }

    jmeter-controller = {
      cpu           = local.task_size.jmeter.cpu
      memory        = local.task_size.jmeter.memory
      task_role_arn = aws_iam_role.jmeter_controller.arn
      volumes       = { results = null } # a scratch volume of the task
      containers = jsonencode([
        {
          name = "jmeter"
          # Not essential: when it ends, the uploader still runs; the uploader's end stops the task.
          essential        = false
          image            = local.image_url["jmeter"]
          cpu              = local.task_size.jmeter.cpu - local.uploader.cpu
          memory           = local.task_size.jmeter.memory - local.uploader.memory
          command          = ["controller"]
          environment      = [{ name = "HEAP", value = "-Xms${local.controller_heap_mib}m -Xmx${local.controller_heap_mib}m" }]
          mountPoints      = [{ sourceVolume = "results", containerPath = "/results" }]
          ulimits          = local.nofile
          logConfiguration = local.log_configuration["jmeter-controller"]
        },
        {
          name       = "upload"
          essential  = true
          image      = var.uploader_image
          cpu        = local.uploader.cpu
          memory     = local.uploader.memory
          dependsOn  = [{ containerName = "jmeter", condition = "COMPLETE" }]
          entryPoint = ["sh", "-c"]
          # RESULTS_PREFIX is set by the aws environment for each level.
          command = ["aws s3 cp --recursive --only-show-errors /results \"s3://$RESULTS_BUCKET/$RESULTS_PREFIX\""]
          environment = [
            { name = "RESULTS_BUCKET", value = aws_s3_bucket.results.id },
            { name = "AWS_REGION", value = data.aws_region.current.name },
          ]
          mountPoints      = [{ sourceVolume = "results", containerPath = "/results", readOnly = true }]
          logConfiguration = local.log_configuration["jmeter-controller"]
        },
      ])
    }
  }
}
