# Private DNS for the stack: the services find PostgreSQL as postgres.<name>.internal, whichever
# host its task lands on. ECS registers the task's address once its health check passes.

resource "aws_service_discovery_private_dns_namespace" "main" {
  name        = local.namespace
  description = "bankbench service discovery"
  vpc         = aws_vpc.main.id
}

resource "aws_service_discovery_service" "postgres" {
  name = "postgres"
  # Deregisters whatever is still registered, so destroy never waits on a running task.
  force_destroy = true

  dns_config {
    namespace_id   = aws_service_discovery_private_dns_namespace.main.id
    routing_policy = "MULTIVALUE"

    dns_records {
      type = "A"
      ttl  = 10
    }
  }

  health_check_custom_config {
    failure_threshold = 1
  }
}
