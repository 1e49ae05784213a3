# Network: who may reach whom, the zone choice, teardown safety.

mock_provider "aws" {
  source = "./tests/mocks"
}

variables {
  db_password = "a-test-password-of-some-length"
}

run "postgres_is_reachable_from_the_service_and_admin_task_only" {
  assert {
    condition = toset([
      for rule in aws_vpc_security_group_ingress_rule.flow : rule.referenced_security_group_id
      if rule.security_group_id == aws_security_group.this["postgres"].id
      ]) == toset([aws_security_group.this["service"].id, aws_security_group.this["admin"].id]
    )
    error_message = "only the service and the admin task may reach PostgreSQL"
  }
  assert {
    condition = alltrue([
      for rule in aws_vpc_security_group_ingress_rule.flow : rule.from_port == 5432 && rule.to_port == 5432
      if rule.security_group_id == aws_security_group.this["postgres"].id
    ])
    error_message = "PostgreSQL must open its port only"
  }
}

run "the_service_is_reachable_from_jmeter_only" {
  assert {
    condition = [
      for rule in aws_vpc_security_group_ingress_rule.flow : [rule.referenced_security_group_id, rule.from_port, rule.to_port]
      if rule.security_group_id == aws_security_group.this["service"].id
    ] == [[aws_security_group.this["jmeter"].id, 8080, 8080]]
    error_message = "only JMeter may reach the service, on its HTTP port"
  }
}

run "nothing_is_open_to_the_internet" {
  assert {
    condition     = alltrue([for rule in aws_vpc_security_group_ingress_rule.flow : rule.cidr_ipv4 == null && rule.referenced_security_group_id != null])
    error_message = "ingress rules must name a security group, never an address range"
  }
  assert {
    condition     = length(aws_default_security_group.main.ingress) == 0 && length(aws_default_security_group.main.egress) == 0
    error_message = "the default security group must allow nothing"
  }
  assert {
    condition     = aws_subnet.private.map_public_ip_on_launch == false && one(aws_autoscaling_group.host["service"].vpc_zone_identifier) == aws_subnet.private.id
    error_message = "hosts must live in the private subnet, without public addresses"
  }
  assert {
    condition     = aws_vpc_security_group_egress_rule.host_https.from_port == 443 && aws_vpc_security_group_egress_rule.host_https.to_port == 443
    error_message = "hosts may only leave over HTTPS"
  }
}

run "picks_a_zone_that_offers_every_instance_type" {
  assert {
    condition     = aws_subnet.private.availability_zone == "us-east-1b" && aws_subnet.public.availability_zone == "us-east-1b"
    error_message = "us-east-1a lacks c5d: the stack must go to us-east-1b"
  }
}

run "fails_clearly_when_no_zone_offers_c5d" {
  command = plan

  override_data {
    target = data.aws_ec2_instance_type_offerings.hosts
    values = {
      locations      = ["us-east-1a", "us-east-1a"]
      instance_types = ["m5.large", "m5.xlarge"]
    }
  }

  expect_failures = [aws_subnet.public]
}

run "destroy_never_waits_on_instances_or_tasks" {
  assert {
    condition     = alltrue([for group in aws_autoscaling_group.host : group.force_delete && !coalesce(group.protect_from_scale_in, false)])
    error_message = "auto-scaling groups must be force-deleted and unprotected, or destroy hangs"
  }
  assert {
    condition     = alltrue([for service in aws_ecs_service.this : service.force_delete]) && aws_service_discovery_service.postgres.force_destroy
    error_message = "ECS services and the discovery service must be deleted even with running tasks"
  }
  assert {
    condition     = aws_s3_bucket.results.force_destroy && alltrue([for repo in aws_ecr_repository.image : repo.force_delete])
    error_message = "the bucket and the repositories must be deleted with their content"
  }
  assert {
    condition     = length(aws_autoscaling_schedule.shutdown) == 0
    error_message = "no scheduled shutdown unless asked for"
  }
}

run "scheduled_shutdown_scales_every_group_to_zero" {
  variables {
    shutdown_at = "2030-01-01T18:00:00Z"
  }

  assert {
    condition     = length(aws_autoscaling_schedule.shutdown) == 3 && alltrue([for s in aws_autoscaling_schedule.shutdown : s.desired_capacity == 0 && s.max_size == 0])
    error_message = "every group must scale to zero at shutdown_at"
  }
}

run "container_insights_is_on" {
  assert {
    condition     = [for s in aws_ecs_cluster.main.setting : s.value if s.name == "containerInsights"] == ["enabled"]
    error_message = "Container Insights gives the per-task CPU and memory of the results"
  }
}
