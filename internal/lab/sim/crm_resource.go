package sim

// crm_resource follows pacemaker's crm_resource(8): the real crm_resource
// on the lab cluster's CIB (pacemaker.go). Queries (--locate, --list,
// --get-parameter) answer from it; --set-parameter, --delete-parameter,
// --meta, --move and --ban change it like a change made by hand with pcs,
// checked and settled as cibadmin's changes are. --wait returns at once:
// the lab's transitions have already run to their end (on a CIB file the
// real one only sleeps).

func crmResource(e *Env, args []string) int {
	for _, a := range args {
		if a == "--wait" || a == "-w" {
			if !e.pcmkConnected() {
				return exitNotConnected
			}
			return 0
		}
	}
	return e.cibChange("crm_resource", args)
}
