# Costly inputs are checked before anything is created.

mock_provider "aws" {
  source = "./tests/mocks"
}

variables {
  db_password = "a-test-password-of-some-length"
}

run "postgres_needs_a_c5d_with_nvme" {
  command = plan

  variables {
    postgres_instance_type = "m5.large"
  }

  expect_failures = [var.postgres_instance_type]
}

run "postgres_c5d_4xlarge_is_not_allowed" {
  command = plan

  variables {
    postgres_instance_type = "c5d.4xlarge"
  }

  expect_failures = [var.postgres_instance_type]
}

run "c5d_large_is_in_the_catalog_for_projections_only" {
  command = plan

  variables {
    postgres_instance_type = "c5d.large"
  }

  expect_failures = [var.postgres_instance_type]
}

run "every_role_takes_the_types_instances_csv_gives_it" {
  command = plan

  variables {
    service_instance_type  = "m5.xlarge"
    jmeter_instance_type   = "m5.2xlarge"
    postgres_instance_type = "c5d.2xlarge"
  }
}

run "service_host_type_is_checked" {
  command = plan

  variables {
    service_instance_type = "c5.24xlarge"
  }

  expect_failures = [var.service_instance_type]
}

run "jmeter_host_type_is_checked" {
  command = plan

  variables {
    jmeter_instance_type = "m5.24xlarge"
  }

  expect_failures = [var.jmeter_instance_type]
}

run "at_least_one_worker" {
  command = plan

  variables {
    jmeter_workers = 0
  }

  expect_failures = [var.jmeter_workers]
}

run "whole_number_of_workers" {
  command = plan

  variables {
    jmeter_workers = 2.5
  }

  expect_failures = [var.jmeter_workers]
}

run "short_passwords_are_refused" {
  command = plan

  variables {
    db_password = "short"
  }

  expect_failures = [var.db_password]
}

run "shutdown_at_must_be_a_time" {
  command = plan

  variables {
    shutdown_at = "tomorrow"
  }

  expect_failures = [var.shutdown_at]
}
