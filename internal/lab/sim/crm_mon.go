package sim

// crm_mon follows pacemaker's crm_mon(8): the real crm_mon, run once on
// the lab cluster's CIB (pacemaker.go), so `crm_mon -1 -X` and `crm_mon
// --output-as=xml` print the nodes (online, standby) and where each
// resource runs after the scheduler's last transition. Without a running
// pacemaker on the node it fails as the real one does (exit 102).

func crmMon(e *Env, args []string) int {
	for _, a := range args {
		if a == "-1" || a == "--one-shot" || a == "-X" || a == "--as-xml" || a == "--output-as=xml" || a == "-h" || a == "--help" {
			return e.cibRead("crm_mon", args)
		}
	}
	// The interactive display never ends: the lab runs it once.
	return e.cibRead("crm_mon", append([]string{"-1"}, args...))
}
