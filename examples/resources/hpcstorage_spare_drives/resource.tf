# The drives the layout leaves over (4 on an ME4084 carved as 8 x RAID6 8+2)
# become global spares.
resource "hpcstorage_spare_drives" "me4084_1" {
  endpoint  = "me4084-1"
  drive_ids = data.hpcstorage_array_layout.me4084_1.spare_drive_ids
}

# E-Series hot spares (tray.slot); a DDP keeps its own reserve instead.
resource "hpcstorage_spare_drives" "ef600_2" {
  endpoint  = "ef600-2"
  drive_ids = ["99.22", "99.23"]
}
