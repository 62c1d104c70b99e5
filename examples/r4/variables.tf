# Filled by lab.auto.tfvars.json (hpcstorage-lab up --design r4 --clients 10):
# one object, lab. This module declares only the fields it uses.

variable "lab" {
  description = "The lab (or your site): endpoints by name, nodes by host name, SSH client files."
  type = object({
    ca_certificate = string
    endpoints = map(object({
      url      = string
      username = string
    }))
    nodes = map(object({
      host = string # how SSH reaches the node: address:port
      bmc  = string # endpoint name of its BMC ("" for clients)
    }))
    ssh = object({
      user             = string
      private_key_file = string
      known_hosts_file = string
    })
  })
}

variable "osd_nodes" {
  description = "How many of the lab's OSD nodes (osd1..) join the cluster."
  type        = number
  default     = 4
}

variable "release" {
  description = "Ceph release (the paper's pacific; tentacle is today's)."
  type        = string
  default     = "pacific"
}

variable "bios_attributes" {
  description = "BIOS attributes of the OSD nodes (empty: left alone). A change reboots them one at a time through the ceph failure domain."
  type        = map(string)
  default     = {}
}
