package sim

// cibadmin follows pacemaker's cibadmin(8): it is the real cibadmin, run on
// the lab cluster's CIB (pacemaker.go). --query and the other reads answer
// from the CIB; --patch, --replace, --create, --modify, --delete and
// --erase change it, and the change is refused as the CIB manager refuses
// it (the real tool's own checks, then crm_verify's errors: exit 78) before
// the cluster settles on it. Files given with --xml-file are read in the
// node's root. On a node whose pacemaker is stopped it fails with "Could
// not connect to the CIB: Transport endpoint is not connected" (exit 102).

import "slices"

func cibadmin(e *Env, args []string) int {
	for _, a := range args {
		if slices.Contains([]string{"-Q", "--query"}, a) {
			return e.cibRead("cibadmin", args)
		}
	}
	return e.cibChange("cibadmin", args)
}
