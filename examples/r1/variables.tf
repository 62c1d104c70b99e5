# Filled by lab.auto.tfvars.json (hpcstorage-lab up): one object, lab. This
# module declares only the fields it uses; Terraform drops the others. The
# endpoints' passwords are not in it: the provider reads them from the
# environment (HPCSTORAGE_<ENDPOINT>_PASSWORD, the lab's lab.env), so no
# password is in a variable, a plan or the state.

variable "lab" {
  description = "The lab (or your site): endpoints by name, nodes by host name, SSH client files, BeeGFS secret file."
  type = object({
    ca_certificate = string
    endpoints = map(object({
      url      = string
      username = string
    }))
    nodes = map(object({
      role = string # management, metadata, storage or client
      host = string # how SSH reaches the node: address:port
      bmc  = string # endpoint name of its BMC ("" for clients)
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

variable "client_count" {
  description = "How many clients to configure (default: all)."
  type        = number
  default     = null
}

variable "drive_size_bytes" {
  description = "ME4084 drive size (the lab's default: 12 TB)."
  type        = number
  default     = 12000000000000
}

variable "ha" {
  description = "Run BeeGFS under pacemaker on the two HA pairs (make demo turns it off where pacemaker's tools, which the lab runs, are missing)."
  type        = bool
  default     = true
}

variable "standby" {
  description = "Servers in standby (planned maintenance): their BeeGFS groups move to the other server of the pair."
  type        = list(string)
  default     = []
}

variable "storage_settings" {
  description = "Extra or overriding beegfs-storage.conf options of both storage servers. A change on the running design is a day-2 change: one storage server at a time, in standby while it takes it."
  type        = map(string)
  default     = null
}

variable "bios_attributes" {
  description = "BIOS attributes of every server with a BMC (null: not managed). A change on the running design is a day-2 change: one server of each HA pair at a time."
  type        = map(string)
  default     = null
}

variable "beegfs_version" {
  description = "BeeGFS release: null is the paper's 7.2; \"7.4\"; \"8\" (needs ha = false, a license and TLS files or beegfs_tls_disable)."
  type        = string
  default     = null
}

variable "beegfs_license_file" {
  description = "BeeGFS 8: the license file (license.pem)."
  type        = string
  default     = null
}

variable "beegfs_tls_cert_file" {
  description = "BeeGFS 8: the management service's certificate (PEM)."
  type        = string
  default     = null
}

variable "beegfs_tls_key_file" {
  description = "BeeGFS 8: the certificate's private key (PEM)."
  type        = string
  default     = null
}

variable "beegfs_tls_disable" {
  description = "BeeGFS 8: serve gRPC without TLS."
  type        = bool
  default     = null
}
