data "hpcstorage_node_facts" "stor01" {
  host = "stor01"
}

# The node's disks that are array volumes (rotational), by WWN, e.g. to
# match them with the volumes of an hpcstorage array.
output "array_disks" {
  value = {
    for d in data.hpcstorage_node_facts.stor01.block_devices : d.wwn => d.name if d.rotational
  }
}
