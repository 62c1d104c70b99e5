package provider

// What the Spectrum Scale resources share: they all act on one admin node
// of the cluster, where the mm commands run (GPFS spreads every change to
// the other nodes itself). Each resource reads the cluster with -Y queries
// (internal/gpfs parses them), decides the commands from what it finds,
// and sends them with the files they read as one agent spec, so a killed
// run is finished by the next one: nothing is decided from state alone.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	tfpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
)

// gpfsKind names the product in diagnostics.
const gpfsKind = "Spectrum Scale"

// gpfsDir holds the node files, stanza files and policies the resources
// write on the admin node.
const gpfsDir = "/var/lib/hpcstorage/gpfs"

// gpfsQueryOwner owns nothing: queries run read-only under it.
const gpfsQueryOwner = "gpfs-query"

type gpfsAdmin struct {
	nodes *nodeAccess
	host  string
	ssh   types.Object
}

func newGPFSAdmin(nodes *nodeAccess, host types.String, ssh types.Object) gpfsAdmin {
	return gpfsAdmin{nodes: nodes, host: host.ValueString(), ssh: ssh}
}

func (a gpfsAdmin) run(owner string) nodeRun {
	return nodeRun{nodes: a.nodes, host: a.host, ssh: a.ssh, owner: owner}
}

// query runs one read-only mm command. failed is the command's message
// when it exits non-zero (a cluster or file system that does not exist
// yet); ok is false on a transport failure (a diagnostic says why).
func (a gpfsAdmin) query(ctx context.Context, diags *diag.Diagnostics, argv ...string) (out, failed string, ok bool) {
	item := protocol.Item{Command: &protocol.Command{Name: commandName(strings.Join(argv, " ")), Argv: mmArgv(argv), ReadOnly: true}}
	res, ok := a.run(gpfsQueryOwner).exec(ctx, []protocol.Item{item}, true, diags)
	if !ok {
		return "", "", false
	}
	if len(res.Items) != 1 {
		diags.AddError("Agent Returned No Result", fmt.Sprintf("Host %s: no result for %s.", a.host, runner.Quote(argv)))
		return "", "", false
	}
	ir := res.Items[0]
	if ir.Error != "" {
		return ir.Output, ir.Error, true
	}
	return ir.Output, "", true
}

// apply runs items (files, then the commands decided) under owner; a
// failed command becomes an error naming it and the host, and the items
// after it are not run (the agent skips them).
func (a gpfsAdmin) apply(ctx context.Context, owner string, items []protocol.Item, diags *diag.Diagnostics) bool {
	res, ok := a.run(owner).exec(ctx, items, false, diags)
	if !ok {
		return false
	}
	if !res.Failed {
		return true
	}
	for _, ir := range res.Items {
		if ir.Error != "" && !ir.Skipped {
			diags.AddError(gpfsKind+" Command Failed", fmt.Sprintf("Host %s, %s: %s\n\nNothing after it ran. Fix the cause "+
				"and apply again: the next run reads the cluster and carries on from where this one stopped.", a.host, ir.ID, ir.Error))
		}
	}
	if !diags.HasError() {
		diags.AddError(gpfsKind+" Command Failed", fmt.Sprintf("Host %s: %s", a.host, failedItems(res)))
	}
	return false
}

// remove reverts the files owner wrote (never a cluster, NSD or file
// system: the mm commands are not undone).
func (a gpfsAdmin) remove(ctx context.Context, owner string, diags *diag.Diagnostics) {
	a.run(owner).remove(ctx, diags)
}

func gpfsFile(p, content string) protocol.Item {
	return protocol.Item{File: &protocol.File{Path: p, Content: &content, Mode: "0644"}}
}

// gpfsCommand is a command item; name makes its id unique in the spec.
func gpfsCommand(name string, argv ...string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: commandName(name), Argv: mmArgv(argv)}}
}

// gpfsStep is a step's command item, guarded: by its read-only -Y query
// and the expressions its output matches once the step took effect, or,
// for a Once step, by a marker file the command writes after succeeding
// (a fresh one each time the step is decided, from what was just read).
func gpfsStep(s gpfs.Step) protocol.Item {
	it := gpfsCommand(s.Name, s.Argv...)
	if !s.Once {
		it.Command.Unless, it.Command.UnlessMatch = mmArgv(s.Unless), s.Match
		return it
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%q\x00%d", s.Name, s.Argv, time.Now().UnixNano())))
	marker := gpfsPath("once", hex.EncodeToString(sum[:12]))
	it.Command.Argv = append([]string{"/bin/sh", "-c", `m=$1; shift; "$@" && mkdir -p "${m%/*}" && : >"$m"`, "gpfs-once", marker},
		it.Command.Argv...)
	it.Command.Creates = marker
	return it
}

// commandName makes an item id suffix of a step name ("mmchconfig
// nsdNodes" -> "mmchconfig_nsdNodes"): letters, digits, . _ + - only.
func commandName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r) {
			return r
		}
		return '_'
	}, s)
}

// mmBin is where Spectrum Scale installs its commands; it is not on the
// PATH of a non-login shell, so commands are run by their full path.
const mmBin = "/usr/lpp/mmfs/bin/"

func mmArgv(argv []string) []string {
	if len(argv) == 0 || !strings.HasPrefix(argv[0], "mm") {
		return argv
	}
	return append([]string{mmBin + argv[0]}, argv[1:]...)
}

func gpfsPath(parts ...string) string { return path.Join(append([]string{gpfsDir}, parts...)...) }

// gpfsProblems reports the rules a configuration breaks on their
// attributes: refusals as errors, advice as warnings.
func gpfsProblems(diags *diag.Diagnostics, ps gpfs.Problems) {
	for _, p := range ps {
		at := gpfsAttrPath(p.Attr)
		if p.Warning {
			diags.AddAttributeWarning(at, gpfsKind+" Advice", fmt.Sprintf("Attribute %s: %s", at, p.Msg))
			continue
		}
		addError(diags, at, "Invalid "+gpfsKind+" Setting", p.Msg, nil)
	}
}

// gpfsAttrPath reads the attribute paths internal/gpfs writes: names,
// list indexes ([3]) and map keys (["nsdNodes"]).
func gpfsAttrPath(s string) tfpath.Path {
	var at tfpath.Path
	started := false
	for s != "" {
		switch {
		case strings.HasPrefix(s, `["`):
			end := strings.Index(s, `"]`)
			if end < 0 || !started {
				return at
			}
			at = at.AtMapKey(s[2:end])
			s = s[end+2:]
		case strings.HasPrefix(s, "["):
			end := strings.Index(s, "]")
			n, err := strconv.Atoi(s[1:max(end, 1)])
			if end < 0 || err != nil || !started {
				return at
			}
			at = at.AtListIndex(n)
			s = s[end+1:]
		default:
			s = strings.TrimPrefix(s, ".")
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			if !started {
				at, started = tfpath.Root(s[:end]), true
			} else {
				at = at.AtName(s[:end])
			}
			s = s[end:]
		}
	}
	return at
}

// reSafeName is a name that is safe in a file name on the admin node.
var reSafeName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// stepItems turns steps into agent items: the files each reads, then the
// command with its guard (see gpfsCommand).
func stepItems(steps []gpfs.Step) []protocol.Item {
	var items []protocol.Item
	for _, s := range steps {
		for _, f := range sortedKeys(s.Files) {
			items = append(items, gpfsFile(f, s.Files[f]))
		}
		items = append(items, gpfsStep(s))
	}
	return items
}

// dedupeFiles keeps the last item for a path (an agent spec lists each
// file once).
func dedupeFiles(items []protocol.Item) []protocol.Item {
	last := map[string]int{}
	for i, it := range items {
		if it.File != nil {
			last[it.File.Path] = i
		}
	}
	var out []protocol.Item
	for i, it := range items {
		if it.File != nil && last[it.File.Path] != i {
			continue
		}
		out = append(out, it)
	}
	return out
}

// driftText is drift as one line, keys sorted.
func driftText(d map[string]string) string {
	var out []string
	for _, k := range sortedKeys(d) {
		out = append(out, k+": "+d[k])
	}
	return strings.Join(out, "; ")
}

// cutImportID splits an import id HOST/NAME at its last slash (a host may
// be address:port).
func cutImportID(id string) (host, name string, ok bool) {
	i := strings.LastIndex(id, "/")
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}
