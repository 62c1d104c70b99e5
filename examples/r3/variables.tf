# Filled by lab.auto.tfvars.json (hpcstorage-lab up); the lab also writes a
# few values this example does not use.

variable "endpoints" {
  description = "Endpoints by name: url, username, password, ca_certificate, api (santricity for the EF600s)."
  type = map(object({
    url            = string
    username       = string
    password       = string
    ca_certificate = optional(string)
    api            = optional(string)
  }))
  sensitive = true
}

variable "servers" {
  description = "Servers by host name: SSH host, role, BMC endpoint."
  type = map(object({
    host     = string
    role     = string
    endpoint = string
  }))
}

variable "ssh_user" {
  type    = string
  default = "root"
}

variable "ssh_private_key_file" {
  type = string
}

variable "ssh_known_hosts_file" {
  type = string
}

variable "beegfs_conn_auth_file" {
  description = "File holding the BeeGFS connection authentication secret (the lab writes a random one)."
  type        = string
}

# Written by the lab, unused here.
variable "clients" {
  type    = any
  default = null
}
variable "lab_design" {
  type    = string
  default = ""
}
variable "arrays" {
  type    = any
  default = null
}
variable "host_keys" {
  type    = map(string)
  default = {}
}
variable "array_cabling" {
  type    = any
  default = null
}
variable "node_roots" {
  type    = map(string)
  default = {}
}
variable "bmc_by_node" {
  type    = map(string)
  default = {}
}
variable "servers_by_role" {
  type    = any
  default = null
}
