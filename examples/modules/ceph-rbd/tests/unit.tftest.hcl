# Unit tests: the provider is mocked (no node is reached). The plan is
# checked for what the module decides: the cluster's hosts and labels, the
# monitor and manager counts, the OSD spec's device filter, the images per
# client and the variables' rules. Run in the module's folder:
# terraform init && terraform test

mock_provider "hpcstorage" {}

variables {
  mons = {
    mon1 = { host = "10.0.0.1", addr = "10.20.0.1" }
    mon2 = { host = "10.0.0.2", addr = "10.20.0.2" }
    mon3 = { host = "10.0.0.3", addr = "10.20.0.3" }
  }
  osd_nodes = {
    osd1 = { host = "10.0.0.11", addr = "10.20.0.11" }
    osd2 = { host = "10.0.0.12", addr = "10.20.0.12" }
  }
  clients = {
    client1 = { host = "10.0.0.21" }
    client2 = { host = "10.0.0.22" }
  }
  public_network    = "10.20.0.0/16"
  cluster_network   = "10.30.0.0/16"
  images_per_client = 2
}

run "cluster" {
  command = plan

  assert {
    condition     = hpcstorage_ceph_cluster.this.bootstrap_host == "mon1" && hpcstorage_ceph_cluster.this.mon_ip == "10.20.0.1"
    error_message = "The first monitor (by name) bootstraps the cluster on its address."
  }
  assert {
    condition     = hpcstorage_ceph_cluster.this.mon_count == 3 && hpcstorage_ceph_cluster.this.mgr_count == 2
    error_message = "Three monitors, two managers."
  }
  assert {
    condition     = hpcstorage_ceph_cluster.this.hosts["osd2"].labels == tolist(["osd"]) && hpcstorage_ceph_cluster.this.hosts["mon3"].labels == tolist(["mon", "mgr"])
    error_message = "Monitor nodes carry mon and mgr, OSD nodes osd."
  }
}

run "osd_hosts_in_the_ceph_failure_domain" {
  command = plan
  variables {
    osd_nodes = {
      osd1 = { host = "10.0.0.11", addr = "10.20.0.11", bmc = "osd1-bmc" }
      osd2 = { host = "10.0.0.12", addr = "10.20.0.12", bmc = "osd2-bmc" }
      osd3 = { host = "10.0.0.13", addr = "10.20.0.13" }
    }
  }

  assert {
    condition     = keys(hpcstorage_server.osd) == ["osd1", "osd2"]
    error_message = "Only the OSD nodes with a BMC are servers."
  }
  assert {
    condition = alltrue([for n, s in hpcstorage_server.osd : s.failure_domain.kind == "ceph" && s.failure_domain.node == n &&
    s.failure_domain.name == "ceph" && s.failure_domain.admin_host == "10.0.0.1"])
    error_message = "Each is a member of the ceph failure domain under its CRUSH host name, its cluster commands on the first monitor."
  }
}

run "osds_and_images" {
  command = plan

  assert {
    condition     = hpcstorage_ceph_osd_spec.nvme.data_devices.model == "KCM6XRUL3T84" && hpcstorage_ceph_osd_spec.nvme.data_devices.rotational == false
    error_message = "The OSD spec takes the KIOXIA CM6 NVMe drives only."
  }
  assert {
    condition     = keys(hpcstorage_rbd_images.this.images) == tolist(["client1-img01", "client1-img02", "client2-img01", "client2-img02"])
    error_message = "images_per_client images per client, named after it."
  }
  assert {
    condition     = hpcstorage_rbd_client.this["client2"].images == tolist(["client2-img01", "client2-img02"])
    error_message = "Each client maps its own images."
  }
}

run "even_monitors" {
  command = plan
  variables {
    mons = {
      mon1 = { host = "10.0.0.1", addr = "10.20.0.1" }
      mon2 = { host = "10.0.0.2", addr = "10.20.0.2" }
    }
  }
  expect_failures = [var.mons]
}
