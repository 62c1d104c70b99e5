# SSH access for every node: key and known_hosts, checked on every connection.
provider "hpcstorage" {
  ssh = {
    user              = "root"
    private_key_file  = "~/.ssh/id_ed25519"
    known_hosts_files = ["~/.ssh/known_hosts"]
  }
}

# R1's storage-server tuning (sysctl, THP off, mq-deadline on the array
# volumes, beegfs-storage.conf keys), with one value changed.
data "hpcstorage_tuning_profile" "storage" {
  name    = "beegfs-storage"
  version = 1
  overrides = {
    "conf:sysMgmtdHost" = "mgmt01"
  }
}

resource "hpcstorage_node_config" "storage" {
  for_each = toset(["stor01", "stor02"])

  host  = each.key
  owner = "r1-storage-tuning"

  sysctl       = data.hpcstorage_tuning_profile.storage.sysctl
  thp          = data.hpcstorage_tuning_profile.storage.thp
  block_queues = data.hpcstorage_tuning_profile.storage.block_queues
  files = merge(data.hpcstorage_tuning_profile.storage.files, {
    "/etc/beegfs/connInterfacesFile.conf" = {
      content = "ib0\nib1\n"
      mode    = "0644"
    }
  })

  # The HBA queue depth for the arrays, and the storage daemon.
  kernel_modules = {
    mpt3sas = { options = "max_queue_depth=10000" }
  }
  services = {
    "beegfs-storage" = { enabled = true, state = "started" }
  }
  package_floors = {
    "beegfs-storage" = "7.2"
  }
}
