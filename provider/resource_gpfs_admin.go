package provider

// What the Spectrum Scale resources share: they all act on one admin node
// of the cluster, where the mm commands run (GPFS spreads every change to
// the other nodes itself). Each resource reads the cluster with -Y queries
// (internal/gpfs parses them), decides the commands from what it finds,
// and sends them with the files they read as one agent spec, so a killed
// run is finished by the next one: nothing is decided from state alone.

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

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
	item := protocol.Item{Command: &protocol.Command{Name: strings.Join(argv, " "), Argv: argv, ReadOnly: true}}
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
	return protocol.Item{Command: &protocol.Command{Name: name, Argv: argv}}
}

func gpfsPath(parts ...string) string { return path.Join(append([]string{gpfsDir}, parts...)...) }

// commandLines are the commands of a spec, one a line, for the plan's
// computed attributes and for tests.
func commandLines(items []protocol.Item) []string {
	var out []string
	for _, it := range items {
		if it.Command != nil {
			out = append(out, runner.Quote(it.Command.Argv))
		}
	}
	return out
}

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
