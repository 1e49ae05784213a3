# The instance types the variables allow, their size and their price, and what follows from
# them: how much of each host a task reserves, and what the stack costs per hour.

locals {
  # instances.csv: size, price and allowed roles of each type, with the source and date of each
  # price (on-demand Linux, us-east-1). The harness projects its measurements onto the same file.
  instance_catalog = {
    for row in csvdecode(file("${path.module}/instances.csv")) : row.type => {
      vcpus        = tonumber(row.vcpus)
      memory_mib   = tonumber(row.memory_gib) * 1024
      usd_per_hour = tonumber(row.usd_per_hour)
      roles        = compact(split(" ", row.roles))
    }
  }
  # The types each host role may run on (variables.tf validates them); a type with no role is
  # there for the harness's projections only.
  allowed_types = {
    for role in distinct(flatten(values(local.instance_catalog)[*].roles)) :
    role => [for type, instance in local.instance_catalog : type if contains(instance.roles, role)]
  }

  # Hourly costs besides the instances: the NAT gateway, its public IPv4 address, and the
  # gp3 root volumes ($0.08 per GiB-month). Logs, metrics and S3 add cents per run.
  nat_usd_per_hour         = 0.045
  public_ipv4_usd_per_hour = 0.005
  root_volume_gib          = 30
  gp3_usd_per_gib_hour     = 0.08 / 730

  host_count = sum([for host in local.hosts : host.count])
  cost_per_hour_usd = (
    sum([for host in local.hosts : host.count * local.instance_catalog[host.instance_type].usd_per_hour])
    + local.nat_usd_per_hour + local.public_ipv4_usd_per_hour
    + local.host_count * local.root_volume_gib * local.gp3_usd_per_gib_hour
  )

  # The one-off admin task (schema reset, money check) runs beside PostgreSQL on its host.
  admin_task = { cpu = 256, memory = 256 }

  # What the task of a role reserves: every CPU unit of its host, and 7/8 of the nominal memory,
  # because the ECS agent registers less than the nominal size (the kernel, Docker and the agent
  # keep the rest). Reserving (nearly) a whole host is what keeps one task per host.
  task_size = {
    for role, host in local.hosts : role => {
      cpu    = local.instance_catalog[host.instance_type].vcpus * 1024 - (role == "postgres" ? local.admin_task.cpu : 0)
      memory = floor(local.instance_catalog[host.instance_type].memory_mib * 7 / 8) - (role == "postgres" ? local.admin_task.memory : 0)
    }
  }
}
