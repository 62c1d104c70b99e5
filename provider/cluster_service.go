package provider

// The cluster-service shell: what the cluster-level resources (Ceph,
// Spectrum Scale) share, as node_service.go is for per-node services. One
// node of the cluster (its admin node) runs the cluster's commands through
// the agent. Queries run read-only in one request, under an owner that never
// holds files, and return their stdout by item name; changes run as one
// request per apply, each command sent only when the read-back says the
// cluster differs (run-once commands leave markers, internal/runonce). A
// renderer package in internal/ makes the items; the type file reads the
// cluster back, decides, and calls the lifecycle helpers at the end.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// clusterFamily is what differs between the products served by the shell.
type clusterFamily struct {
	// kind names the product in diagnostics ("Ceph").
	kind string
	// queryOwner runs read-only queries: it never holds files, so a query
	// cannot revert what another owner wrote.
	queryOwner string
	// resume follows a failed command's message: what a re-run does.
	resume string
}

// clusterShell is one node of a cluster running the family's commands.
type clusterShell struct {
	nodes *nodeAccess
	host  string
	ssh   types.Object
	fam   clusterFamily
}

func (f clusterFamily) on(nodes *nodeAccess, host string, ssh types.Object) clusterShell {
	return clusterShell{nodes: nodes, host: host, ssh: ssh, fam: f}
}

// run is the shell's node acting as owner.
func (s clusterShell) run(owner string) nodeRun {
	return nodeRun{nodes: s.nodes, host: s.host, ssh: s.ssh, owner: owner}
}

// results runs read-only items in one request: one result per item, a
// failing item's message in its result.
func (s clusterShell) results(ctx context.Context, diags *diag.Diagnostics, items []protocol.Item) ([]protocol.ItemResult, bool) {
	res, ok := s.run(s.fam.queryOwner).exec(ctx, items, true, diags)
	if !ok {
		return nil, false
	}
	if len(res.Items) != len(items) {
		diags.AddError("Agent Returned No Result", fmt.Sprintf("Host %s: %d results for %d queries.", s.host, len(res.Items), len(items)))
		return nil, false
	}
	return res.Items, true
}

// query runs read-only queries in one request and returns their stdout by
// item name; a failing query or one printing more than the agent returns
// is an error.
func (s clusterShell) query(ctx context.Context, diags *diag.Diagnostics, items ...protocol.Item) (map[string]string, bool) {
	res, ok := s.results(ctx, diags, items)
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for i, ir := range res {
		if ir.Error != "" {
			diags.AddError(s.fam.kind+" Query Failed", fmt.Sprintf("Host %s: %s: %s", s.host, ir.ID, ir.Error))
			return nil, false
		}
		if len(ir.Output) >= protocol.MaxOutput {
			diags.AddError(s.fam.kind+" Output Too Long", fmt.Sprintf("Host %s: %s printed more than the agent returns (%d bytes).",
				s.host, ir.ID, protocol.MaxOutput))
			return nil, false
		}
		out[items[i].Command.Name] = ir.Output
	}
	return out, true
}

// apply runs items (files, then the commands decided) under owner; a failed
// command becomes an error naming it and the host (the agent skips the
// items after it), the agent's warnings become warnings.
func (s clusterShell) apply(ctx context.Context, owner string, items []protocol.Item, summary string, diags *diag.Diagnostics) bool {
	res, ok := s.run(owner).exec(ctx, items, false, diags)
	if !ok {
		return false
	}
	if res.Failed {
		n := 0
		for _, ir := range res.Items {
			if ir.Error != "" && !ir.Skipped {
				diags.AddError(summary, fmt.Sprintf("Host %s, %s: %s%s", s.host, ir.ID, ir.Error, s.fam.resume))
				n++
			}
		}
		if n == 0 {
			diags.AddError(summary, fmt.Sprintf("Host %s, owner %q: the agent reported a failure: %s", s.host, owner, failedItems(res)))
		}
		return false
	}
	for _, ir := range res.Items {
		for _, w := range ir.Warnings {
			diags.AddWarning("Node Warning", fmt.Sprintf("Host %s, %s: %s", s.host, ir.ID, w))
		}
	}
	return true
}

// remove reverts the files owner wrote on the node (never what the
// cluster's commands made: they are not undone).
func (s clusterShell) remove(ctx context.Context, owner string, diags *diag.Diagnostics) {
	s.run(owner).remove(ctx, diags)
}

// clusterNonce names one decision's run-once markers.
func clusterNonce() string { return strconv.FormatInt(time.Now().UnixNano(), 36) }

// attrPath reads the attribute paths the renderers write: names joined by
// dots, list indexes ([3]) and map keys (["nsdNodes"]); "" is the resource.
func attrPath(s string) path.Path {
	at := path.Empty()
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
				at, started = path.Root(s[:end]), true
			} else {
				at = at.AtName(s[:end])
			}
			s = s[end:]
		}
	}
	return at
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

// getter is a plan, state or configuration.
type getter interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// decoded models hold maps of objects that may be unknown (module inputs
// at validation): their raw attribute is a types value, decoded once known.
// A model without such attributes decodes nothing.
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

// clusterModel is a cluster resource's model (*M).
type clusterModel[M any] interface {
	*M
	decoded
}

// clusterResource is what every cluster resource type holds: the provider's
// node access and its type name ("_ceph_pool"). Each type adds its schema
// and lifecycle; the helpers below are the lifecycle's common frame.
type clusterResource struct {
	nodes *nodeAccess
	name  string
}

func (r *clusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.name
}

func (r *clusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes = d.Nodes
	}
}

// clusterPlan reads the plan and the prior state (nil on create) and lets
// adjust check and complete the plan; false leaves the plan as proposed. A
// destroy plan is not looked at.
func clusterPlan[M any, P clusterModel[M]](ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	adjust func(ctx context.Context, plan, state P, diags *diag.Diagnostics) bool) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan := P(new(M))
	getModel(ctx, req.Plan, plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var state P
	if !req.State.Raw.IsNull() {
		state = P(new(M))
		getModel(ctx, req.State, state, &resp.Diagnostics)
	}
	if adjust(ctx, plan, state, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	}
}

// clusterCreate reads the plan, applies it (apply fills the computed
// values from the read-back) and saves it as the state.
func clusterCreate[M any, P clusterModel[M]](ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse,
	apply func(context.Context, P, *diag.Diagnostics) bool) {
	plan := P(new(M))
	getModel(ctx, req.Plan, plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !apply(ctx, plan, &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// clusterRead reads the state, lets read fill it from the cluster and saves
// it; found false (the object is gone from the cluster) removes it.
func clusterRead[M any, P clusterModel[M]](ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse,
	read func(context.Context, P, *diag.Diagnostics) (found, ok bool)) {
	state := P(new(M))
	getModel(ctx, req.State, state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	found, ok := read(ctx, state, &resp.Diagnostics)
	switch {
	case !ok:
	case !found:
		resp.State.RemoveResource(ctx)
	default:
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	}
}

// clusterUpdate reads the plan and the prior state, applies the plan and
// saves it as the state.
func clusterUpdate[M any, P clusterModel[M]](ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse,
	apply func(ctx context.Context, plan, state P, diags *diag.Diagnostics) bool) {
	plan, state := P(new(M)), P(new(M))
	getModel(ctx, req.Plan, plan, &resp.Diagnostics)
	getModel(ctx, req.State, state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !apply(ctx, plan, state, &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// clusterDelete reads the state and lets del undo what it can.
func clusterDelete[M any, P clusterModel[M]](ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse,
	del func(context.Context, P, *diag.Diagnostics)) {
	state := P(new(M))
	getModel(ctx, req.State, state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	del(ctx, state, &resp.Diagnostics)
}

// Import of the cluster resources whose configuration the cluster does not
// keep whole (a set of NSDs, the gateways): every apply also writes the
// resource's configured attributes to a root-only record under its owner
// on the node the commands run on, as node services do, and import reads
// it back, so it adopts what this provider applied.

// clusterRecord is the record item of m, a model of r's schema.
func clusterRecord(ctx context.Context, r resource.Resource, owner string, m any) []protocol.Item {
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	if it, ok := recordItem(sr.Schema, owner, modelValue(ctx, sr.Schema, m)); ok {
		return []protocol.Item{it}
	}
	return nil
}

// importHostName is the ImportState of HOST/NAME ids: the node the
// commands run on as SSH reaches it (into hostAttr), then the name (into
// each of nameAttrs); form says what the id holds, with an example.
func importHostName(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, form, hostAttr string, nameAttrs ...string) {
	host, name, ok := cutImportID(req.ID)
	if !ok {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Give %s; got %q.", form, req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(hostAttr), host)...)
	for _, a := range nameAttrs {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(a), name)...)
	}
}

// readRecorded fills a state just imported (marker, a required attribute,
// still null) from its owner's record on the node hostAttr names, and
// makes it req's state; ok is false when that failed (diagnostics say why).
func readRecorded(ctx context.Context, r resource.Resource, nodes *nodeAccess, req *resource.ReadRequest, resp *resource.ReadResponse,
	marker, hostAttr string, owner func(name string) string) (imported, ok bool) {
	var root map[string]tftypes.Value
	if err := req.State.Raw.As(&root); err != nil || !root[marker].IsNull() {
		return false, true
	}
	var host, name types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(hostAttr), &host)...)
	if _, has := root["name"]; has {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	}
	if resp.Diagnostics.HasError() {
		return true, false
	}
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	if !readRecord(ctx, nodes, sr.Schema, &resp.State, host.ValueString(), owner(name.ValueString()), "the import id", &resp.Diagnostics) {
		return true, false
	}
	req.State = resp.State
	return true, true
}
