variable "servers" {
  description = "The two NFS servers (R740, active-passive): name is the host name the array maps volumes to and the cluster knows; host is how SSH reaches it (name or address, optionally name:port); bmc the Redfish endpoint of its BMC (power, BIOS and fencing); ring_addr its address on the cluster network."
  type = list(object({
    name      = string
    host      = string
    bmc       = string
    ring_addr = string
  }))
  validation {
    condition     = length(var.servers) == 2
    error_message = "R2 is a pair: give exactly two servers."
  }
}

variable "array" {
  description = "Redfish/Swordfish endpoint of the ME4084 both servers are cabled to (84 drives: 8 RAID6 8+2 groups and 4 global spares)."
  type        = string
}

variable "bios_attributes" {
  description = "BIOS of both servers: the HPC profile (performance system profile, sub-NUMA clustering on, logical processors off, ADDDC off; iDRAC9 names). A change on a running pair reboots the servers one at a time, each in standby while it reboots."
  type        = map(string)
  nullable    = false
  default = {
    SysProfile     = "PerfOptimized"
    SubNumaCluster = "Enabled"
    LogicalProc    = "Disabled"
    AdddcSetting   = "Disabled"
  }
}

variable "segment_size_bytes" {
  description = "Segment size of the RAID6 volumes (one drive's strip)."
  type        = number
  default     = 524288
}

variable "volume_group" {
  description = "HA-LVM volume group over the 8 multipathed volumes."
  type        = string
  default     = "vg_nfs"
}

variable "logical_volume" {
  description = "The one logical volume, striped over the 8 volumes (one full RAID stripe each)."
  type        = string
  default     = "lv_nfs"
}

variable "mount_point" {
  description = "Where the XFS file system is mounted on the active server; the NFS server's state (info dir) lives in its nfsinfo folder."
  type        = string
  default     = "/mnt/nfs"
}

variable "mount_options" {
  description = "XFS mount options."
  type        = string
  default     = "noatime,nodiratime"
}

variable "exports" {
  description = "NFS exports, each an exportfs resource of the group: a folder on the file system, who may mount it (one host, network or netgroup) and exportfs options; fsid unique and above 0."
  type = list(object({
    directory   = string
    client_spec = string
    options     = optional(string, "rw,sync,no_root_squash")
    fsid        = number
  }))
}

variable "floating_ip" {
  description = "The service address clients mount (IPaddr2), with its prefix length."
  type = object({
    ip           = string
    cidr_netmask = number
    nic          = optional(string)
  })
}

variable "nfsd_threads" {
  description = "nfsd threads on both servers (R2: 256)."
  type        = number
  default     = 256
}

variable "idmap_domain" {
  description = "NFSv4 id-mapping domain (the same on clients)."
  type        = string
}

variable "cluster_name" {
  description = "Pacemaker/corosync cluster name."
  type        = string
  default     = "nfsha"
}

variable "cluster_network" {
  description = "The cluster network (CIDR) the servers' ring_addr lie in."
  type        = string
}

variable "transport" {
  description = "Corosync transport: udpu on RHEL 7 (corosync 2, R2), knet on RHEL 8."
  type        = string
  default     = "udpu"
}

variable "authkey_file" {
  description = "Corosync authkey file (corosync-keygen -k FILE), read where Terraform runs; only its hash reaches state."
  type        = string
}

variable "fence_delay" {
  description = "pcmk_delay_base of the first server's fence device: in a split of the pair, the second server is fenced first and the first survives."
  type        = string
  default     = "10s"
}

variable "standby" {
  description = "Servers put in standby (planned maintenance): the NFS service moves to the other one."
  type        = set(string)
  default     = []
}

variable "tune_nodes" {
  description = "Apply the nfs-server tuning profile (mq-deadline on the array's disks, package floors) with hpcstorage_node_config."
  type        = bool
  default     = true
}

variable "maintenance_timeout" {
  description = "How long each step of a server's maintenance sequence may wait (standby drain, reboot, rejoin, failback) before the apply stops with that server still in standby; the next apply resumes it."
  type        = string
  default     = "30m"
}

variable "pacemaker_version" {
  description = "The nodes' Pacemaker major version (hpcstorage_ha_cluster pacemaker_version): \"2\" as the paper (Pacemaker 1.1/2.x), \"3\" for Pacemaker 3 (RHEL 10: the CIB declares pacemaker-4.0)."
  type        = string
  default     = "2"
}

variable "firmware" {
  description = "Firmware both servers run (hpcstorage_server firmware): a change reboots them one at a time with the BIOS change of the same apply, each in standby while it is away."
  type = list(object({
    component = string
    version   = string
    image_uri = string
    models    = optional(list(string))
  }))
  default  = []
  nullable = false
}
