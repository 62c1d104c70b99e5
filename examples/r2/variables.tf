# Filled by lab.auto.tfvars.json (hpcstorage-lab up): one object, lab. This
# module declares only the fields it uses; Terraform drops the others. The
# endpoints' passwords are not in it: the provider reads them from the
# environment (HPCSTORAGE_<ENDPOINT>_PASSWORD, the lab's lab.env), so no
# password is in a variable, a plan or the state.

variable "lab" {
  description = "The lab (or your site): endpoints by name, nodes by host name, SSH client files, the corosync authkey file."
  type = object({
    ca_certificate = string
    endpoints = map(object({
      url      = string
      username = string
    }))
    nodes = map(object({
      role = string
      host = string # how SSH reaches the node: address:port
      bmc  = string # endpoint name of its BMC
    }))
    ssh = object({
      user             = string
      private_key_file = string
      known_hosts_file = string
    })
    corosync_authkey_file = string
  })
}

variable "cluster_network" {
  description = "The cluster network: nfs1 and nfs2 get its .11 and .12."
  type        = string
  default     = "10.10.1.0/24"
}

variable "standby" {
  description = "Servers in standby (day 2: planned maintenance moves the NFS service to the other)."
  type        = set(string)
  default     = []
}

variable "idmap_domain" {
  description = "NFSv4 ID mapping domain of both servers. Changing it on the running pair is a day-2 change: nfs-idmapd reads it when the cluster starts the NFS group, so each server takes it in standby, nfs1 then nfs2."
  type        = string
  default     = "hpc.example.com"
}

variable "bios_attributes" {
  description = "BIOS of both NFS servers; null keeps the module's HPC profile. Changing it on the running pair is a day-2 change: nfs1 then nfs2, each in standby while it reboots."
  type        = map(string)
  default     = null
}

variable "pacemaker_version" {
  description = "The servers' Pacemaker major version: \"3\" on RHEL 10 (Pacemaker 3)."
  type        = string
  default     = "2"
}

variable "firmware" {
  description = "Firmware of both NFS servers (component, version, image_uri): a day-2 change, rolled one server at a time."
  type = list(object({
    component = string
    version   = string
    image_uri = string
    models    = optional(list(string))
  }))
  default = []
}
