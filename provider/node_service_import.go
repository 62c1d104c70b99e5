package provider

// Import of node service resources. A node keeps no desired state the
// provider could read back (the agent records only originals), so every
// apply also writes the resource's configured attributes to a root-only
// record on the node; import reads that record back (through the agent's
// revert preview, which shows the content of files the owner created), so
// the first plan after import is empty when the configuration matches
// what was applied. Secrets, their hashes and the ssh block are not
// recorded.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// recordDir holds one record per owner on the node.
const recordDir = "/var/lib/hpcstorage/resources"

func recordPath(owner string) string { return recordDir + "/" + owner + ".json" }

// recorded reports whether a root attribute goes into the record: what the
// configuration sets, except secrets, their hashes and connection settings.
func recorded(name string, a schema.Attribute) bool {
	if name == "ssh" || name == "id" || name == "drift" || strings.HasSuffix(name, "_hash") {
		return false
	}
	if a.IsSensitive() || a.IsWriteOnly() {
		return false
	}
	return a.IsRequired() || a.IsOptional()
}

// recordItem renders the record from v, the resource's whole value as the
// framework holds it (a plan's or a state's Raw): no reflection from a
// model. ok is false while a recorded value is unknown (plan time), when
// no record can be written yet, and for a null v.
func recordItem(sch schema.Schema, owner string, v tftypes.Value) (protocol.Item, bool) {
	var root map[string]tftypes.Value
	if v.IsNull() || v.As(&root) != nil {
		return protocol.Item{}, false
	}
	out := map[string]any{}
	for name, a := range sch.Attributes {
		if !recorded(name, a) {
			continue
		}
		v, err := tfJSON(root[name])
		if err != nil {
			return protocol.Item{}, false
		}
		out[name] = v
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return protocol.Item{}, false
	}
	content := string(b) + "\n"
	return protocol.Item{File: &protocol.File{Path: recordPath(owner), Content: &content, Mode: "0600", Owner: "root", Group: "root"}}, true
}

// modelValue is m as the framework would hold it, for the record of a
// model that no request carries (an import just read back and filled).
func modelValue(ctx context.Context, sch schema.Schema, m any) tftypes.Value {
	st := tfsdk.State{Schema: sch}
	if d := st.Set(ctx, m); d.HasError() {
		return tftypes.Value{}
	}
	return st.Raw
}

// sameRecord reports whether a and b (a plan's and a state's Raw) agree on
// every recorded attribute: their records would be the same.
func sameRecord(sch schema.Schema, a, b tftypes.Value) bool {
	var am, bm map[string]tftypes.Value
	if a.IsNull() || b.IsNull() || a.As(&am) != nil || b.As(&bm) != nil {
		return false
	}
	for name, at := range sch.Attributes {
		if recorded(name, at) && !am[name].Equal(bm[name]) {
			return false
		}
	}
	return true
}

// tfJSON converts a known value to what encoding/json writes in the shape
// tftypes.ValueFromJSON reads back.
func tfJSON(v tftypes.Value) (any, error) {
	if !v.IsFullyKnown() {
		return nil, fmt.Errorf("unknown value")
	}
	if v.IsNull() {
		return nil, nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		return s, v.As(&s)
	case v.Type().Is(tftypes.Bool):
		var b bool
		return b, v.As(&b)
	case v.Type().Is(tftypes.Number):
		var f big.Float
		if err := v.As(&f); err != nil {
			return nil, err
		}
		return json.Number(f.Text('g', -1)), nil
	}
	var l []tftypes.Value
	if err := v.As(&l); err == nil {
		out := make([]any, len(l))
		for i, e := range l {
			if out[i], err = tfJSON(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, e := range m {
		var err error
		if out[k], err = tfJSON(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nodeImportOwner is implemented by models whose import id does not end in
// the owner (the target's `host/wwn`).
type nodeImportOwner interface {
	importOwner(tail string) string
}

// ImportState takes `host/<tail>` (the resource's id); the rest of the
// state is read back from the node's record by the Read that follows.
func (r *nodeService[M, P]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	i := strings.LastIndex(req.ID, "/")
	if i <= 0 || i == len(req.ID)-1 {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Want host/%s (the resource's id, e.g. stor01/%s), got %q.",
			r.importTail(), r.importExample(), req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("host"), req.ID[:i])...)
}

func (r *nodeService[M, P]) importTail() string {
	var m M
	if _, ok := any(P(&m)).(nodeImportOwner); ok {
		return "<wwn>"
	}
	return "<owner>"
}

func (r *nodeService[M, P]) importExample() string {
	var m M
	if _, ok := any(P(&m)).(nodeImportOwner); ok {
		return "600a098000f63714000003a35f1a2b3c"
	}
	return P(&m).owner()
}

// readImported fills an imported state (id and host only) from the node's
// record; false when it could not (diagnostics say why).
func (r *nodeService[M, P]) readImported(ctx context.Context, state *tfsdk.State, id, host string, diags *diag.Diagnostics) bool {
	tail := id[strings.LastIndex(id, "/")+1:]
	var m M
	owner := tail
	if o, ok := any(P(&m)).(nodeImportOwner); ok {
		owner = o.importOwner(tail)
	}
	return readRecord(ctx, r.nodes, r.schema(), state, host, owner, "host/"+r.importTail(), diags)
}

// readRecord fills state from the record of owner on host (the state's ssh
// reaches it); idForm names the import id in the refusal.
func readRecord(ctx context.Context, nodes *nodeAccess, sch schema.Schema, state *tfsdk.State, host, owner, idForm string, diags *diag.Diagnostics) bool {
	var ssh types.Object
	diags.Append(state.GetAttribute(ctx, path.Root("ssh"), &ssh)...)
	run := nodeRun{nodes: nodes, host: host, ssh: ssh, owner: owner}
	res, ok := run.exec(ctx, nil, true, diags)
	if !ok {
		return false
	}
	content, found := createdContent(res, recordPath(owner))
	if !found {
		diags.AddError("Nothing To Import", fmt.Sprintf("Host %s has no record of owner %q (%s): import only adopts what this "+
			"provider applied. Check the import ID (%s).", host, owner, recordPath(owner), idForm))
		return false
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &rec); err != nil {
		diags.AddError("Unreadable Import Record", fmt.Sprintf("Host %s, %s: %v", host, recordPath(owner), err))
		return false
	}
	names := make([]string, 0, len(rec))
	for name := range rec {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a, ok := sch.Attributes[name]
		if !ok || !recorded(name, a) {
			continue // written by another version of the provider
		}
		typ := a.GetType()
		tv, err := tftypes.ValueFromJSON(rec[name], typ.TerraformType(ctx))
		if err != nil {
			diags.AddError("Unreadable Import Record", fmt.Sprintf("Host %s, %s, %s: %v", host, recordPath(owner), name, err))
			return false
		}
		v, err := typ.ValueFromTerraform(ctx, tv)
		if err != nil {
			diags.AddError("Unreadable Import Record", fmt.Sprintf("Host %s, %s, %s: %v", host, recordPath(owner), name, err))
			return false
		}
		diags.Append(state.SetAttribute(ctx, path.Root(name), v)...)
	}
	return !diags.HasError()
}

// createdContent is the content of a file the owner created, as the
// revert preview shows it: a diff removing every line.
func createdContent(res *protocol.Result, file string) (string, bool) {
	for _, ir := range res.Items {
		if ir.ID != "revert:file:"+file {
			continue
		}
		var b strings.Builder
		for _, l := range strings.SplitAfter(ir.Diff, "\n") {
			if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") {
				b.WriteString(l[1:])
			}
		}
		return b.String(), b.Len() > 0
	}
	return "", false
}
