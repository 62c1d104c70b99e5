variable "metadata_servers" {
  description = "The two metadata servers (R740, HA pair): name is the host name the arrays map volumes to and BeeGFS uses; host is how SSH reaches it (name or address, optionally name:port); bmc the Redfish endpoint of its BMC (optional)."
  type = list(object({
    name = string
    host = string
    bmc  = optional(string)
  }))
  validation {
    condition     = length(var.metadata_servers) >= 1
    error_message = "At least one metadata server (R1 has two)."
  }
}

variable "storage_servers" {
  description = "The two storage servers (R740, HA pair), as metadata_servers."
  type = list(object({
    name = string
    host = string
    bmc  = optional(string)
  }))
  validation {
    condition     = length(var.storage_servers) >= 1
    error_message = "At least one storage server (R1 has two)."
  }
}

variable "management_server" {
  description = "The management server (R640, monitoring), optional: its BMC, and beegfs-mon on host (see influxdb_*)."
  type = object({
    name = string
    host = string
    bmc  = optional(string)
  })
  default = null
}

variable "metadata_array" {
  description = "Redfish/Swordfish endpoint of the ME4024 holding the metadata targets (24 SSDs as 12 RAID1 pairs)."
  type        = string
}

variable "storage_arrays" {
  description = "Endpoints of the ME4084s holding the storage targets (R1: four, each 8 x RAID6 8+2 plus 4 global spares)."
  type        = list(string)
  validation {
    condition     = length(var.storage_arrays) >= 1
    error_message = "At least one storage array."
  }
}

variable "drive_size_bytes" {
  description = "Capacity of the ME4084 NL-SAS drives (R1: 4, 8, 10 or 12 TB). A disk group whose usable size is not 8 drives of this size fails the plan."
  type        = number
  default     = 12000000000000
}

variable "clients" {
  description = "Client nodes: name and SSH host."
  type = list(object({
    name = string
    host = string
  }))
  default = []
}

variable "client_count" {
  description = "How many of clients to configure (default: all)."
  type        = number
  default     = null
}

variable "conn_auth_secret" {
  description = "Shared secret of BeeGFS connection authentication (16 characters or more), passed to write-only attributes (Terraform 1.11+): never stored in state. Or use conn_auth_secret_file."
  type        = string
  sensitive   = true
  default     = null
}

variable "conn_auth_secret_file" {
  description = "Path of a file whose first line is the secret, read where Terraform runs (any Terraform version)."
  type        = string
  default     = null
}

variable "mount_point" {
  description = "Where clients mount the file system."
  type        = string
  default     = "/mnt/beegfs"
}

variable "numa_zones" {
  description = "NUMA zones per metadata server; metadata instances are spread evenly over them (R1: 2)."
  type        = number
  default     = 2
}

variable "stripe_patterns" {
  description = "Stripe patterns per directory (relative to the mount), set from the first client. Default: the R1 benchmarks' 1 MiB chunks on 1 target in `bench`."
  type = map(object({
    chunk_size_bytes = number
    num_targets      = number
    pool             = optional(number, 1)
  }))
  default = {
    bench = { chunk_size_bytes = 1048576, num_targets = 1 }
  }
}

variable "tune_nodes" {
  description = "Apply the R1 kernel tuning (THP off, dirty ratios, min_free_kbytes, vfs_cache_pressure, mq-deadline with nr_requests 2048 and read_ahead_kb 4096 on the array volumes) with hpcstorage_node_config."
  type        = bool
  default     = true
}

variable "influxdb_host" {
  description = "InfluxDB 1.x server beegfs-mon on the management server writes to (host name, address or http(s):// URL). Default: on the management server itself."
  type        = string
  default     = "localhost"
}

variable "influxdb_port" {
  description = "InfluxDB HTTP port."
  type        = number
  default     = 8086
}

variable "influxdb_database" {
  description = "InfluxDB database of beegfs-mon (the one the BeeGFS Grafana dashboards read)."
  type        = string
  default     = "beegfs_mon"
}

variable "influxdb_username" {
  description = "InfluxDB user when the database has authentication (default: none). Needs influxdb_password or influxdb_password_file."
  type        = string
  default     = null
}

variable "influxdb_password" {
  description = "Password of influxdb_username, passed to a write-only attribute (Terraform 1.11+): never stored in state. Or use influxdb_password_file."
  type        = string
  sensitive   = true
  default     = null
}

variable "influxdb_password_file" {
  description = "Path of a file whose first line is the InfluxDB password, read where Terraform runs (any Terraform version)."
  type        = string
  default     = null
}

variable "ha" {
  description = "Run the services under pacemaker on R1's two HA pairs (needs two metadata and two storage servers, each with its bmc, and corosync_authkey_file). Without it each server runs its own services alone."
  type        = bool
  default     = true
}

variable "ha_floating_network" {
  description = "Network of the services' floating IPs (CIDR): mgmtd gets host 1, metadata instances 2 to 13, storage services 32 and 33. Clients reach mgmtd on host 1."
  type        = string
  default     = "10.100.0.0/24"
}

variable "ha_interface" {
  description = "Interface the floating IPs are raised on (R1: the EDR InfiniBand port ib0)."
  type        = string
  default     = "ib0"
}

variable "ha_clusters" {
  description = "`pair`: a two-node cluster per pair (beegfs-meta, beegfs-storage); `file_system`: one cluster (beegfs) of the four servers, each pair's groups kept on that pair."
  type        = string
  default     = "pair"
  validation {
    condition     = contains(["pair", "file_system"], var.ha_clusters)
    error_message = "ha_clusters must be pair or file_system."
  }
}

variable "ha_cluster_network" {
  description = "Corosync ring network (CIDR): metadata servers get hosts 1 and 2, storage servers 3 and 4."
  type        = string
  default     = "10.10.0.0/24"
}

variable "corosync_authkey_file" {
  description = "Corosync authkey file (e.g. from `corosync-keygen -k FILE`), read where Terraform runs; only its hash reaches state. Required with ha."
  type        = string
  default     = null
}

variable "standby" {
  description = "Servers in standby (planned maintenance): their groups move to the other server of the pair; the plan shows it. Remove a server to let its groups come back."
  type        = list(string)
  default     = []
}

variable "pacemaker_version" {
  description = "The nodes' Pacemaker major version (hpcstorage_ha_cluster pacemaker_version): \"2\" as the paper (Pacemaker 1.1/2.x), \"3\" for Pacemaker 3 (RHEL 10: the CIB declares pacemaker-4.0)."
  type        = string
  default     = "2"
}

variable "storage_settings" {
  description = "Extra or overriding beegfs-storage.conf options of both storage servers (null: the package's and R1's). With HA, a change on the running design restarts one storage server's services at a time (each in standby while it takes the change)."
  type        = map(string)
  default     = null
}

variable "bios_attributes" {
  description = "BIOS attributes of every server with a BMC (null: not managed). With HA, a change on the running design reboots one member of each cluster at a time."
  type        = map(string)
  default     = null
}

variable "firmware" {
  description = "Firmware every server with a BMC runs (hpcstorage_server firmware); rolled like bios_attributes."
  type = list(object({
    component = string
    version   = string
    image_uri = string
    models    = optional(list(string))
  }))
  default  = []
  nullable = false
}

variable "maintenance_timeout" {
  description = "How long each step of a server's maintenance sequence may wait before the apply stops with it still in standby (the next apply resumes it)."
  type        = string
  default     = "30m"
}

variable "beegfs_version" {
  description = "BeeGFS release of every service and client (the resources' version): null is the paper's 7.2; \"7.4\"; \"8\" (TOML management service with TLS and a license, the beegfs command). A site goes 7.2 -> 7.4 -> 8 (the BeeGFS 8 upgrade guide)."
  type        = string
  default     = null
  validation {
    condition     = var.beegfs_version == null || contains(["7.2", "7.4", "8"], coalesce(var.beegfs_version, "7.2"))
    error_message = "beegfs_version must be 7.2, 7.4 or 8."
  }
  validation {
    condition     = var.beegfs_version != "8" || !var.ha
    error_message = "BeeGFS 8 under pacemaker (ha = true) is not rendered yet: set ha = false with beegfs_version = \"8\"."
  }
}

variable "beegfs_license_pem" {
  description = "BeeGFS 8: the license certificate (license.pem), passed to a write-only attribute: never stored in state. Or beegfs_license_file."
  type        = string
  sensitive   = true
  ephemeral   = true
  default     = null
}

variable "beegfs_license_file" {
  description = "BeeGFS 8: path of the license file, read where Terraform runs."
  type        = string
  default     = null
}

variable "beegfs_tls_cert_pem" {
  description = "BeeGFS 8: the management service's gRPC certificate (PEM), e.g. a tls provider certificate's cert_pem; also written to the clients, whose beegfs command verifies the service with it. Or beegfs_tls_cert_file."
  type        = string
  default     = null
}

variable "beegfs_tls_cert_file" {
  description = "BeeGFS 8: path of the certificate file, read where Terraform runs."
  type        = string
  default     = null
}

variable "beegfs_tls_key_pem" {
  description = "BeeGFS 8: the certificate's private key (PEM), passed to a write-only attribute. Or beegfs_tls_key_file."
  type        = string
  sensitive   = true
  ephemeral   = true
  default     = null
}

variable "beegfs_tls_key_file" {
  description = "BeeGFS 8: path of the private key file, read where Terraform runs."
  type        = string
  default     = null
}

variable "beegfs_tls_disable" {
  description = "BeeGFS 8: serve gRPC without TLS (no certificate then)."
  type        = bool
  default     = null
}
