package gpfs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/runonce"
)

// Every step carries the guard that tells it is done, so the agent runs it
// only while it is not (a killed run, re-run, skips what went through): a
// read-only -Y query and regular expressions its output matches once the
// step took effect. Steps whose effect is an absence (a node, NSD, disk or
// export removed) or that have no readable effect (a licence accepted, a
// restripe) are Once: they run a single time, recorded by a marker file.

// yVal is a regular expression for a -Y field holding s: IBM percent-
// encodes ':' and '%' always and '/' in some commands.
func yVal(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '/':
			b.WriteString("(?:/|%2F)")
		case ':':
			b.WriteString("%3A")
		case '%':
			b.WriteString("%25")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return b.String()
}

// nodeName matches a node's short name, or its long one.
func nodeName(n string) string { return yVal(n) + `(?:\.[^:\n]*)?` }

func guardCluster(name string) ([]string, []string) {
	return []string{"mmlscluster", "-Y"}, []string{`(?m)^mmlscluster:clusterSummary:0:1:::` + yVal(name) + `:`}
}

func guardNodes(nodes []Node) ([]string, []string) {
	var m []string
	for _, n := range nodes {
		m = append(m, `(?m)^mmlscluster:clusterNode:0:1:::[0-9]+:`+nodeName(n.Name)+`:`)
	}
	return []string{"mmlscluster", "-Y"}, m
}

func guardClass(class string) ([]string, []string) {
	return []string{"mmlsnodeclass", "-Y"}, []string{`(?m)^mmlsnodeclass:[^:\n]*:0:1:::` + yVal(class) + `:`}
}

// valueForms matches the ways mmlsconfig may print a value (sizes in any
// unit).
func valueForms(key, v string) string {
	forms := []string{yVal(v)}
	if a, ok := Attributes[key]; ok && a.Kind == "size" {
		if n, err := ParseSize(v); err == nil {
			alt := []string{FormatSize(n), fmt.Sprint(n), strings.ToLower(FormatSize(n))}
			for _, u := range []struct {
				s string
				m int64
			}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
				if n%u.m == 0 {
					alt = append(alt, fmt.Sprint(n/u.m)+u.s)
				}
			}
			for _, f := range alt {
				if f != v {
					forms = append(forms, yVal(f))
				}
			}
		}
	}
	return "(?:" + strings.Join(forms, "|") + ")"
}

func guardConfig(scope string, kv map[string]string) ([]string, []string) {
	var m []string
	for _, k := range sortedKeys(kv) {
		list := `[^:\n]*`
		if scope == AllNodes {
			list = ""
		} else {
			list = `(?:[^:\n]*,)?` + yVal(scope) + `(?:,[^:\n]*)?`
		}
		m = append(m, `(?m)^mmlsconfig::0:1:::`+yVal(k)+`:`+valueForms(k, kv[k])+`:`+list+`:`)
	}
	return []string{"mmlsconfig", "-Y"}, m
}

func guardActive(nodes []string) ([]string, []string) {
	var m []string
	for _, n := range nodes {
		m = append(m, `(?m)^mmgetstate::0:1:::`+nodeName(n)+`:[0-9]+:active:`)
	}
	return []string{"mmgetstate", "-a", "-Y"}, m
}

func guardNSDs(names []string) ([]string, []string) {
	var m []string
	for _, n := range names {
		m = append(m, `(?m)^mmlsnsd:nsd:0:1:::[^:\n]*:`+yVal(n)+`:`)
	}
	return []string{"mmlsnsd", "-X", "-Y"}, m
}

func guardFS(device string) ([]string, []string) {
	return []string{"mmlsfs", device, "-Y"}, []string{`(?m)^mmlsfs::0:1:::` + yVal(device) + `:`}
}

func guardDisks(device string, names []string) ([]string, []string) {
	var m []string
	for _, n := range names {
		m = append(m, `(?m)^mmlsdisk::0:1:::`+yVal(n)+`:`)
	}
	return []string{"mmlsdisk", device, "-Y"}, m
}

func guardPolicy(device, policy string) ([]string, []string) {
	var m []string
	for _, l := range strings.Split(policy, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "/*") {
			continue
		}
		q := make([]string, len(f))
		for i, w := range f {
			q[i] = regexp.QuoteMeta(w)
		}
		m = append(m, strings.Join(q, `\s+`))
	}
	return []string{"mmlspolicy", device, "-L"}, m
}

func guardMounted(device string) ([]string, []string) {
	return []string{"mmlsmount", device, "-Y"}, []string{`(?m)^mmlsmount:[^:\n]*:0:1:::`}
}

func guardService(svc string) ([]string, []string) {
	return []string{"mmces", "service", "list", "-Y"}, []string{`(?m)^mmces:service:0:1:::(?:[^:\n]*:)*?` + yVal(svc) + `:`}
}

func guardExport(e NFSExport) ([]string, []string) {
	var m []string
	for _, c := range e.Clients {
		m = append(m, `(?m)^mmnfs:nfsexports:0:1:::`+yVal(e.Path)+`:(?:[^:\n]*:)*?`+yVal(c.Spec)+`:`)
	}
	return []string{"mmnfs", "export", "list", "-Y"}, m
}

// guarded sets a step's guard.
func guarded(s Step, q []string, m []string) Step {
	s.Unless, s.Match = q, m
	return s
}

// once marks a step to run a single time.
func once(s Step) Step {
	s.Once = true
	return s
}

// OnceItem runs a Once step a single time: id is its item id suffix and
// argv the command as the node runs it (the step's, by its full path); the
// marker it leaves is OnceMarker's.
func OnceItem(id string, s Step, argv []string, dir, nonce string) protocol.Item {
	return runonce.Item(id, "gpfs-once", OnceMarker(dir, s, nonce), argv...)
}

// PendingItem runs argv (the step's, by its full path) while the record
// file is not empty, and empties it once argv succeeded: the record a
// step before it wrote, in this run or a killed one.
func PendingItem(name, file string, argv []string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: name,
		Argv:   append([]string{"/bin/sh", "-c", `f=$1; shift; "$@" && : >"$f"`, "gpfs-pending", file}, argv...),
		Unless: []string{"/bin/sh", "-c", `[ -s "$1" ] && exit 1; exit 0`, "gpfs-pending", file}}}
}

// OnceMarker is the marker file of a Once step in dir for one decision
// (nonce): named by a hash of the step, as a step's argv can be long.
func OnceMarker(dir string, s Step, nonce string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%q\x00%s", s.Name, s.Argv, nonce)))
	return path.Join(dir, hex.EncodeToString(sum[:12]))
}
