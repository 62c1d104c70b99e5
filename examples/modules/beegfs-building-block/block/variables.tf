variable "profile" {
  description = "Building block profile (R3): `base` (management, metadata and storage), `metadata_storage`, or `storage`. Scale a file system by adding blocks; exactly one block is `base`."
  type        = string
  validation {
    condition     = contains(["base", "metadata_storage", "storage"], var.profile)
    error_message = "profile must be base, metadata_storage or storage."
  }
}

variable "block" {
  description = "Number of this block in the file system (1, 2, ...): node and target IDs are numbered from it so blocks never collide."
  type        = number
  validation {
    condition     = var.block >= 1 && var.block <= 99 && floor(var.block) == var.block
    error_message = "block must be a whole number from 1 to 99."
  }
}

variable "servers" {
  description = "The block's two servers (an HA pair): host name (what BeeGFS, the arrays and the cluster call it) and SSH host; for the block's own cluster (ha_cluster.create) also its BMC endpoint, its Redfish system (`/redfish/v1/Systems/<system_id>`, for fence_redfish) and its corosync ring address."
  type = list(object({
    name         = string
    host         = string
    bmc          = optional(string)
    systems_uri  = optional(string)
    cluster_addr = optional(string)
  }))
  validation {
    condition     = length(var.servers) == 2
    error_message = "A building block has two servers."
  }
}

variable "metadata_volumes" {
  description = "Metadata volumes (RAID1; R3: 4 drives, 128 KiB segment): WWN and the index (0 or 1) of the server that serves it. Required for base and metadata_storage."
  type = list(object({
    wwn    = string
    server = number
  }))
  default = []
}

variable "storage_volumes" {
  description = "Storage volumes (R3: RAID6 8+2, 512 KiB segment, 2 volumes per pool): WWN, serving server index, segment size and data drives."
  type = list(object({
    wwn                = string
    server             = number
    segment_size_bytes = optional(number, 524288)
    data_drives        = optional(number, 8)
  }))
  default = []
}

variable "array" {
  description = "Endpoint name of the block's E-Series array (R3: one EF600 cabled to both servers, `api = \"santricity\"`). Set, the module carves it as NetApp's layout for the profile (`data.hpcstorage_array_layout` with `beegfs_building_block`), maps every volume to both servers (by their `name`, the array's host names) and builds the targets on them; leave metadata_volumes, storage_volumes and management_volume unset then."
  type        = string
  default     = null
}

variable "management_volume" {
  description = "base only: a volume of its own for the management store (R3); without it the store goes to the first metadata target."
  type = object({
    wwn    = string
    server = number
  })
  default = null
}

variable "mgmtd_host" {
  description = "Host name of the management service; default for base: its first server. Other blocks must set it to the base block's."
  type        = string
  default     = null
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
  description = "Run the block's services under pacemaker (R3): one resource group per service, failing over between the two servers. Without it each server runs its own services alone."
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
  description = "The pacemaker cluster the block's groups go into. create = true: the block's own two-node cluster (authkey_file: corosync key file; network: the ring network, CIDR; servers need bmc, systems_uri and cluster_addr). create = false: the caller builds one cluster for the whole file system from the ha_* outputs; nodes then lists all its node names (the block's groups never run outside the block)."
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
  description = "Servers of the block in standby (planned maintenance; the block's own cluster only): their groups move to the other server; the plan shows the change. Remove a server to let its groups come back."
  type        = list(string)
  default     = []
}
