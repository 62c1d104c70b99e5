# <host>/beegfs-stripe-<12 hex digits>: the resource's id, as the state
# that applied it shows it (terraform state show). Rarely needed: creating
# the resource over a directory that already has the pattern changes nothing.
terraform import hpcstorage_beegfs_stripe_pattern.bench client01/beegfs-stripe-3f9a0c1d2e4b
