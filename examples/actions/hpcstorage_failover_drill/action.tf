# The R3 paper's HA tests on an R2 pair, in a maintenance window: each
# server to standby and back, then powered off through its BMC, watched
# from the other: terraform apply -invoke=action.hpcstorage_failover_drill.nfs
action "hpcstorage_failover_drill" "nfs" {
  config {
    servers = [for n in ["nfs1", "nfs2"] : {
      endpoint = "${n}-bmc"
      failure_domain = {
        name       = "nfsha"
        kind       = "pacemaker"
        host       = "${n}.example.com"
        node       = n
        admin_host = n == "nfs1" ? "nfs2.example.com" : "nfs1.example.com"
      }
    }]
    power_off = true
  }
}
