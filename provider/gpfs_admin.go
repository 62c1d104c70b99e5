package provider

// What the Spectrum Scale resources share: they all act on one admin node
// of the cluster, where the mm commands run (GPFS spreads every change to
// the other nodes itself). Each resource reads the cluster with -Y queries
// (internal/gpfs parses them), decides the commands from what it finds,
// and sends them with the files they read as one agent spec, so a killed
// run is finished by the next one: nothing is decided from state alone.

import (
	"context"
	"path"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	tfpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
)

// gpfsKind names the product in diagnostics.
const gpfsKind = "Spectrum Scale"

// gpfsDir holds the node files, stanza files and policies the resources
// write on the admin node.
const gpfsDir = "/var/lib/hpcstorage/gpfs"

// gpfsFamily runs the mm commands on the cluster-service shell
// (cluster_service.go); gpfsQueryOwner owns nothing, queries run read-only
// under it.
var gpfsFamily = clusterFamily{kind: gpfsKind, queryOwner: gpfsQueryOwner, resume: "\n\nNothing after it ran. Fix the " +
	"cause and apply again: the next run reads the cluster and carries on from where this one stopped."}

const gpfsQueryOwner = "gpfs-query"

// gpfsAdmin is the shell on the cluster's admin node; its remove (the
// shell's) reverts the files an owner wrote, never a cluster, NSD or file
// system: the mm commands are not undone.
type gpfsAdmin struct{ clusterShell }

func newGPFSAdmin(nodes *nodeAccess, host types.String, ssh types.Object) gpfsAdmin {
	return gpfsAdmin{gpfsFamily.on(nodes, host.ValueString(), ssh)}
}

// query runs one read-only mm command. failed is the command's message
// when it exits non-zero (a cluster or file system that does not exist
// yet); ok is false on a transport failure (a diagnostic says why).
func (a gpfsAdmin) query(ctx context.Context, diags *diag.Diagnostics, argv ...string) (out, failed string, ok bool) {
	return a.queryAs(ctx, diags, commandName(strings.Join(argv, " ")), argv...)
}

// queryAs is query with the item named name (argv too long or too odd
// to name it: a shell script).
func (a gpfsAdmin) queryAs(ctx context.Context, diags *diag.Diagnostics, name string, argv ...string) (out, failed string, ok bool) {
	item := protocol.Item{Command: &protocol.Command{Name: name, Argv: mmArgv(argv), ReadOnly: true}}
	res, ok := a.results(ctx, diags, []protocol.Item{item})
	if !ok {
		return "", "", false
	}
	return res[0].Output, res[0].Error, true
}

// apply runs items (files, then the commands decided) under owner; a
// failed command becomes an error naming it and the host, and the items
// after it are not run (the agent skips them).
func (a gpfsAdmin) apply(ctx context.Context, owner string, items []protocol.Item, diags *diag.Diagnostics) bool {
	return a.clusterShell.apply(ctx, owner, items, gpfsKind+" Command Failed", diags)
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
	if s.Pending != "" {
		return gpfs.PendingItem(it.Command.Name, s.Pending, it.Command.Argv)
	}
	if !s.Once {
		it.Command.Unless, it.Command.UnlessMatch = mmArgv(s.Unless), s.Match
		return it
	}
	return gpfs.OnceItem(it.Command.Name, s, it.Command.Argv, gpfsPath("once"), clusterNonce())
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

// nothingSent is the detail of a refusal made before any command.
const nothingSent = "Correct the configuration: nothing was sent to the cluster."

// gpfsProblems reports the rules a configuration breaks on their
// attributes: refusals as errors, advice as warnings.
func gpfsProblems(diags *diag.Diagnostics, ps gpfs.Problems) {
	addLocated(diags, tfpath.Empty(), "Invalid "+gpfsKind+" Setting", nothingSent, ps.Err())
	addLocated(diags, tfpath.Empty(), gpfsKind+" Advice", "", ps.Warnings())
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
