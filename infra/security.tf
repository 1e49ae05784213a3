# Who may talk to whom. Tasks run in awsvpc mode: each has its own network interface and
# security group, so the rules are between roles, not hosts. PostgreSQL accepts only the
# service (and the one-off admin task); the service accepts only the load generators. The hosts
# accept no inbound traffic at all, and nothing accepts traffic from the internet.

locals {
  ports = {
    postgres = 5432
    service  = 8080
    # JMeter's RMI ports, fixed by the image's entrypoint (infra/docker/jmeter/entrypoint.sh):
    # the worker's registry and remote objects, and the controller's result listeners.
    rmi_registry = 1099
    rmi_server   = 50000
    rmi_client   = 60000
  }

  # One flow = an egress rule on the source group and the matching ingress rule on the target.
  flows = {
    service-to-postgres = { from = "service", to = "postgres", first_port = local.ports.postgres, last_port = local.ports.postgres }
    admin-to-postgres   = { from = "admin", to = "postgres", first_port = local.ports.postgres, last_port = local.ports.postgres }
    jmeter-to-service   = { from = "jmeter", to = "service", first_port = local.ports.service, last_port = local.ports.service }
    jmeter-rmi-registry = { from = "jmeter", to = "jmeter", first_port = local.ports.rmi_registry, last_port = local.ports.rmi_registry }
    jmeter-rmi-server   = { from = "jmeter", to = "jmeter", first_port = local.ports.rmi_server, last_port = local.ports.rmi_server }
    jmeter-rmi-client   = { from = "jmeter", to = "jmeter", first_port = local.ports.rmi_client, last_port = local.ports.rmi_client + 2 }
  }

  security_groups = {
    host     = "ECS hosts: outbound HTTPS only (ECS, ECR, CloudWatch, SSM), no inbound"
    postgres = "PostgreSQL task: reachable from the service and the admin task only"
    service  = "Service under test: reachable from the load generators only"
    jmeter   = "Load generators (JMeter controller and workers, Gatling): RMI among JMeter's, load to the service"
    admin    = "One-off admin task (schema reset, money check): PostgreSQL only"
  }
}

resource "aws_security_group" "this" {
  for_each = local.security_groups

  name        = "${var.name}-${each.key}"
  description = each.value
  vpc_id      = aws_vpc.main.id

  tags = { Name = "${var.name}-${each.key}" }
}

resource "aws_vpc_security_group_ingress_rule" "flow" {
  for_each = local.flows

  description                  = each.key
  security_group_id            = aws_security_group.this[each.value.to].id
  referenced_security_group_id = aws_security_group.this[each.value.from].id
  ip_protocol                  = "tcp"
  from_port                    = each.value.first_port
  to_port                      = each.value.last_port
}

resource "aws_vpc_security_group_egress_rule" "flow" {
  for_each = local.flows

  description                  = each.key
  security_group_id            = aws_security_group.this[each.value.from].id
  referenced_security_group_id = aws_security_group.this[each.value.to].id
  ip_protocol                  = "tcp"
  from_port                    = each.value.first_port
  to_port                      = each.value.last_port
}

# The ECS agent, image pulls and log shipping run on the host and need the public AWS
# endpoints (through the NAT gateway).
resource "aws_vpc_security_group_egress_rule" "host_https" {
  description       = "AWS APIs over HTTPS"
  security_group_id = aws_security_group.this["host"].id
  cidr_ipv4         = "0.0.0.0/0"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
}

# The uploader sidecar of a level's load task writes results to S3 through the gateway endpoint.
resource "aws_vpc_security_group_egress_rule" "jmeter_s3" {
  description       = "results to S3"
  security_group_id = aws_security_group.this["jmeter"].id
  prefix_list_id    = aws_vpc_endpoint.s3.prefix_list_id
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
}
