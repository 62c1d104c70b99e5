# What this example needs to run on its own (the docs show the other file).
terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}
