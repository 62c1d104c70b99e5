# Integration test against the lab (or a site that looks like R2): the real
# provider carves the ME4084, sets up both servers and starts the cluster,
# then checks what the BMCs, the array and crm_mon report. Run from the
# module's folder:
#
#   hpcstorage-lab up --design r2 --dir "$LAB_DIR" --detach
#   set -a; . "$LAB_DIR/lab.env"; set +a      # the endpoints' passwords
#   terraform init
#   terraform test -test-directory=tests/lab -var-file="$LAB_DIR/lab.auto.tfvars.json"
#   hpcstorage-lab down --dir "$LAB_DIR"
#
# The variable lab comes from the lab's lab.auto.tfvars.json; terraform test
# destroys what it created at the end.

provider "hpcstorage" {
  endpoints = { for name, ep in var.lab.endpoints : name => {
    url            = ep.url
    username       = ep.username
    ca_certificate = var.lab.ca_certificate
  } }
  ssh = {
    user              = var.lab.ssh.user
    private_key_file  = var.lab.ssh.private_key_file
    known_hosts_files = [var.lab.ssh.known_hosts_file]
  }
}

variables {
  servers = [for i, name in ["nfs1", "nfs2"] : {
    name      = name
    host      = var.lab.nodes[name].host
    bmc       = var.lab.nodes[name].bmc
    ring_addr = cidrhost("10.10.0.0/16", 11 + i)
  }]
  array           = "me4084-1"
  cluster_network = "10.10.0.0/16"
  authkey_file    = var.lab.corosync_authkey_file
  idmap_domain    = "hpc.example.com"
  floating_ip     = { ip = "10.10.0.100", cidr_netmask = 16 }
  exports         = [{ directory = "/mnt/nfs/home", client_spec = "10.10.0.0/16", fsid = 1 }]
}

run "nfs_pair" {
  assert {
    condition     = length(hpcstorage_volume.this) == 8 && alltrue([for v in hpcstorage_volume.this : can(regex("^[0-9a-f]{32}$", v.wwn))])
    error_message = "Eight volumes carved, each with the array's WWN."
  }
  assert {
    condition     = length(hpcstorage_spare_drives.this.drive_ids) == 4
    error_message = "The ME4084's four leftover drives are global spares."
  }
  assert {
    condition     = alltrue([for s in hpcstorage_server.this : s.power_state == "On" && s.model != ""])
    error_message = "Both servers on, as their BMCs report."
  }
  assert {
    condition     = alltrue([for k, m in hpcstorage_multipath.this : length(m.devices) == 8])
    error_message = "Both servers see the eight volumes through multipath."
  }
  assert {
    condition     = output.active_server == "nfs1" && alltrue([for r, n in output.placement : n != ""])
    error_message = "The NFS group and the fence devices run, the group on nfs1."
  }
}
