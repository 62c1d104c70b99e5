# R1: beegfs-mon on the management server, writing to the InfluxDB that
# runs beside it; the BeeGFS Grafana dashboards read database beegfs_mon.
resource "hpcstorage_beegfs_monitor" "mon" {
  host              = "mgmt"
  mgmtd_host        = "meta1"
  influxdb_host     = "localhost"
  influxdb_database = "beegfs_mon"
  influxdb_username = "beegfs_mon"
  influxdb_password = var.influxdb_password # write-only: never stored in state
  conn_auth_secret  = var.beegfs_secret
  settings = {
    collectClientOpsByUser = "false" # per-node client statistics only
    dbRetentionDuration    = "30d"
  }
}

variable "influxdb_password" {
  type      = string
  sensitive = true
  ephemeral = true # Terraform 1.10+: in no plan file or state
}

variable "beegfs_secret" {
  type      = string
  sensitive = true
  ephemeral = true # Terraform 1.10+: in no plan file or state
}
