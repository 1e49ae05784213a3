# JMeter in its own distributed mode: N worker tasks (an ECS service, one host each) generate
# the load; per level the controller (loadgen.tf) drives them over RMI and collects their samples
# into one results file.

locals {
  # JMeter's heap (HEAP, read by the image's entrypoint): three quarters of what the container has.
  worker_heap_mib     = floor(local.task_size.jmeter.memory * 3 / 4)
  controller_heap_mib = floor(local.load_container.memory * 3 / 4)
  # More ephemeral ports for the many connections to the service.
  ephemeral_ports = [{ namespace = "net.ipv4.ip_local_port_range", value = "1024 65000" }]

  jmeter_tasks = {
    jmeter-worker = {
      cpu           = local.task_size.jmeter.cpu
      memory        = local.task_size.jmeter.memory
      task_role_arn = null
      volumes       = {}
      containers = jsonencode([{
        name             = "jmeter"
        image            = local.image_url["jmeter"]
        essential        = true
        cpu              = local.task_size.jmeter.cpu
        memory           = local.task_size.jmeter.memory
        command          = ["worker"]
        environment      = [{ name = "HEAP", value = "-Xms${local.worker_heap_mib}m -Xmx${local.worker_heap_mib}m" }]
        ulimits          = local.nofile
        systemControls   = local.ephemeral_ports
        logConfiguration = local.log_configuration["jmeter-worker"]
      }])
    }
  }
}
