# What this example needs to run on its own (the docs show the other file).
# Actions run on Terraform 1.14 and later.
terraform {
  required_version = ">= 1.14"
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}
