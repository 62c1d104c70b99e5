# A two-node cluster fenced through the servers' BMCs, with one group
# started in order on nfs1 (its preference). The BMC address, user,
# password and TLS setting come from each node's endpoint.
resource "hpcstorage_ha_cluster" "nfs" {
  name         = "nfsha"
  transport    = "udpu" # RHEL 7 (corosync 2); knet on RHEL 8
  two_node     = true
  networks     = ["10.10.1.0/24"]
  authkey_file = "/secure/corosync-authkey" # corosync-keygen -k FILE

  nodes = {
    nfs1 = {
      host  = "nfs1"
      addrs = ["10.10.1.11"]
      fence = {
        endpoint    = "nfs1-bmc"
        systems_uri = "/redfish/v1/Systems/${data.hpcstorage_server.nfs1.system_id}"
        # nfs1 waits before fencing: in a split, nfs2 is fenced first.
        params = { pcmk_delay_base = "10s" }
      }
    }
    nfs2 = {
      host  = "nfs2"
      addrs = ["10.10.1.12"]
      fence = {
        endpoint    = "nfs2-bmc"
        systems_uri = "/redfish/v1/Systems/${data.hpcstorage_server.nfs2.system_id}"
      }
    }
  }

  properties        = { "no-quorum-policy" = "ignore" }
  resource_defaults = { "resource-stickiness" = "100" }

  groups = [{
    id = "web"
    members = [
      { id = "web-ip", type = "IPaddr2", params = { ip = "10.10.1.100", cidr_netmask = "24" },
      ops = [{ name = "monitor", interval = "30s", timeout = "20s" }] },
      { id = "web-httpd", class = "systemd", type = "httpd" },
    ]
  }]
  locations = [{ id = "web-prefers-nfs1", rsc = "web", node = "nfs1", score = "100" }]
}

output "where" {
  value = hpcstorage_ha_cluster.nfs.placement # { web = "nfs1", web-ip = "nfs1", ... }
}
