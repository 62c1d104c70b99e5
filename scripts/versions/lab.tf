# scripts/versions.sh: the lab's provider block beside a copied data-source
# example (endpoints and SSH from lab.auto.tfvars.json, passwords from the
# lab's lab.env in the environment).
variable "lab" {
  type = any
}

provider "hpcstorage" {
  endpoints = { for name, ep in var.lab.endpoints : name => {
    url            = ep.url
    username       = ep.username
    ca_certificate = var.lab.ca_certificate
  } }
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}
