# Unit tests: the provider is mocked (no BMC, array or node is reached), the
# array's layout is given, and the plan is checked for what the module
# itself decides: the policy, the volumes and their LUNs, the mapping to both
# servers, the failure domains, the cluster's group and the variables' rules.
# Run: terraform init && terraform test -filter=tests/unit.tftest.hcl

mock_provider "hpcstorage" {
  mock_resource "hpcstorage_server" {
    defaults = { system_id = "System.Embedded.1" }
  }
  # multipath names each volume's device after its key, as on the nodes.
  mock_resource "hpcstorage_multipath" {
    defaults = { devices = { nfs_vol1 = "/dev/mapper/nfs_vol1", nfs_vol2 = "/dev/mapper/nfs_vol2", nfs_vol3 = "/dev/mapper/nfs_vol3", nfs_vol4 = "/dev/mapper/nfs_vol4", nfs_vol5 = "/dev/mapper/nfs_vol5", nfs_vol6 = "/dev/mapper/nfs_vol6", nfs_vol7 = "/dev/mapper/nfs_vol7", nfs_vol8 = "/dev/mapper/nfs_vol8" } }
  }
  # crm_mon's answer once the group runs on the first server.
  mock_resource "hpcstorage_ha_cluster" {
    defaults = { placement = { nfsgroup = "nfs1" } }
  }
  # The layout the provider plans for the ME4084 (84 drives in two drawers
  # of 42): 8 RAID6 8+2 groups in bay order, the 4 last drives as spares.
  mock_data "hpcstorage_array_layout" {
    defaults = {
      disk_groups = [
        { name = "nfsdg1", raid_level = "RAID6", drawers = [0], capacity_bytes = 0,
        drive_ids = ["Disk.0", "Disk.1", "Disk.2", "Disk.3", "Disk.4", "Disk.5", "Disk.6", "Disk.7", "Disk.8", "Disk.9"] },
        { name = "nfsdg2", raid_level = "RAID6", drawers = [0], capacity_bytes = 0,
        drive_ids = ["Disk.10", "Disk.11", "Disk.12", "Disk.13", "Disk.14", "Disk.15", "Disk.16", "Disk.17", "Disk.18", "Disk.19"] },
        { name = "nfsdg3", raid_level = "RAID6", drawers = [0], capacity_bytes = 0,
        drive_ids = ["Disk.20", "Disk.21", "Disk.22", "Disk.23", "Disk.24", "Disk.25", "Disk.26", "Disk.27", "Disk.28", "Disk.29"] },
        { name = "nfsdg4", raid_level = "RAID6", drawers = [0], capacity_bytes = 0,
        drive_ids = ["Disk.30", "Disk.31", "Disk.32", "Disk.33", "Disk.34", "Disk.35", "Disk.36", "Disk.37", "Disk.38", "Disk.39"] },
        { name = "nfsdg5", raid_level = "RAID6", drawers = [0, 1], capacity_bytes = 0,
        drive_ids = ["Disk.40", "Disk.41", "Disk.42", "Disk.43", "Disk.44", "Disk.45", "Disk.46", "Disk.47", "Disk.48", "Disk.49"] },
        { name = "nfsdg6", raid_level = "RAID6", drawers = [1], capacity_bytes = 0,
        drive_ids = ["Disk.50", "Disk.51", "Disk.52", "Disk.53", "Disk.54", "Disk.55", "Disk.56", "Disk.57", "Disk.58", "Disk.59"] },
        { name = "nfsdg7", raid_level = "RAID6", drawers = [1], capacity_bytes = 0,
        drive_ids = ["Disk.60", "Disk.61", "Disk.62", "Disk.63", "Disk.64", "Disk.65", "Disk.66", "Disk.67", "Disk.68", "Disk.69"] },
        { name = "nfsdg8", raid_level = "RAID6", drawers = [1], capacity_bytes = 0,
        drive_ids = ["Disk.70", "Disk.71", "Disk.72", "Disk.73", "Disk.74", "Disk.75", "Disk.76", "Disk.77", "Disk.78", "Disk.79"] },
      ]
      spare_drive_ids = ["Disk.80", "Disk.81", "Disk.82", "Disk.83"]
    }
  }
}

# Volumes get the WWNs an ME4084 gives (NAA, 32 hex digits): the multipath
# resource's rules refuse anything else, even from a mock.
override_resource {
  target = hpcstorage_volume.this["nfs_vol1"]
  values = { wwn = "600c0ff0001e2a4b0000000000000001" }
}

override_resource {
  target = hpcstorage_volume.this["nfs_vol2"]
  values = { wwn = "600c0ff0001e2a4b0000000000000002" }
}

override_resource {
  target = hpcstorage_volume.this["nfs_vol3"]
  values = { wwn = "600c0ff0001e2a4b0000000000000003" }
}

override_resource {
  target = hpcstorage_volume.this["nfs_vol4"]
  values = { wwn = "600c0ff0001e2a4b0000000000000004" }
}

override_resource {
  target = hpcstorage_volume.this["nfs_vol5"]
  values = { wwn = "600c0ff0001e2a4b0000000000000005" }
}

override_resource {
  target = hpcstorage_volume.this["nfs_vol6"]
  values = { wwn = "600c0ff0001e2a4b0000000000000006" }
}

override_resource {
  target = hpcstorage_volume.this["nfs_vol7"]
  values = { wwn = "600c0ff0001e2a4b0000000000000007" }
}

override_resource {
  target = hpcstorage_volume.this["nfs_vol8"]
  values = { wwn = "600c0ff0001e2a4b0000000000000008" }
}

variables {
  servers = [
    { name = "nfs1", host = "10.0.0.11", bmc = "bmc-nfs1", ring_addr = "10.10.0.11" },
    { name = "nfs2", host = "10.0.0.12", bmc = "bmc-nfs2", ring_addr = "10.10.0.12" },
  ]
  array           = "me4084-1"
  cluster_network = "10.10.0.0/16"
  authkey_file    = "/etc/corosync/authkey"
  idmap_domain    = "hpc.example.com"
  floating_ip     = { ip = "10.10.0.100", cidr_netmask = 16 }
  exports = [
    { directory = "/mnt/nfs/home", client_spec = "10.10.0.0/16", fsid = 1 },
    { directory = "/mnt/nfs/scratch", client_spec = "10.10.0.0/16", options = "rw,async", fsid = 2 },
  ]
}

run "array_layout" {
  command = plan

  assert {
    condition = (data.hpcstorage_array_layout.array.policy.raid_level == "RAID6" &&
      data.hpcstorage_array_layout.array.policy.drives_per_group == 10 &&
      data.hpcstorage_array_layout.array.policy.group_count == 8 &&
    data.hpcstorage_array_layout.array.policy.name_prefix == "nfsdg")
    error_message = "R2's policy is 8 RAID6 8+2 groups named nfsdgN."
  }
  assert {
    condition     = keys(hpcstorage_disk_group.this) == ["nfs_vol1", "nfs_vol2", "nfs_vol3", "nfs_vol4", "nfs_vol5", "nfs_vol6", "nfs_vol7", "nfs_vol8"]
    error_message = "One disk group per layout group, keyed nfs_vol1..8."
  }
  assert {
    condition     = hpcstorage_disk_group.this["nfs_vol3"].name == "nfsdg3" && hpcstorage_disk_group.this["nfs_vol3"].drive_ids == tolist([for d in range(20, 30) : "Disk.${d}"])
    error_message = "nfs_vol3 is the layout's third group with its ten drives."
  }
  assert {
    condition     = alltrue([for g in hpcstorage_disk_group.this : g.raid_level == "RAID6" && g.endpoint == "me4084-1"])
    error_message = "Every group is RAID6 on the array."
  }
  assert {
    condition     = hpcstorage_spare_drives.this.drive_ids == toset(["Disk.80", "Disk.81", "Disk.82", "Disk.83"])
    error_message = "The layout's leftover drives become global spares."
  }
}

run "volumes_mapped_to_both_servers" {
  command = plan

  assert {
    condition     = length(hpcstorage_volume.this) == 8
    error_message = "One volume per disk group."
  }
  assert {
    condition = alltrue([for i in range(1, 9) :
      hpcstorage_volume.this["nfs_vol${i}"].disk_group == "nfsdg${i}" &&
      jsonencode(hpcstorage_volume.this["nfs_vol${i}"].host_mappings) == jsonencode([{ host = "nfs1", lun = i }, { host = "nfs2", lun = i }])
    ])
    error_message = "Volume nfs_volN is carved from nfsdgN and mapped to both servers under LUN N."
  }
  assert {
    condition     = alltrue([for v in hpcstorage_volume.this : v.segment_size_bytes == 524288])
    error_message = "512 KiB segments by default."
  }
}

run "failure_domains" {
  command = plan

  assert {
    condition = hpcstorage_server.this["nfs1"].failure_domain == {
      name = "nfsha", kind = "pacemaker", host = "10.0.0.11", node = "nfs1", admin_host = "10.0.0.12", timeout = "30m"
    }
    error_message = "nfs1 is a member of the cluster's domain, its commands run through nfs2."
  }
  assert {
    condition     = hpcstorage_server.this["nfs2"].failure_domain.admin_host == "10.0.0.11" && hpcstorage_server.this["nfs2"].failure_domain.node == "nfs2"
    error_message = "nfs2's cluster commands run through nfs1."
  }
  assert {
    condition     = alltrue([for s in hpcstorage_server.this : s.power_state == "On" && s.bios_attributes["SysProfile"] == "PerfOptimized" && s.firmware == null])
    error_message = "Both servers on, with the HPC BIOS profile and no firmware managed."
  }
}

run "cluster" {
  # Applied against the mock: the fence devices need the servers' system ids.
  command = apply

  assert {
    condition     = [for m in hpcstorage_ha_cluster.this.groups[0].members : m.type] == ["LVM-activate", "Filesystem", "nfsserver", "exportfs", "exportfs", "IPaddr2", "nfsnotify"]
    error_message = "R2's group in start order, one exportfs per export."
  }
  assert {
    condition     = hpcstorage_ha_cluster.this.groups[0].members[4].params == tomap({ directory = "/mnt/nfs/scratch", clientspec = "10.10.0.0/16", options = "rw,async", fsid = "2" })
    error_message = "The second export's parameters."
  }
  assert {
    condition     = hpcstorage_ha_cluster.this.nodes["nfs1"].fence.params == tomap({ pcmk_delay_base = "10s" }) && length(hpcstorage_ha_cluster.this.nodes["nfs2"].fence.params) == 0
    error_message = "Only the first server waits before it fences."
  }
  assert {
    condition     = hpcstorage_ha_cluster.this.nodes["nfs2"].fence.systems_uri == "/redfish/v1/Systems/System.Embedded.1" && hpcstorage_ha_cluster.this.nodes["nfs2"].fence.endpoint == "bmc-nfs2"
    error_message = "Each server is fenced through its own BMC."
  }
  assert {
    condition     = [for k, l in hpcstorage_ha_lvm.this : l.create] == [true, false]
    error_message = "The volume group is created once, from the first server."
  }
  assert {
    condition     = output.volumes["nfs_vol2"] == { wwn = "600c0ff0001e2a4b0000000000000002", lun = 2, device = "/dev/mapper/nfs_vol2" }
    error_message = "The volumes output joins the volume, its LUN and its multipath device."
  }
  assert {
    condition     = output.active_server == "nfs1"
    error_message = "active_server is where the group runs."
  }
}

run "one_server_is_not_a_pair" {
  command = plan
  variables {
    servers = [{ name = "nfs1", host = "10.0.0.11", bmc = "bmc-nfs1", ring_addr = "10.10.0.11" }]
  }
  expect_failures = [var.servers]
}
