# Your BMC-only root module: the R2 NFS servers' BIOS profile. Every
# endpoint attribute comes from the environment (run.sh, or your CI's
# variables and secrets).

terraform {
  required_version = ">= 1.11"
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}

provider "hpcstorage" {
  endpoints = {
    "nfs1-bmc" = {}
    "nfs2-bmc" = {}
  }
}

resource "hpcstorage_server" "nfs" {
  for_each = toset(["nfs1-bmc", "nfs2-bmc"])

  endpoint    = each.key
  power_state = "On"
  bios_attributes = {
    SysProfile     = "PerfOptimized"
    SubNumaCluster = "Enabled"
  }
}
