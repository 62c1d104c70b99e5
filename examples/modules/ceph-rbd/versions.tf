terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source = "hpcstorage/hpcstorage"
      # A module states the oldest provider it works with; the root module
      # that calls it pins the release (see examples/r1).
      version = ">= 0.1.0"
    }
  }
}
