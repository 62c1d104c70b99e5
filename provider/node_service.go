package provider

// The shell of every node service resource: a model renders its attributes
// into agent items (a renderer package in internal/) for one owner on one
// host, and this file runs them through the provider's SSH pool:
// read-only check first, apply, verify, and roll back to the previous
// items when anything fails (nodeRun, which hpcstorage_node_config, the HA
// cluster and the benchmark use as well). A new node service
// is a renderer plus a thin type file: its model, its schema and a
// nodeService value naming them.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// nodeRun is one owner's items on one host.
type nodeRun struct {
	nodes *nodeAccess
	host  string
	ssh   types.Object
	owner string
	// at maps a failed item (index, agent message) to the attribute it
	// comes from.
	at func(i int, msg string) path.Path
	// timeout, when set, bounds each agent run instead of the provider's
	// run_timeout (a benchmark's long commands).
	timeout time.Duration
}

// exec sends items to the node. Item failures are returned in the result;
// transport failures become one diagnostic naming the host.
func (b nodeRun) exec(ctx context.Context, items []protocol.Item, check bool, diags *diag.Diagnostics) (*protocol.Result, bool) {
	return b.execDiff(ctx, items, check, true, diags)
}

// execDiff is exec with the diffs left out when diff is false (a probe
// that only needs Changed).
func (b nodeRun) execDiff(ctx context.Context, items []protocol.Item, check, diff bool, diags *diag.Diagnostics) (*protocol.Result, bool) {
	if b.nodes == nil {
		diags.AddError("Provider Not Configured", "The hpcstorage provider was not configured before use.")
		return nil, false
	}
	if items == nil {
		items = []protocol.Item{}
	}
	spec, err := json.Marshal(protocol.Spec{APIVersion: protocol.APIVersion, Owner: b.owner, Items: items})
	if err != nil {
		diags.AddError("Internal Error", "Encoding the agent spec: "+err.Error())
		return nil, false
	}
	opts := b.nodes.options(b.host, b.ssh, diags)
	if b.timeout > 0 {
		opts.RunTimeout = b.timeout
	}
	resp, err := b.nodes.pool.Apply(ctx, opts, transport.Request{Spec: spec, Check: check, Diff: diff})
	res, err := agentResult(b.host, resp, err, diags)
	if err != nil {
		return nil, false
	}
	if res == nil {
		diags.AddError("Agent Returned No Result", fmt.Sprintf("Host %s: the agent printed no result.", b.host))
		return nil, false
	}
	return res, true
}

// facts reads the node's facts (`hpcstorage-agent facts`).
func (b nodeRun) facts(ctx context.Context, diags *diag.Diagnostics) (*protocol.Facts, bool) {
	if b.nodes == nil {
		diags.AddError("Provider Not Configured", "The hpcstorage provider was not configured before use.")
		return nil, false
	}
	f, err := b.nodes.pool.Facts(ctx, b.nodes.options(b.host, b.ssh, diags), "")
	if err != nil {
		addNodeError(diags, b.host, err)
		return nil, false
	}
	return f, true
}

// itemErrors turns failed items into attribute errors (revert entries,
// which follow the spec's items, name no attribute).
func (b nodeRun) itemErrors(res *protocol.Result, summary string, diags *diag.Diagnostics) {
	n := 0
	for i, ir := range res.Items {
		if ir.Error == "" || ir.Skipped {
			continue
		}
		at := path.Empty()
		if b.at != nil && !strings.HasPrefix(ir.ID, "revert:") {
			at = b.at(i, ir.Error)
		}
		addError(diags, at, summary, fmt.Sprintf("Host %s, %s: %s", b.host, ir.ID, ir.Error), nil)
		n++
	}
	if n == 0 {
		diags.AddError(summary, fmt.Sprintf("Host %s, owner %q: the agent reported a failure: %s", b.host, b.owner, failedItems(res)))
	}
}

// check runs items read-only and reports failures (plan time and the
// preflight of an apply).
func (b nodeRun) check(ctx context.Context, items []protocol.Item, diags *diag.Diagnostics) (*protocol.Result, bool) {
	res, ok := b.exec(ctx, items, true, diags)
	if !ok {
		return nil, false
	}
	if res.Failed {
		b.itemErrors(res, "Item Cannot Be Applied To This Node", diags)
		return res, false
	}
	return res, true
}

// converge checks, applies and verifies items; when the apply or the
// verification fails it applies previous (nil: nothing, which reverts the
// owner), so a failed apply leaves the node as it was (formatting, which
// no one can undo, only runs once every other check has passed).
func (b nodeRun) converge(ctx context.Context, items, previous []protocol.Item, diags *diag.Diagnostics) bool {
	if _, ok := b.check(ctx, items, diags); !ok {
		return false
	}
	return b.applyChecked(ctx, items, previous, diags)
}

// applyChecked is converge after its check passed.
func (b nodeRun) applyChecked(ctx context.Context, items, previous []protocol.Item, diags *diag.Diagnostics) bool {
	var applyDiags diag.Diagnostics
	res, ok := b.exec(ctx, items, false, &applyDiags)
	if ok && res.Failed {
		b.itemErrors(res, "Node Refused Item", &applyDiags)
		ok = false
	}
	if ok {
		if v, vok := b.exec(ctx, items, true, &applyDiags); vok {
			if d := driftOf(v); len(d) > 0 || v.Failed {
				applyDiags.AddError("Change Not Verified", fmt.Sprintf("Host %s: after apply, a check still finds differences: %s %s",
					b.host, strings.Join(sortedKeys(d), ", "), failedItems(v)))
				ok = false
			}
		} else {
			ok = false
		}
	}
	if ok {
		for _, ir := range res.Items {
			for _, w := range ir.Warnings {
				diags.AddWarning("Node Warning", fmt.Sprintf("Host %s, %s: %s", b.host, ir.ID, w))
			}
		}
		return true
	}
	diags.Append(applyDiags...)
	var rb diag.Diagnostics
	if back, rok := b.exec(ctx, previous, false, &rb); !rok || back.Failed {
		diags.AddError("Rollback Failed", fmt.Sprintf("Host %s: owner %q could not be put back as it was; the node may be "+
			"half configured: %v %s", b.host, b.owner, rb, failedItems(back)))
	} else {
		diags.AddWarning("Rolled Back", fmt.Sprintf("Host %s: owner %q was put back as it was before this apply.", b.host, b.owner))
	}
	return false
}

// remove reverts everything the owner changed (files, units, mounts);
// formatted data is never wiped.
func (b nodeRun) remove(ctx context.Context, diags *diag.Diagnostics) {
	res, ok := b.exec(ctx, nil, false, diags)
	if ok && res.Failed {
		diags.AddError("Node Not Fully Reverted", fmt.Sprintf("Host %s, owner %q: %s\nThe keys that failed stay recorded on "+
			"the node; run terraform destroy again once the cause is fixed.", b.host, b.owner, failedItems(res)))
	}
}

// drift runs items read-only and returns what differs, by item id.
func (b nodeRun) drift(ctx context.Context, items []protocol.Item, diags *diag.Diagnostics) (types.Map, bool) {
	res, ok := b.exec(ctx, items, true, diags)
	if !ok {
		return types.MapNull(types.StringType), false
	}
	return driftMap(driftAndErrors(res)), true
}

// driftProbe is drift with one read-only query item after the items, in
// the same request: what differs, and the query's output when it ran
// (ok false: it failed, which the drift already says).
func (b nodeRun) driftProbe(ctx context.Context, items []protocol.Item, probe protocol.Item, diags *diag.Diagnostics) (drift map[string]string, out string, ran, ok bool) {
	res, ok := b.exec(ctx, append(items, probe), true, diags)
	if !ok {
		return nil, "", false, false
	}
	drift = driftAndErrors(res)
	if i := len(items); i < len(res.Items) && res.Items[i].Error == "" && !res.Items[i].Skipped {
		return drift, res.Items[i].Output, true, true
	}
	return drift, "", false, true
}

// driftAndErrors is what differs, with the items that failed.
func driftAndErrors(res *protocol.Result) map[string]string {
	d := driftOf(res)
	for _, ir := range res.Items {
		if ir.Error != "" && !ir.Skipped {
			d[ir.ID] = "error: " + ir.Error
		}
	}
	return d
}

func driftOf(res *protocol.Result) map[string]string {
	d := map[string]string{}
	for _, ir := range res.Items {
		if ir.Changed {
			diff := ir.Diff
			if diff == "" {
				diff = "differs"
			}
			d[ir.ID] = diff
		}
	}
	return d
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Attributes every node service resource has.

func nodeHostAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Node that runs " + what + ": name or address, optionally `name:port`, reached over SSH " +
			"with the provider's `ssh` settings. Changing it replaces the resource.",
		Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

func nodeIDAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}

func nodeDriftAttribute() schema.MapAttribute {
	return schema.MapAttribute{Computed: true, ElementType: types.StringType,
		MarkdownDescription: "What differs on the node from the last apply, by agent item ID, as the agent's diff. Empty " +
			"after every apply; a refresh that finds changes made by hand fills it, so the plan shows an update that puts them back."}
}

// nodeServiceSchema adds the shared attributes to a service resource.
func nodeServiceSchema(what string, attrs map[string]schema.Attribute) map[string]schema.Attribute {
	attrs["host"] = nodeHostAttribute(what)
	attrs["ssh"] = sshResourceAttribute()
	attrs["id"] = nodeIDAttribute("`host/owner`, the owner being the agent owner of this resource's items.")
	attrs["drift"] = nodeDriftAttribute()
	attrs["failure_domain"] = nodeDomainSchema()
	return attrs
}

// secretInput is a service's secret as read from the configuration;
// Unread renders its files with mode and owner only (refreshes have no
// secret: state keeps a hash), so they check everything else.
type secretInput struct {
	Secret string
	Unread bool
}

// serviceSecret is a write-only secret a node service writes to a
// root-only file. The model names its attributes: <name> (write-only),
// <name>_file (a file holding it) and <name>_hash (all state keeps).
type serviceSecret interface {
	secretName() string
	secretMinLength() int
	secretValue() *types.String
	secretHash() *types.String
}

// secretFrom reads the secret from the configuration (the write-only
// attribute, or the file it names): known is false while either is unknown;
// Unread when there is no configuration (refresh).
func secretFrom(ctx context.Context, config tfsdk.Config, sec serviceSecret, diags *diag.Diagnostics) (secretInput, bool) {
	if config.Raw.IsNull() {
		return secretInput{Unread: true}, true
	}
	name := sec.secretName()
	var s, f types.String
	diags.Append(config.GetAttribute(ctx, path.Root(name), &s)...)
	diags.Append(config.GetAttribute(ctx, path.Root(name+"_file"), &f)...)
	if s.IsUnknown() || f.IsUnknown() {
		return secretInput{}, false
	}
	if !f.IsNull() {
		line, ok := firstLineOf(f.ValueString(), path.Root(name+"_file"), "Unreadable Secret File", diags)
		if !ok {
			return secretInput{}, false
		}
		if len(line) < sec.secretMinLength() {
			addError(diags, path.Root(name+"_file"), "Secret Too Short",
				fmt.Sprintf("The first line of %s must hold at least %d characters.", f.ValueString(), sec.secretMinLength()), nil)
			return secretInput{}, false
		}
		return secretInput{Secret: line}, true
	}
	if s.IsNull() {
		return secretInput{Unread: true}, true
	}
	return secretInput{Secret: s.ValueString()}, true
}

// firstLineOf reads the secret a *_file attribute names: the file's first
// line, without its line ending. An unreadable file is an error on at.
func firstLineOf(file string, at path.Path, summary string, diags *diag.Diagnostics) (string, bool) {
	b, err := os.ReadFile(expandHome(file))
	if err != nil {
		addError(diags, at, summary, fmt.Sprintf("Point %s at a readable file.", at), err)
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSuffix(line, "\r"), true
}

// settingsMap converts an optional map of strings; known false when a
// value is unknown.
func settingsMap(m types.Map) (map[string]string, bool) {
	if m.IsUnknown() {
		return nil, false
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return nil, false
		}
		out[k] = s.ValueString()
	}
	return out, true
}

// emptyDrift is the drift of a node just applied.
func emptyDrift() types.Map { return types.MapValueMust(types.StringType, map[string]attr.Value{}) }

// NodeService holds the attributes every node service resource has. It is
// embedded (exported, so the framework promotes its fields).
type NodeService struct {
	ID    types.String `tfsdk:"id"`
	Host  types.String `tfsdk:"host"`
	SSH   types.Object `tfsdk:"ssh"`
	Drift types.Map    `tfsdk:"drift"`
	// FailureDomain runs a change on a live cluster member inside its
	// domain's sequence (node_service_domain.go).
	FailureDomain *nodeDomainModel `tfsdk:"failure_domain"`
}

func (b *NodeService) base() *NodeService { return b }

// nodeModel is what each service resource's model provides to the shared
// lifecycle below.
type nodeModel interface {
	base() *NodeService
	// secret is nil for resources without a write-only secret.
	secret() serviceSecret
	owner() string
	// known is false while an input is unknown (plan time).
	known() bool
	// items renders the agent items; an error names its attribute.
	items(auth secretInput) ([]protocol.Item, path.Path, error)
	// itemPath maps a failed item (index, agent message) to its attribute.
	itemPath(i int, msg string) path.Path
	// fill sets computed outputs after a successful render.
	fill()
}

// nodeIdentified is implemented by models whose id is not `host/owner`.
type nodeIdentified interface {
	resourceID() string
}

func resourceID(m nodeModel) string {
	if r, ok := m.(nodeIdentified); ok {
		return r.resourceID()
	}
	return m.base().Host.ValueString() + "/" + m.owner()
}

// nodeWriteOnly is implemented by models with write-only inputs besides
// the service secret (the BeeGFS monitor's InfluxDB password):
// readWriteOnly takes them from the configuration at plan and apply time,
// before items are rendered, and sets their hashes (unknown while an input
// is unknown). Without a configuration (refresh, the prior state of an
// update) it is not called, so such a model renders its secret files unread.
type nodeWriteOnly interface {
	readWriteOnly(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics)
}

func readWriteOnly(ctx context.Context, m nodeModel, config tfsdk.Config, diags *diag.Diagnostics) {
	if w, ok := m.(nodeWriteOnly); ok && !config.Raw.IsNull() {
		w.readWriteOnly(ctx, config, diags)
	}
}

func nodeRunFor(nodes *nodeAccess, m nodeModel) nodeRun {
	b := m.base()
	return nodeRun{nodes: nodes, host: b.Host.ValueString(), ssh: b.SSH, owner: m.owner(), at: m.itemPath}
}

// nodeService is a node service resource type: the type file gives its
// name, what its settings are about, its schema and, optionally, the ids it
// claims in a run.
type nodeService[M any, P interface {
	*M
	nodeModel
}] struct {
	nodes *nodeAccess
	data  *providerData
	// name follows the provider's type name ("_beegfs_client").
	name string
	// kind names the product in errors ("BeeGFS").
	kind   string
	schema func() schema.Schema
	// claim, when set, reports ids of this resource that another resource
	// of the same run holds (plan time).
	claim func(nodes *nodeAccess, m P, diags *diag.Diagnostics)
}

func (r *nodeService[M, P]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.name
}

func (r *nodeService[M, P]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema()
}

func (r *nodeService[M, P]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes, r.data = d.Nodes, d
	}
}

// invalidSetting reports a renderer's validation errors on the attributes
// they are located at (internal/located), else on at; kind names the
// product ("BeeGFS").
func invalidSetting(diags *diag.Diagnostics, kind string, at path.Path, err error) {
	addLocated(diags, at, "Invalid "+kind+" Setting", "Fix the value in the configuration.", err)
}

// renderItems renders m's items and, from rec (m's value as a request
// carries it; null for none), the record that import reads back. Checks
// that only compare or validate pass null: the record is the configured
// attributes, which sameRecord compares directly.
func (r *nodeService[M, P]) renderItems(m nodeModel, rec tftypes.Value, auth secretInput, diags *diag.Diagnostics) ([]protocol.Item, bool) {
	items, at, err := m.items(auth)
	if err != nil {
		invalidSetting(diags, r.kind, at, err)
		return nil, false
	}
	return r.withRecord(items, m, rec), true
}

// withRecord appends the record rendered from rec, when it can be.
func (r *nodeService[M, P]) withRecord(items []protocol.Item, m nodeModel, rec tftypes.Value) []protocol.Item {
	if item, ok := recordItem(r.schema(), m.owner(), rec); ok {
		items = append(items, item)
	}
	return items
}

func applied(m nodeModel, auth secretInput) {
	b := m.base()
	b.ID = types.StringValue(resourceID(m))
	b.Drift = emptyDrift()
	if s := m.secret(); s != nil {
		*s.secretValue() = types.StringNull()
		if !auth.Unread {
			*s.secretHash() = types.StringValue(secret.Hash(auth.Secret))
		}
	}
	m.fill()
}

func (r *nodeService[M, P]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan M
	p := P(&plan)
	resp.Diagnostics.Append(req.Plan.Get(ctx, p)...)
	auth := configSecret(ctx, p, req.Config, &resp.Diagnostics)
	readWriteOnly(ctx, p, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if sec := p.secret(); sec != nil && auth.Unread {
		addError(&resp.Diagnostics, path.Root(sec.secretName()), "Missing Secret",
			fmt.Sprintf("Set %s or %s_file.", sec.secretName(), sec.secretName()), nil)
		return
	}
	items, ok := r.renderItems(p, req.Plan.Raw, auth, &resp.Diagnostics)
	if !ok || !nodeRunFor(r.nodes, p).converge(ctx, items, nil, &resp.Diagnostics) {
		return
	}
	applied(p, auth)
	resp.Diagnostics.Append(resp.State.Set(ctx, p)...)
}

func (r *nodeService[M, P]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state M
	p := P(&state)
	resp.Diagnostics.Append(req.State.Get(ctx, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec := req.State.Raw
	if b := p.base(); b.Drift.IsNull() {
		// Just imported: id and host only (every apply sets drift).
		if !r.readImported(ctx, &resp.State, b.ID.ValueString(), b.Host.ValueString(), &resp.Diagnostics) {
			return
		}
		resp.Diagnostics.Append(resp.State.Get(ctx, p)...)
		if resp.Diagnostics.HasError() {
			return
		}
		p.fill()
		b.ID = types.StringValue(resourceID(p))
		rec = modelValue(ctx, r.schema(), p)
	}
	items, ok := r.renderItems(p, rec, secretInput{Unread: true}, &resp.Diagnostics)
	if !ok {
		return
	}
	drift, ok := nodeRunFor(r.nodes, p).drift(ctx, items, &resp.Diagnostics)
	if !ok {
		return
	}
	p.base().Drift = drift
	readDomainPending(ctx, r.nodes, p.base().FailureDomain, p.base().Host.ValueString(), &p.base().Drift, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, p)...)
}

func (r *nodeService[M, P]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior M
	p, q := P(&plan), P(&prior)
	resp.Diagnostics.Append(req.Plan.Get(ctx, p)...)
	resp.Diagnostics.Append(req.State.Get(ctx, q)...)
	auth := configSecret(ctx, p, req.Config, &resp.Diagnostics)
	readWriteOnly(ctx, p, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	items, ok := r.renderItems(p, req.Plan.Raw, auth, &resp.Diagnostics)
	// The previous secret is not known (state keeps its hash), so a
	// rollback restores everything but the secret file's content.
	previous, pok := r.renderItems(q, req.State.Raw, secretInput{Unread: true}, &resp.Diagnostics)
	if !ok || !pok || !nodeRunFor(r.nodes, p).convergeInDomain(ctx, p.base().FailureDomain, startupItems(p), r.data, q.base().Drift, items, previous, &resp.Diagnostics) {
		return
	}
	applied(p, auth)
	resp.Diagnostics.Append(resp.State.Set(ctx, p)...)
}

func (r *nodeService[M, P]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state M
	p := P(&state)
	resp.Diagnostics.Append(req.State.Get(ctx, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	nodeRunFor(r.nodes, p).remove(ctx, &resp.Diagnostics)
}

// ModifyPlan fills computed values and, for a new or changed resource
// whose inputs are known, claims its ids and checks it against the node
// read-only.
func (r *nodeService[M, P]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan M
	p := P(&plan)
	resp.Diagnostics.Append(req.Plan.Get(ctx, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	b := p.base()
	b.Drift = emptyDrift()
	if !b.Host.IsUnknown() {
		b.ID = types.StringValue(resourceID(p))
	}
	auth, authKnown := secretInput{Unread: true}, true
	sec := p.secret()
	// The secret's hash is scrypt (slow on purpose, about 175 ms): it is
	// computed only when the node cannot tell that the secret is unchanged
	// (see below).
	hashSecret := func() {
		if sec != nil && authKnown && !auth.Unread {
			*sec.secretHash() = types.StringValue(secret.Hash(auth.Secret))
		}
	}
	if sec != nil {
		auth, authKnown = secretFrom(ctx, req.Config, sec, &resp.Diagnostics)
		*sec.secretHash() = types.StringUnknown()
	}
	readWriteOnly(ctx, p, req.Config, &resp.Diagnostics)
	if !p.known() || b.Host.IsUnknown() {
		hashSecret()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, p)...)
		return
	}
	items, ok := r.renderItems(p, tftypes.Value{}, secretInput{Unread: true}, &resp.Diagnostics)
	if !ok {
		return
	}
	p.fill()
	var state M
	s := P(&state)
	unchanged := false
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, s)...)
		before, ok := r.renderItems(s, tftypes.Value{}, secretInput{Unread: true}, &resp.Diagnostics)
		unchanged = ok && sameItems(before, items) && sameRecord(r.schema(), req.Plan.Raw, req.State.Raw) &&
			len(s.base().Drift.Elements()) == 0
	}
	switch {
	case unchanged && sec != nil && authKnown && !auth.Unread && s.secret() != nil &&
		!s.secret().secretHash().IsNull() && r.nodes.sharedSecret(auth.Secret):
		// Many resources of this command hold this secret (a site's
		// clients): one hash for all of them costs less than a node call
		// each. The comparison below decides as the fallback would.
		hashSecret()
	case unchanged && sec != nil && r.nodes != nil && authKnown && !auth.Unread && s.secret() != nil &&
		!s.secret().secretHash().IsNull() && r.nodeHasSecret(ctx, nodeRunFor(r.nodes, p), p, auth):
		// Nothing else changed and the node's files already hold this
		// secret: it is the one applied, so the state's hash stands
		// without hashing the secret again.
		*sec.secretHash() = *s.secret().secretHash()
	default:
		hashSecret()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, p)...)
	// IDs are claimed for every planned resource, changed or not, so a new
	// resource cannot reuse the ID of one already applied.
	if r.nodes != nil && r.claim != nil {
		r.claim(r.nodes, p, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if unchanged && (sec == nil || (s.secret() != nil && s.secret().secretHash().Equal(*sec.secretHash()))) {
		return
	}
	if r.nodes == nil {
		return
	}
	if authKnown && !auth.Unread {
		if items, ok = r.renderItems(p, req.Plan.Raw, auth, &resp.Diagnostics); !ok {
			return
		}
	} else {
		items = r.withRecord(items, p, req.Plan.Raw)
	}
	res, ok := nodeRunFor(r.nodes, p).check(ctx, items, &resp.Diagnostics)
	if ok && !req.State.Raw.IsNull() {
		planDomain(ctx, r.nodes, p.base().FailureDomain, p.base().Host.ValueString(), s.base().Drift, res, startupItems(p), &resp.Diagnostics)
	}
}

// hashSecretAfter is how many plans of one secret ask their node before
// the rest compare the secret's hash: about the time of one hash (scrypt,
// some 175 ms, then kept for the process) in node calls. R1's handful of holders
// of the BeeGFS secret stay below it; a site's clients do not.
const hashSecretAfter = 16

// sharedSecret counts one more plan of s and says whether s is shared by
// enough resources that hashing it once is the cheaper way to compare it.
func (n *nodeAccess) sharedSecret(s string) bool {
	if n == nil {
		return false
	}
	c, _ := n.secretAsks.LoadOrStore(sha256.Sum256([]byte(s)), new(atomic.Int64))
	return c.(*atomic.Int64).Add(1) > hashSecretAfter
}

// nodeHasSecret runs the resource's items with the configured secret
// read-only: no change means the node's auth files hold this secret. Any
// failure says no (the caller then hashes the secret as usual and the plan
// goes on to its own check).
func (r *nodeService[M, P]) nodeHasSecret(ctx context.Context, run nodeRun, m P, auth secretInput) bool {
	var quiet diag.Diagnostics
	items, ok := r.renderItems(m, tftypes.Value{}, auth, &quiet)
	if !ok {
		return false
	}
	return run.holds(ctx, items)
}

// holds runs items read-only and says whether the node already has them
// all (any failure says no). items may be part of the owner's spec: the
// owner's other keys then show as reverts, which do not count.
func (b nodeRun) holds(ctx context.Context, items []protocol.Item) bool {
	var quiet diag.Diagnostics
	res, ok := b.execDiff(ctx, items, true, false, &quiet)
	if !ok || quiet.HasError() || res.Failed {
		return false
	}
	for _, ir := range res.Items {
		if !strings.HasPrefix(ir.ID, "revert:") && ir.Changed {
			return false
		}
	}
	return true
}

// configSecret is the secret at apply time (always known then).
func configSecret(ctx context.Context, m nodeModel, config tfsdk.Config, diags *diag.Diagnostics) secretInput {
	sec := m.secret()
	if sec == nil {
		return secretInput{Unread: true}
	}
	a, _ := secretFrom(ctx, config, sec, diags)
	return a
}

func sameItems(a, b []protocol.Item) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// ValidateConfig renders known configurations, so `terraform validate`
// reports a bad value (a duplicate id, a bad setting) on its attribute
// without reaching any node.
func (r *nodeService[M, P]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg M
	p := P(&cfg)
	resp.Diagnostics.Append(req.Config.Get(ctx, p)...)
	if resp.Diagnostics.HasError() || !p.known() || p.base().Host.IsUnknown() {
		return
	}
	r.renderItems(p, tftypes.Value{}, secretInput{Unread: true}, &resp.Diagnostics)
}

// intOr and stringOr read optional attributes whose defaults the framework
// fills only at plan time (configurations see null).
func intOr(v types.Int64, def int) int {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return int(v.ValueInt64())
}

func stringOr(v types.String, def string) string {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v.ValueString()
}
