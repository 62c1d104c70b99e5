# Filled by lab.auto.tfvars.json (hpcstorage-lab up): the fields this state
# uses of the variable lab.

variable "lab" {
  description = "The lab (or your site): nodes by host name and SSH client files."
  type = object({
    nodes = map(object({
      role = string
      host = string
    }))
    ssh = object({
      user             = string
      private_key_file = string
      known_hosts_file = string
    })
  })
}

variable "servers_state" {
  description = "The file system's state file (examples/r1-split/servers)."
  type        = string
  default     = "../servers/terraform.tfstate"
}
