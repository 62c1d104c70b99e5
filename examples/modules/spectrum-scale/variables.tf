variable "nsd_servers" {
  description = "The NSD servers (R740, HA pair): name is the host name the arrays map volumes to and the GPFS node name; host is how SSH reaches it (name or address, optionally name:port); bmc the Redfish endpoint of its BMC (optional)."
  type = list(object({
    name = string
    host = string
    bmc  = optional(string)
  }))
  validation {
    condition     = length(var.nsd_servers) >= 1 && length(var.nsd_servers) <= 8
    error_message = "One to eight NSD servers (R5 has an HA pair)."
  }
}

variable "gateways" {
  description = "Protocol gateways (CES nodes) exporting the file system over NFS and SMB, as nsd_servers."
  type = list(object({
    name = string
    host = string
    bmc  = optional(string)
  }))
  default = []
}

variable "management_server" {
  description = "The management server (R640): a quorum node of the cluster (the third one, so the count is odd), and its BMC."
  type = object({
    name = string
    host = string
    bmc  = optional(string)
  })
  default = null
}

variable "admin_host" {
  description = "SSH address of the node the mm commands run on (default: the first NSD server's host)."
  type        = string
  default     = null
}

variable "arrays" {
  description = "Endpoints of the ME4084 arrays, in order (R5: one to four). Each holds 8 data LUNs (RAID6 8+2) in its own failure group."
  type        = list(string)
  validation {
    condition     = length(var.arrays) >= 1
    error_message = "At least one ME4084."
  }
}

variable "array_count" {
  description = "How many of arrays to use (the first N; default all). Raising it expands the file system in place."
  type        = number
  default     = null
}

variable "me484_count" {
  description = "How many of the arrays in use have their ME484 expansion enclosure in use (the first N): 8 more data LUNs each. Raising it expands the file system in place (one mmadddisk with exactly the new NSDs)."
  type        = number
  default     = 0
  validation {
    condition     = var.me484_count >= 0
    error_message = "me484_count is a count of arrays."
  }
}

variable "gpfs_version" {
  description = "Storage Scale version the nodes run: the R5 paper's 5.0.4, or 5.1, 5.2, 6.0. Raising it after the packages were upgraded finishes the upgrade (mmchconfig release=LATEST, mmchfs -V full). 6.0 has no --metadata-block-size: set metadata_block_size = null with it."
  type        = string
  default     = "5.0.4"
  validation {
    condition     = contains(["5.0.4", "5.1", "5.2", "6.0"], var.gpfs_version)
    error_message = "gpfs_version is one of 5.0.4, 5.1, 5.2, 6.0."
  }
}

variable "metadata" {
  description = "Where metadata lives: \"base\" (R5's base module: the 4 SSDs of the first ME4084 as 2 RAID1 LUNs) or \"me4024\" (the high-demand metadata module: 12 RAID1 LUNs on each ME4024 of metadata_arrays)."
  type        = string
  default     = "base"
  validation {
    condition     = contains(["base", "me4024"], var.metadata)
    error_message = "metadata is \"base\" or \"me4024\"."
  }
}

variable "metadata_arrays" {
  description = "ME4024 endpoints of the high-demand metadata module (metadata = \"me4024\"; R5: 1 to 4)."
  type        = list(string)
  default     = []
}

variable "cluster_name" {
  description = "GPFS cluster name."
  type        = string
  default     = "r5"
}

variable "device" {
  description = "File system device name."
  type        = string
  default     = "fs1"
}

variable "mount_point" {
  description = "File system mount point."
  type        = string
  default     = "/gpfs/fs1"
}

variable "block_size" {
  description = "Data block size (R5: 8M); maxblocksize is set to match."
  type        = string
  default     = "8M"
}

variable "metadata_block_size" {
  description = "Block size of the metadata-only system pool (mmcrfs --metadata-block-size). R5's 2M with 8M data blocks gives the paper's 256 subblocks of 32 KiB (GPFS 5: one subblock count for all pools); null: one block size everywhere (512 of 16 KiB at 8M)."
  type        = string
  default     = "2M"
}

variable "pagepool" {
  description = "pagepool of the NSD servers (R5: 16G)."
  type        = string
  default     = "16G"
}

variable "allow_downtime" {
  description = "Accept a cluster-wide GPFS outage (mmshutdown -a) for changes GPFS takes only with every daemon down (a larger block_size raises maxblocksize). Off: such a change fails the plan."
  type        = bool
  default     = false
}

variable "num_nodes" {
  description = "Estimated number of nodes mounting the file system (mmcrfs -n)."
  type        = number
  default     = 32
}

variable "nfs_clients" {
  description = "Clients of the NFS export of the mount point, with their options."
  type = list(object({
    spec    = string
    options = string
  }))
  default = [{ spec = "*", options = "Access_Type=RW,Squash=root_squash" }]
}

variable "ces_addresses" {
  description = "CES addresses of the gateways, where clients outside the fabric mount the file system over NFS and SMB (mmces address add --ces-ip)."
  type        = list(string)
  default     = []
}

variable "smb_options" {
  description = "Options of the SMB export of the mount point (named after the device; mmsmb export add --option), e.g. { \"smb encrypt\" = \"desired\" }."
  type        = map(string)
  default     = { browseable = "yes" }
}

variable "rebalance_on_add" {
  description = "Run mmrestripefs -b after an expansion (off: existing data stays where it is)."
  type        = bool
  default     = false
}

variable "bios_attributes" {
  description = "BIOS attributes of every server with a BMC (iDRAC names); empty leaves the BIOS alone. A change on a running cluster reboots the servers one at a time, each shut down in GPFS (mmshutdown) while it is away."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "maintenance_timeout" {
  description = "How long each step of a server's maintenance sequence may wait (GPFS down, reboot, active again with its disks up) before the apply stops with that server still out; the next apply resumes it."
  type        = string
  default     = "30m"
}
