variable "mons" {
  description = "Monitor (and manager) nodes by Ceph host name: SSH host and the address cephadm and clients use. The first name (sorted) is bootstrapped and keeps the admin keyring. R4: 3."
  type = map(object({
    host = string
    addr = string
  }))
  validation {
    condition     = contains([1, 3, 5], length(var.mons))
    error_message = "Run 1, 3 or 5 monitors (an odd number for a quorum; R4: 3)."
  }
}

variable "osd_nodes" {
  description = "OSD nodes by Ceph host name: SSH host, address and (optional) the endpoint name of its BMC. Their devices come from hpcstorage_node_facts. R4: 4 AS-2124US-TNRP with 22 NVMe each. A node with a BMC is an hpcstorage_server in the cluster's ceph failure domain."
  type = map(object({
    host = string
    addr = string
    bmc  = optional(string)
  }))
}

variable "clients" {
  description = "RBD client nodes by name (also their cephx id): SSH host. R4: 10."
  type = map(object({
    host = string
  }))
}

variable "public_network" {
  description = "Public network (monitors and clients), CIDR; holds the monitors' addresses."
  type        = string
}

variable "cluster_network" {
  description = "Replication network between OSDs, CIDR."
  type        = string
}

variable "osd_model" {
  description = "Model of the data devices (a substring, as Ceph matches it). R4: KIOXIA CM6 3.84 TB, KCM6XRUL3T84."
  type        = string
  default     = "KCM6XRUL3T84"
}

variable "release" {
  description = "Ceph release: the R4 paper's pacific (cephadm's own image), or quincy, reef, squid, tentacle (bootstrapped from quay.io/ceph/ceph:v<ceph_version>)."
  type        = string
  default     = "pacific"
  validation {
    condition     = contains(["pacific", "quincy", "reef", "squid", "tentacle"], var.release)
    error_message = "release is one of pacific, quincy, reef, squid, tentacle."
  }
}

variable "ceph_version" {
  description = "Point release of release (\"20.2.4\"); null: the newest known one. Tentacle below 20.2.4 is refused (CVE-2025-30156)."
  type        = string
  default     = null
}

variable "osds_per_device" {
  description = "OSD daemons per NVMe device."
  type        = number
  default     = 1
}

variable "pool" {
  description = "RBD pool name."
  type        = string
  default     = "rbd"
}

variable "pool_size" {
  description = "Replicas (R4: 2, so min_size 1: the plan warns)."
  type        = number
  default     = 2
}

variable "images_per_client" {
  description = "Images each client maps (R4: 20, 200 in all)."
  type        = number
  default     = 20
}

variable "image_size" {
  description = "Size of each image, as rbd reads it (binary units). R4: 100 GB images."
  type        = string
  default     = "100G"
}

variable "cluster_name" {
  description = "The failure domain's name (the OSD hosts' servers): its lock is the config-key prefix hpcstorage/day2/<cluster_name>/."
  type        = string
  default     = "ceph"
}

variable "bios_attributes" {
  description = "BIOS attributes of the OSD nodes with a BMC (the BMC's names); empty leaves the BIOS alone. A change on a running cluster reboots the OSD hosts one at a time, each with noout set while it is away."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "maintenance_timeout" {
  description = "How long each step of an OSD host's maintenance sequence may wait (its OSDs up and every PG active+clean again) before the apply stops with the host's noout flag still set; the next apply resumes it."
  type        = string
  default     = "30m"
}
