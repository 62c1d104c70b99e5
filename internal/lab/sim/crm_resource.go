package sim

// crm_resource follows pacemaker's crm_resource(8): the real crm_resource
// on the lab cluster's CIB (pacemaker.go). Queries (--locate, --list,
// --get-parameter) answer from it; --set-parameter, --delete-parameter,
// --meta, --move, --clear and --ban change it like a change made by hand
// with pcs, checked and settled as cibadmin's changes are. --wait returns
// at once: the lab's transitions have already run to their end (on a CIB
// file the real one only sleeps). --cleanup is the controller's work,
// which the real tool skips on a CIB file ("Dry run"): the lab does what
// the controller does, with the real cibadmin: it deletes each failed
// operation (<rsc>_last_failure_0) and the fail-count and last-failure
// attributes of the resource (--resource) on the node (--node), or of
// every resource that failed, printing "Cleaned up R on N", then the
// cluster settles (the resource is probed again).

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func crmResource(e *Env, args []string) int {
	cleanup := false
	var rsc, node string
	for i, a := range args {
		switch {
		case a == "--wait" || a == "-w":
			if !e.pcmkConnected() {
				return exitNotConnected
			}
			return 0
		case a == "--cleanup" || a == "-C":
			cleanup = true
		case (a == "--resource" || a == "-r") && i+1 < len(args):
			rsc = args[i+1]
		case strings.HasPrefix(a, "--resource="):
			rsc = strings.TrimPrefix(a, "--resource=")
		case (a == "--node" || a == "-N") && i+1 < len(args):
			node = args[i+1]
		case strings.HasPrefix(a, "--node="):
			node = strings.TrimPrefix(a, "--node=")
		}
	}
	if cleanup {
		return crmCleanup(e, args, rsc, node)
	}
	return e.cibChange("crm_resource", args)
}

// cibFailures are the failed operations of a CIB's status, with the
// transient attributes that count them.
type cibFailure struct{ node, rsc, op string }

func cibFailures(cib []byte) ([]cibFailure, error) {
	var doc struct {
		States []struct {
			Uname     string `xml:"uname,attr"`
			Resources []struct {
				ID  string `xml:"id,attr"`
				Ops []struct {
					ID string `xml:"id,attr"`
				} `xml:"lrm_rsc_op"`
			} `xml:"lrm>lrm_resources>lrm_resource"`
		} `xml:"status>node_state"`
	}
	if err := xml.Unmarshal(cib, &doc); err != nil {
		return nil, err
	}
	var out []cibFailure
	for _, s := range doc.States {
		for _, r := range s.Resources {
			for _, op := range r.Ops {
				if strings.HasSuffix(op.ID, "_last_failure_0") {
					out = append(out, cibFailure{s.Uname, r.ID, op.ID})
				}
			}
		}
	}
	return out, nil
}

func crmCleanup(e *Env, args []string, rsc, node string) int {
	if !e.pcmkConnected() {
		return exitNotConnected
	}
	c, _, err := e.localCluster()
	if err != nil {
		return e.fail(exitNotConnected, "Could not connect to the controller: %v", err)
	}
	dir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return e.fail(1, "%v", err)
	}
	defer unlock()
	cib := filepath.Join(dir, pcmkCIB)
	data, err := os.ReadFile(cib)
	if err != nil {
		return e.fail(exitNotConnected, "Could not connect to the controller: %v", err)
	}
	fails, err := cibFailures(data)
	if err != nil {
		return e.fail(1, "%s: %v", cib, err)
	}
	cleaned := 0
	for _, f := range fails {
		if (rsc != "" && f.rsc != rsc) || (node != "" && f.node != node) {
			continue
		}
		state := fmt.Sprintf("//node_state[@uname='%s']", f.node)
		for _, xp := range []string{
			state + fmt.Sprintf("/lrm/lrm_resources/lrm_resource[@id='%s']/lrm_rsc_op[@id='%s']", f.rsc, f.op),
			state + fmt.Sprintf("/transient_attributes//nvpair[starts-with(@name,'fail-count-%s#') or starts-with(@name,'last-failure-%s#')]", f.rsc, f.rsc),
		} {
			var out, errb bytes.Buffer
			code, err := runReal("cibadmin", []string{"--delete-all", "--xpath", xp, "--force"}, cib, &out, &errb)
			if err != nil {
				return e.fail(1, "%v", err)
			}
			// 105 (no such object): nothing counted this failure.
			if code != 0 && code != 105 {
				return e.fail(code, "cleaning up %s on %s: %s", f.rsc, f.node, strings.TrimSpace(errb.String()))
			}
		}
		fmt.Fprintf(e.Stdout, "Cleaned up %s on %s\n", f.rsc, f.node)
		cleaned++
	}
	if cleaned == 0 {
		return 0
	}
	logChange(dir, e, "crm_resource", args)
	if err := settle(dir, c, nil, nil); err != nil {
		return e.fail(1, "%v", err)
	}
	return 0
}
