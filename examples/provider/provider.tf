# BMCs and arrays are named endpoints: resources say `endpoint = "meta1-bmc"`
# and never carry credentials. The password variables are ephemeral
# (Terraform 1.10+): no plan file or state holds them. On older Terraform,
# leave password out and set HPCSTORAGE_META1_BMC_PASSWORD (or
# HPCSTORAGE_PASSWORD for all) in the environment instead.
provider "hpcstorage" {
  endpoints = {
    "meta1-bmc" = {
      url            = "https://10.10.0.11"
      username       = "root"
      password       = var.bmc_password
      ca_certificate = file("${path.module}/site-ca.pem")
    }
    "me4084-1" = {
      url                     = "https://10.10.1.21"
      username                = "manage"
      password                = var.array_password
      ca_certificate          = file("${path.module}/site-ca.pem")
      max_concurrent_requests = 4
    }
  }

  # How nodes are reached; each node resource may override any of it.
  ssh = {
    user              = "hpcadmin"
    sudo              = true
    private_key_file  = "~/.ssh/id_ed25519"
    known_hosts_files = ["~/.ssh/known_hosts"]
    bastion = {
      host = "jump.site.example"
      user = "hpcadmin"
    }
  }
}

variable "bmc_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "array_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
