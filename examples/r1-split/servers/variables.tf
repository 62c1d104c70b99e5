# Filled by lab.auto.tfvars.json (hpcstorage-lab up): the fields this state
# uses of the variable lab.

variable "lab" {
  description = "The lab (or your site): endpoints by name, nodes by host name, SSH client files, BeeGFS and corosync secret files."
  type = object({
    ca_certificate = string
    endpoints = map(object({
      url      = string
      username = string
    }))
    nodes = map(object({
      role = string
      host = string
      bmc  = string
    }))
    ssh = object({
      user             = string
      private_key_file = string
      known_hosts_file = string
    })
    beegfs_conn_auth_file = string
    corosync_authkey_file = string
  })
}

variable "ha" {
  description = "Run BeeGFS under pacemaker on the two HA pairs."
  type        = bool
  default     = true
}
