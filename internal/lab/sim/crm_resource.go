package sim

// crm_resource follows pacemaker's crm_resource(8): the real crm_resource
// on the lab cluster's CIB (pacemaker.go). Queries (--locate, --list,
// --get-parameter) answer from it; --set-parameter, --delete-parameter,
// --meta, --move and --ban change it like a change made by hand with pcs,
// checked and settled as cibadmin's changes are.

func crmResource(e *Env, args []string) int { return e.cibChange("crm_resource", args) }
