# Filled by lab.auto.tfvars.json (hpcstorage-lab up --design r4 --clients 10):
# one object, lab. This module declares only the fields it uses.

variable "lab" {
  description = "The lab (or your site): nodes by host name and the SSH client files."
  type = object({
    nodes = map(object({
      host = string # how SSH reaches the node: address:port
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
