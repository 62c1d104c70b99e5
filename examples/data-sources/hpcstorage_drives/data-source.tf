data "hpcstorage_drives" "me4084_1" {
  endpoint = "me4084-1"
}

output "free_hdds" {
  value = [for d in data.hpcstorage_drives.me4084_1.drives : d.id
  if d.media_type == "HDD" && d.disk_group == "" && d.hotspare_type == "None"]
}
