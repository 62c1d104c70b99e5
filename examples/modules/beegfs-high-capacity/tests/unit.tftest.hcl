# Unit tests: the provider is mocked (no BMC, array or node is reached) and
# the arrays' layouts are given (a smaller R1: 4 RAID1 metadata groups, two
# RAID6 8+2 groups per storage array). The plan is checked for what the
# module decides: the metadata and storage volumes and the servers they are
# mapped to, the spares, each server's failure domain and the variables'
# rules. Run in the module's folder: terraform init && terraform test

mock_provider "hpcstorage" {
  mock_resource "hpcstorage_server" {
    defaults = { system_id = "System.Embedded.1" }
  }
  # The tuning profiles' THP settings (random strings fail the node rules).
  mock_data "hpcstorage_tuning_profile" {
    defaults = { thp = { enabled = "never", defrag = "never" } }
  }
  # Every storage array (the same drive ids on each).
  mock_data "hpcstorage_array_layout" {
    defaults = {
      disk_groups = [
        { name = "dg01", raid_level = "RAID6", drawers = [0], capacity_bytes = 0,
        drive_ids = ["Disk.0", "Disk.1", "Disk.2", "Disk.3", "Disk.4", "Disk.5", "Disk.6", "Disk.7", "Disk.8", "Disk.9"] },
        { name = "dg02", raid_level = "RAID6", drawers = [0], capacity_bytes = 0,
        drive_ids = ["Disk.10", "Disk.11", "Disk.12", "Disk.13", "Disk.14", "Disk.15", "Disk.16", "Disk.17", "Disk.18", "Disk.19"] },
      ]
      spare_drive_ids = ["Disk.20", "Disk.21"]
    }
  }
}

override_data {
  target = data.hpcstorage_array_layout.metadata
  values = {
    disk_groups = [
      { name = "mdt01", raid_level = "RAID1", drawers = [0], capacity_bytes = 0, drive_ids = ["Disk.0", "Disk.1"] },
      { name = "mdt02", raid_level = "RAID1", drawers = [0], capacity_bytes = 0, drive_ids = ["Disk.2", "Disk.3"] },
      { name = "mdt03", raid_level = "RAID1", drawers = [0], capacity_bytes = 0, drive_ids = ["Disk.4", "Disk.5"] },
      { name = "mdt04", raid_level = "RAID1", drawers = [0], capacity_bytes = 0, drive_ids = ["Disk.6", "Disk.7"] },
    ]
    spare_drive_ids = []
  }
}

variables {
  metadata_servers = [
    { name = "meta1", host = "10.0.0.1", bmc = "bmc-meta1" },
    { name = "meta2", host = "10.0.0.2", bmc = "bmc-meta2" },
  ]
  storage_servers = [
    { name = "stor1", host = "10.0.0.3", bmc = "bmc-stor1" },
    { name = "stor2", host = "10.0.0.4", bmc = "bmc-stor2" },
  ]
  metadata_array        = "me4024-1"
  storage_arrays        = ["me4084-1", "me4084-2"]
  conn_auth_secret_file = "/etc/beegfs/connauth"
  corosync_authkey_file = "/etc/corosync/authkey"
}

run "metadata_volumes" {
  command = plan

  assert {
    condition     = keys(hpcstorage_volume.mdt) == ["mdt01", "mdt02", "mdt03", "mdt04"]
    error_message = "One metadata volume per RAID1 group."
  }
  assert {
    condition = alltrue([for i in range(4) :
      jsonencode(hpcstorage_volume.mdt[format("mdt%02d", i + 1)].host_mappings) == jsonencode([{ host = "meta1", lun = i + 1 }, { host = "meta2", lun = i + 1 }])
    ])
    error_message = "Each MDT is mapped to both metadata servers under LUN index+1."
  }
  assert {
    condition     = alltrue([for v in hpcstorage_volume.mdt : v.endpoint == "me4024-1" && v.segment_size_bytes == 131072])
    error_message = "MDTs on the metadata array, 128 KiB segments."
  }
}

run "storage_volumes" {
  command = plan

  assert {
    condition     = keys(hpcstorage_volume.st) == ["st01", "st02", "st03", "st04"]
    error_message = "Two storage volumes per array, numbered across the arrays."
  }
  assert {
    condition     = hpcstorage_volume.st["st03"].endpoint == "me4084-2" && hpcstorage_disk_group.storage["st03"].name == "dg01"
    error_message = "st03 is the second array's first group."
  }
  assert {
    condition     = jsonencode(hpcstorage_volume.st["st04"].host_mappings) == jsonencode([{ host = "stor1", lun = 2 }, { host = "stor2", lun = 2 }])
    error_message = "Storage volumes are mapped to both storage servers, LUN per array."
  }
  assert {
    condition     = [for k, t in hpcstorage_beegfs_ha_services.this["stor1"].services[0].targets : t.mount_point] == ["/data/st01", "/data/st02"]
    error_message = "The first half of the targets belong to stor1's storage service."
  }
  assert {
    condition     = hpcstorage_spare_drives.storage["me4084-2"].drive_ids == toset(["Disk.20", "Disk.21"])
    error_message = "Each storage array's leftover drives are its spares."
  }
}

run "failure_domains_per_pair" {
  command = plan

  assert {
    condition = hpcstorage_server.this["meta1"].failure_domain == {
      name = "beegfs-meta", kind = "pacemaker", host = "10.0.0.1", node = "meta1", admin_host = "10.0.0.2", timeout = "30m"
    }
    error_message = "meta1 is in the metadata pair's cluster, its commands run through meta2."
  }
  assert {
    condition     = hpcstorage_server.this["stor2"].failure_domain.name == "beegfs-storage" && hpcstorage_server.this["stor2"].failure_domain.admin_host == "10.0.0.3"
    error_message = "stor2 is in the storage pair's cluster, its commands run through stor1."
  }
}

run "failure_domains_one_cluster" {
  command = plan
  variables {
    ha_clusters = "file_system"
  }

  assert {
    condition     = toset([for s in hpcstorage_server.this : s.failure_domain.name]) == toset(["beegfs"])
    error_message = "With one cluster per file system every server is in the same domain."
  }
  assert {
    condition     = alltrue([for k, s in hpcstorage_server.this : s.failure_domain.node == k && s.failure_domain.admin_host != s.failure_domain.host])
    error_message = "Each server's cluster commands run through another member."
  }
}

run "no_ha_no_domain" {
  command = plan
  variables {
    ha = false
  }

  assert {
    condition     = alltrue([for s in hpcstorage_server.this : s.failure_domain == null])
    error_message = "Without HA no server is in a failure domain."
  }
  assert {
    condition     = length(hpcstorage_beegfs_target.mdt) == 4 && hpcstorage_beegfs_target.mdt["mdt03"].host == "10.0.0.2"
    error_message = "Without HA each metadata server formats its own half of the MDTs."
  }
}

run "unknown_ha_clusters" {
  command = plan
  variables {
    ha_clusters = "rack"
  }
  expect_failures = [var.ha_clusters]
}

run "no_storage_array" {
  command = plan
  variables {
    storage_arrays = []
  }
  expect_failures = [var.storage_arrays]
}

run "no_metadata_server" {
  command = plan
  variables {
    metadata_servers = []
  }
  expect_failures = [var.metadata_servers]
}
