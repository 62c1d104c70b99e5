package sim

// crm_mon follows pacemaker's crm_mon(8): the real crm_mon, run once on
// the lab cluster's CIB (pacemaker.go), so `crm_mon -1 -X` and `crm_mon
// --output-as=xml` print the nodes (online, standby), where each resource
// runs after the scheduler's last transition and the failed actions
// (<failures>, from the CIB's operation history). The fencing history is
// the fencer's, which the real tool cannot read from a CIB file: the lab
// adds it from its own (stonith_admin.go) as crm_mon does, after the
// failures, by --fence-history's level (0 none; 1, the default, failed and
// pending only: the lab's fencings all succeed; 2 the last success per
// node; 3 all). Without a running pacemaker on the node it fails as the
// real one does (exit 102).

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

func crmMon(e *Env, args []string) int {
	once, asXML, level := false, false, 1
	for i, a := range args {
		switch {
		case a == "-1" || a == "--one-shot" || a == "-h" || a == "--help":
			once = true
		case a == "-X" || a == "--as-xml" || a == "--output-as=xml":
			once, asXML = true, true
		case strings.HasPrefix(a, "--fence-history="):
			level, _ = strconv.Atoi(strings.TrimPrefix(a, "--fence-history="))
		case a == "--fence-history":
			level = 3
		case a == "-m" && i+1 < len(args):
			level, _ = strconv.Atoi(args[i+1])
		case strings.HasPrefix(a, "-m") && len(a) > 2:
			level, _ = strconv.Atoi(a[2:])
		}
	}
	if !once {
		// The interactive display never ends: the lab runs it once.
		args = append([]string{"-1"}, args...)
	}
	var out bytes.Buffer
	stdout := e.Stdout
	e.Stdout = &out
	code := e.cibRead("crm_mon", args)
	e.Stdout = stdout
	if code == 0 && level >= 2 {
		withFenceHistory(e, &out, asXML, level)
	}
	_, _ = io.Copy(stdout, &out)
	return code
}

// withFenceHistory adds the lab fencer's events to crm_mon's output.
func withFenceHistory(e *Env, out *bytes.Buffer, asXML bool, level int) {
	c, _, err := e.localCluster()
	if err != nil {
		return
	}
	dir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return
	}
	h := readFenceHistory(dir)
	unlock()
	if level == 2 {
		// The last success per node only.
		last := map[string]int{}
		for i, ev := range h {
			last[ev.Target] = i
		}
		var kept []fenceEvent
		for i, ev := range h {
			if last[ev.Target] == i {
				kept = append(kept, ev)
			}
		}
		h = kept
	}
	if len(h) == 0 {
		return
	}
	// Newest first, as crm_mon sorts them.
	for i, j := 0, len(h)-1; i < j; i, j = i+1, j-1 {
		h[i], h[j] = h[j], h[i]
	}
	s := out.String()
	if !asXML {
		var b strings.Builder
		b.WriteString("\nFencing History:\n")
		for _, ev := range h {
			fmt.Fprintf(&b, "  * %s of %s successful: delegate=%s, client=%s, origin=%s, completed='%s'\n",
				ev.Action, ev.Target, ev.Delegate, ev.Client, ev.Origin, ev.Completed)
		}
		out.Reset()
		out.WriteString(strings.TrimRight(s, "\n") + "\n" + b.String())
		return
	}
	var b strings.Builder
	b.WriteString("  <fence_history>\n")
	for _, ev := range h {
		b.WriteString("    " + fenceEventXML(ev) + "\n")
	}
	b.WriteString("  </fence_history>\n")
	// After <failures> when there are any, else before the first of the
	// elements crm_mon prints after it.
	at := -1
	if i := strings.Index(s, "</failures>"); i >= 0 {
		at = i + len("</failures>\n")
	} else {
		for _, tag := range []string{"<tickets", "<bans", "<status code", "</pacemaker-result>", "</crm_mon>"} {
			if i := strings.Index(s, "  "+tag); i >= 0 {
				at = i
				break
			}
			if i := strings.Index(s, tag); i >= 0 {
				at = i
				break
			}
		}
	}
	if at < 0 || at > len(s) {
		return
	}
	out.Reset()
	out.WriteString(s[:at] + b.String() + s[at:])
}
