variable "blocks" {
  description = "The file system's building blocks (R3), in order: block N of the list (from 1) numbers its node IDs, target IDs and floating IPs, so scale out by appending blocks (never reorder or remove one from the middle: the blocks after it would be renumbered). Each block: a unique `name` (the key of its resources), its `profile` (`base`: management, metadata and storage, exactly one block; `metadata_storage`; `storage`), its two `servers` (an HA pair: host name, SSH host; for the block's own cluster also BMC endpoint, Redfish system and corosync ring address) and either `array` (endpoint of its E-Series array, carved as NetApp lays it out for the profile) or its volumes (`metadata_volumes`, `storage_volumes`, base's optional `management_volume`). Adding a block adds its servers' targets, services, HA groups and cluster and registers its targets; nothing of the existing blocks changes."
  type = list(object({
    name    = string
    profile = string
    servers = list(object({
      name         = string
      host         = string
      bmc          = optional(string)
      systems_uri  = optional(string)
      cluster_addr = optional(string)
    }))
    array = optional(string)
    metadata_volumes = optional(list(object({
      wwn    = string
      server = number
    })), [])
    storage_volumes = optional(list(object({
      wwn                = string
      server             = number
      segment_size_bytes = optional(number, 524288)
      data_drives        = optional(number, 8)
    })), [])
    management_volume = optional(object({
      wwn    = string
      server = number
    }))
  }))
  validation {
    condition     = length([for b in var.blocks : b if b.profile == "base"]) == 1
    error_message = "Exactly one block has profile base (it runs the management service)."
  }
  validation {
    condition     = length(distinct([for b in var.blocks : b.name])) == length(var.blocks)
    error_message = "Block names must be unique."
  }
  validation {
    condition     = alltrue([for b in var.blocks : contains(["base", "metadata_storage", "storage"], b.profile)])
    error_message = "profile must be base, metadata_storage or storage."
  }
  validation {
    condition     = length(var.blocks) <= 99
    error_message = "At most 99 blocks (IDs are numbered per block)."
  }
}

variable "numa_zones" {
  description = "NUMA zones per server: metadata instances and the storage instance are bound to them."
  type        = number
  default     = 2
}

variable "conn_auth_secret" {
  description = "BeeGFS connection authentication secret (write-only in the resources). Or conn_auth_secret_file."
  type        = string
  sensitive   = true
  default     = null
}

variable "conn_auth_secret_file" {
  description = "File whose first line is the secret."
  type        = string
  default     = null
}

variable "ha" {
  description = "Run the blocks' services under pacemaker (R3): one resource group per service, failing over between the two servers of its block. Without it each server runs its own services alone."
  type        = bool
  default     = true
}

variable "ha_floating_network" {
  description = "Network of the services' floating IPs (CIDR): block N uses 32 addresses from N*32 (mgmtd +1, metadata instances +2.., storage services +16..). Clients reach mgmtd on the base block's (output mgmtd_host)."
  type        = string
  default     = "100.127.0.0/16"
}

variable "ha_interface" {
  description = "Interface the floating IPs are raised on (R3: the InfiniBand port i1b)."
  type        = string
  default     = "i1b"
}

variable "ha_cluster" {
  description = "The pacemaker clusters. create = true: each block its own two-node cluster `beegfs-bNN` (authkey_file: corosync key file; network: the ring network, CIDR; servers need bmc, systems_uri and cluster_addr). create = false: the caller builds one cluster for the whole file system from the ha_* outputs; nodes then lists all its node names."
  type = object({
    create       = optional(bool, true)
    authkey_file = optional(string)
    network      = optional(string)
    nodes        = optional(list(string))
    # The nodes' Pacemaker major version: "2" (the paper) or "3" (RHEL 10).
    pacemaker_version = optional(string, "2")
  })
  default = {}
}

variable "standby" {
  description = "Servers in standby (planned maintenance; the blocks' own clusters only): their groups move to the other server of their block; the plan shows the change. Remove a server to let its groups come back."
  type        = list(string)
  default     = []
}
