terraform {
  required_version = ">= 1.5"
  required_providers {
    hpcstorage = {
      source = "hpcstorage/hpcstorage"
    }
  }
}
