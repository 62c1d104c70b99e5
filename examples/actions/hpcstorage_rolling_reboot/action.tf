# Reboot both NFS servers of an R2 pair, one at a time, each in standby
# while it is away: terraform apply -invoke=action.hpcstorage_rolling_reboot.nfs
action "hpcstorage_rolling_reboot" "nfs" {
  config {
    servers = [for n in ["nfs1", "nfs2"] : {
      endpoint = "${n}-bmc"
      failure_domain = {
        name = "nfsha"
        kind = "pacemaker"
        host = "${n}.example.com"
        node = n
      }
    }]
    timeout = "45m"
  }
}
