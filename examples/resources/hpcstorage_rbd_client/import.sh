# A client is imported by its SSH address and cephx name (HOST/NAME). Import
# adopts what this provider applied: every apply also records the
# configuration on the client (/var/lib/hpcstorage/resources/rbd-client-NAME.json)
# and import reads it back; keyring_hash stays empty until the next apply.
terraform import 'hpcstorage_rbd_client.this["client01"]' client01/client01
