# Filled by lab.auto.tfvars.json (hpcstorage-lab up): one object, lab. This
# module declares only the fields it uses; Terraform drops the others. The
# endpoints' passwords are not in it: the provider reads them from the
# environment (HPCSTORAGE_<ENDPOINT>_PASSWORD, the lab's lab.env).

variable "lab" {
  description = "The lab (or your site): endpoints by name, nodes by host name, SSH client files."
  type = object({
    ca_certificate = string
    endpoints = map(object({
      url      = string
      username = string
    }))
    nodes = map(object({
      host = string # how SSH reaches the node: address:port
      bmc  = string # endpoint name of its BMC
    }))
    ssh = object({
      user             = string
      private_key_file = string
      known_hosts_file = string
    })
  })
}

variable "array_count" {
  description = "ME4084 arrays in use (R5: 1 to 4). Raising it expands the file system in place."
  type        = number
  default     = 2
}

variable "me484_count" {
  description = "Arrays whose ME484 expansion is in use (the first N). Raising it expands the file system in place."
  type        = number
  default     = 0
}

variable "gpfs_version" {
  description = "Storage Scale version the nodes run (the paper's 5.0.4; 5.2 and 6.0 are current)."
  type        = string
  default     = "5.0.4"
}

variable "bios_attributes" {
  description = "BIOS attributes of every server (empty: left alone). A change reboots the servers one at a time through the GPFS failure domain."
  type        = map(string)
  default     = {}
}
