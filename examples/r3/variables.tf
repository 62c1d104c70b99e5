# Filled by lab.auto.tfvars.json (hpcstorage-lab up --design r3): one
# object, lab. This module declares only the fields it uses; Terraform drops
# the others. The endpoints' passwords are not in it: the provider reads them
# from the environment (HPCSTORAGE_<ENDPOINT>_PASSWORD, the lab's lab.env),
# so no password is in a variable, a plan or the state.

variable "lab" {
  description = "The lab (or your site): endpoints by name, nodes by host name, SSH client files, BeeGFS secret file."
  type = object({
    ca_certificate = string
    endpoints = map(object({
      url      = string
      username = string
      # santricity for an E-Series array; Redfish/Swordfish when unset.
      api = optional(string)
      # An E-Series array's own CA; the others use ca_certificate above.
      ca_certificate = optional(string)
    }))
    nodes = map(object({
      host = string           # how SSH reaches the node: address:port
      bmc  = string           # endpoint name of its BMC ("" for a client)
      role = optional(string) # "client" for the lab's clients (--clients N)
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

variable "cluster_network" {
  description = "The pacemaker clusters' ring network (CIDR): node n of block b gets host 2b+n-2 (bb1-node1: .1)."
  type        = string
  default     = "10.10.0.0/24"
}

variable "standby" {
  description = "File nodes in standby (planned maintenance): their BeeGFS groups move to the other node of their block; the plan shows it. Remove a node to let them come back."
  type        = list(string)
  default     = []
}

variable "blocks" {
  description = "The building blocks, in order: block N is bbN-node1/2 with the array ef600-N. The first is the base block; scale out by appending blocks (a new block only adds its servers' targets, services, groups and cluster: nothing existing changes)."
  type        = list(string)
  default     = ["base", "metadata_storage", "storage"]
  validation {
    condition     = length(var.blocks) >= 1 && var.blocks[0] == "base" && !contains(slice(var.blocks, 1, length(var.blocks)), "base")
    error_message = "The first block, and only it, is base."
  }
}

variable "bios_attributes" {
  description = "BIOS attributes of every file node (null: as the BMC has them). Changing them on a running file system is a day-2 change: in each block node1 then node2, each in standby while it reboots; the blocks roll side by side."
  type        = map(string)
  default     = null
}
