# One VPC in one availability zone (hosts close together, no cross-zone latency in the
# figures): a public subnet holding only the NAT gateway, and a private subnet for every host.
# The hosts reach ECR, ECS and CloudWatch through the NAT gateway and S3 through a gateway
# endpoint; nothing on the internet can open a connection to them.

data "aws_ec2_instance_type_offerings" "hosts" {
  location_type = "availability-zone"

  filter {
    name   = "instance-type"
    values = local.instance_types
  }
}

locals {
  instance_types = distinct([for host in local.hosts : host.instance_type])
  offerings      = data.aws_ec2_instance_type_offerings.hosts

  # Zones that offer every instance type of the stack: c5d is missing from some zones.
  complete_zones = sort([
    for zone in distinct(local.offerings.locations) : zone
    if length(setsubtract(local.instance_types, [
      for i, type in local.offerings.instance_types : type if local.offerings.locations[i] == zone
    ])) == 0
  ])
  availability_zone = var.availability_zone != null ? var.availability_zone : try(local.complete_zones[0], null)
}

resource "aws_vpc" "main" {
  cidr_block           = var.vpc_cidr
  enable_dns_support   = true
  enable_dns_hostnames = true # Cloud Map private DNS needs both

  tags = { Name = var.name }
}

# No rule at all: a resource that forgets its own security group gets no traffic.
resource "aws_default_security_group" "main" {
  vpc_id = aws_vpc.main.id
}

resource "aws_subnet" "public" {
  vpc_id            = aws_vpc.main.id
  cidr_block        = cidrsubnet(var.vpc_cidr, 8, 0)
  availability_zone = local.availability_zone

  tags = { Name = "${var.name}-public" }

  lifecycle {
    precondition {
      condition     = local.availability_zone != null
      error_message = "No availability zone of ${var.region} offers all of ${join(", ", local.instance_types)}: set availability_zone or other instance types."
    }
  }
}

resource "aws_subnet" "private" {
  vpc_id                  = aws_vpc.main.id
  cidr_block              = cidrsubnet(var.vpc_cidr, 8, 1)
  availability_zone       = local.availability_zone
  map_public_ip_on_launch = false

  tags = { Name = "${var.name}-private" }
}

resource "aws_internet_gateway" "main" {
  vpc_id = aws_vpc.main.id

  tags = { Name = var.name }
}

resource "aws_eip" "nat" {
  domain = "vpc"

  tags = { Name = "${var.name}-nat" }
}

resource "aws_nat_gateway" "main" {
  allocation_id = aws_eip.nat.id
  subnet_id     = aws_subnet.public.id

  tags = { Name = var.name }

  depends_on = [aws_internet_gateway.main]
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.main.id

  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.main.id
  }

  tags = { Name = "${var.name}-public" }
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.main.id

  route {
    cidr_block     = "0.0.0.0/0"
    nat_gateway_id = aws_nat_gateway.main.id
  }

  tags = { Name = "${var.name}-private" }
}

resource "aws_route_table_association" "public" {
  subnet_id      = aws_subnet.public.id
  route_table_id = aws_route_table.public.id
}

resource "aws_route_table_association" "private" {
  subnet_id      = aws_subnet.private.id
  route_table_id = aws_route_table.private.id
}

# Image layers (ECR stores them in S3) and results go to S3 without paying NAT traffic.
resource "aws_vpc_endpoint" "s3" {
  vpc_id            = aws_vpc.main.id
  service_name      = "com.amazonaws.${data.aws_region.current.name}.s3"
  vpc_endpoint_type = "Gateway"
  route_table_ids   = [aws_route_table.private.id]

  tags = { Name = "${var.name}-s3" }
}
