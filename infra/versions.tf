terraform {
  # 1.9: validation conditions may refer to other variables; tests use mock_provider (1.7).
  required_version = ">= 1.9"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
}
