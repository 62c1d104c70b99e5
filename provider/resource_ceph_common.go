package provider

// What the Ceph resources share: the node holding the admin keyring (the
// bootstrap monitor) runs every ceph and rbd command through the agent.
// Queries go in one read-only request under an owner that never holds
// files; changes go in one request per apply, each command sent only when
// the read-back says the cluster differs.

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

const cephKind = "Ceph"

// cephQueryOwner runs read-only queries: it never holds files, so a query
// cannot revert what another owner wrote.
const cephQueryOwner = "ceph-query"

func cephAdminHostAttribute() schema.StringAttribute {
	return schema.StringAttribute{Required: true,
		MarkdownDescription: "Node holding the cluster's admin keyring (`hpcstorage_ceph_cluster.admin_host`, the bootstrap " +
			"monitor): name or address, optionally `name:port`, reached over SSH with the provider's `ssh` settings. Every " +
			"`ceph` and `rbd` command of this resource runs there, through the agent.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
}

// cephNode runs items on one node as one owner.
func cephNode(nodes *nodeAccess, host string, ssh types.Object, owner string) nodeRun {
	return nodeRun{nodes: nodes, host: host, ssh: ssh, owner: owner}
}

// cephQuery runs read-only queries in one request and returns their stdout
// by item name.
func cephQuery(ctx context.Context, nodes *nodeAccess, host string, ssh types.Object, diags *diag.Diagnostics,
	items ...protocol.Item) (map[string]string, bool) {
	run := cephNode(nodes, host, ssh, cephQueryOwner)
	res, ok := run.exec(ctx, items, true, diags)
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for i, ir := range res.Items {
		if ir.Error != "" {
			diags.AddError("Ceph Query Failed", fmt.Sprintf("Host %s: %s: %s", host, ir.ID, ir.Error))
			return nil, false
		}
		if len(ir.Output) >= protocol.MaxOutput {
			diags.AddError("Ceph Output Too Long", fmt.Sprintf("Host %s: %s printed more than the agent returns (%d bytes).",
				host, ir.ID, protocol.MaxOutput))
			return nil, false
		}
		out[items[i].Command.Name] = ir.Output
	}
	return out, true
}

// cephApply runs items (not a check) and reports failed items and the
// agent's warnings.
func cephApply(ctx context.Context, run nodeRun, items []protocol.Item, summary string, diags *diag.Diagnostics) bool {
	res, ok := run.exec(ctx, items, false, diags)
	if !ok {
		return false
	}
	if res.Failed {
		run.itemErrors(res, summary, diags)
		return false
	}
	for _, ir := range res.Items {
		for _, w := range ir.Warnings {
			diags.AddWarning("Node Warning", fmt.Sprintf("Host %s, %s: %s", run.host, ir.ID, w))
		}
	}
	return true
}

// cephNonce names one apply's command markers (ceph.Once).
func cephNonce() string { return strconv.FormatInt(time.Now().UnixNano(), 36) }

// cephInvalid reports a renderer's validation error on an attribute.
func cephInvalid(diags *diag.Diagnostics, at string, err error) {
	invalidSetting(diags, cephKind, pathOf(at), err)
}

// stringsOf reads a list or set of strings (unknown elements skipped).
func stringsOf(elems []attr.Value) []string {
	var out []string
	for _, e := range elems {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out = append(out, s.ValueString())
		}
	}
	return out
}

// cephFieldPath maps an internal/ceph validation error ("...: field.sub: ...")
// onto an attribute, prefixing the resource's block name.
func cephFieldPath(err error, known ...string) string {
	msg := err.Error()
	best := ""
	for _, k := range known {
		if strings.Contains(msg, ": "+k+": ") || strings.Contains(msg, ": "+k+".") {
			if len(k) > len(best) {
				best = k
			}
		}
	}
	return best
}

// pathOf turns "a.b.c" into an attribute path ("" is the resource).
func pathOf(at string) path.Path {
	if at == "" {
		return path.Empty()
	}
	parts := strings.Split(at, ".")
	p := path.Root(parts[0])
	for _, x := range parts[1:] {
		p = p.AtName(x)
	}
	return p
}

func validIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// getter is a plan, state or configuration.
type getter interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// decoded models hold maps of objects that may be unknown (module inputs
// at validation): their raw attribute is a types value, decoded once known.
type decoded interface {
	decode(ctx context.Context, diags *diag.Diagnostics)
}

// getModel reads src into m and decodes its raw attributes.
func getModel(ctx context.Context, src getter, m decoded, diags *diag.Diagnostics) {
	diags.Append(src.Get(ctx, m)...)
	if !diags.HasError() {
		m.decode(ctx, diags)
	}
}
