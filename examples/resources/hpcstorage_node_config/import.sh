# A node_config is imported by host and owner. Sysctl values, THP modes,
# kernel modules, unit states and files the owner created are read back
# from the node; anything else is named in a warning.
terraform import 'hpcstorage_node_config.storage["stor01"]' stor01/r1-storage-tuning
