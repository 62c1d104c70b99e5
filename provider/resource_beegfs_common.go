package provider

// Plumbing shared by the hpcstorage_beegfs_* resources: each renders its
// attributes into agent items (internal/beegfs) for one owner on one host,
// and this file runs them through the provider's SSH pool the way
// hpcstorage_node_config does: read-only check first, apply, verify, and
// roll back to the previous items when anything fails.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

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

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// beegfsRun is one owner's items on one host.
type beegfsRun struct {
	nodes *nodeAccess
	host  string
	ssh   types.Object
	owner string
	// at maps a failed item (index, agent message) to the attribute it
	// comes from.
	at func(i int, msg string) path.Path
}

// exec sends items to the node. Item failures are returned in the result;
// transport failures become one diagnostic naming the host.
func (b beegfsRun) exec(ctx context.Context, items []protocol.Item, check bool, diags *diag.Diagnostics) (*protocol.Result, bool) {
	if b.nodes == nil {
		diags.AddError("Provider Not Configured", "The hpcstorage provider was not configured before use.")
		return nil, false
	}
	if items == nil {
		items = []protocol.Item{}
	}
	spec, err := json.Marshal(beegfs.Spec(b.owner, items))
	if err != nil {
		diags.AddError("Internal Error", "Encoding the agent spec: "+err.Error())
		return nil, false
	}
	resp, err := b.nodes.pool.Apply(ctx, b.nodes.options(b.host, b.ssh, diags), transport.Request{Spec: spec, Check: check, Diff: true})
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
func (b beegfsRun) facts(ctx context.Context, diags *diag.Diagnostics) (*protocol.Facts, bool) {
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
func (b beegfsRun) itemErrors(res *protocol.Result, summary string, diags *diag.Diagnostics) {
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
func (b beegfsRun) check(ctx context.Context, items []protocol.Item, diags *diag.Diagnostics) (*protocol.Result, bool) {
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
func (b beegfsRun) converge(ctx context.Context, items, previous []protocol.Item, diags *diag.Diagnostics) bool {
	if _, ok := b.check(ctx, items, diags); !ok {
		return false
	}
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
func (b beegfsRun) remove(ctx context.Context, diags *diag.Diagnostics) {
	res, ok := b.exec(ctx, nil, false, diags)
	if ok && res.Failed {
		diags.AddError("Node Not Fully Reverted", fmt.Sprintf("Host %s, owner %q: %s\nThe keys that failed stay recorded on "+
			"the node; run terraform destroy again once the cause is fixed.", b.host, b.owner, failedItems(res)))
	}
}

// drift runs items read-only and returns what differs, by item id.
func (b beegfsRun) drift(ctx context.Context, items []protocol.Item, diags *diag.Diagnostics) (types.Map, bool) {
	res, ok := b.exec(ctx, items, true, diags)
	if !ok {
		return types.MapNull(types.StringType), false
	}
	d := driftOf(res)
	for _, ir := range res.Items {
		if ir.Error != "" && !ir.Skipped {
			d[ir.ID] = "error: " + ir.Error
		}
	}
	return driftMap(d), true
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

// Attributes every BeeGFS node resource has.

func beegfsHostAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Node that runs " + what + ": name or address, optionally `name:port`, reached over SSH " +
			"with the provider's `ssh` settings. Changing it replaces the resource.",
		Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

func beegfsIDAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}

func beegfsDriftAttribute() schema.MapAttribute {
	return schema.MapAttribute{Computed: true, ElementType: types.StringType,
		MarkdownDescription: "What differs on the node from the last apply, by agent item ID, as the agent's diff. Empty " +
			"after every apply; a refresh that finds changes made by hand fills it, so the plan shows an update that puts them back."}
}

func beegfsSecretAttributes(attrs map[string]schema.Attribute) {
	attrs["conn_auth_secret"] = schema.StringAttribute{
		Optional: true, WriteOnly: true, Sensitive: true,
		MarkdownDescription: fmt.Sprintf("Shared secret of the file system's connection authentication (connAuthFile), at "+
			"least %d characters, the same on every service and client. Write-only (Terraform 1.11 or later): never stored "+
			"in state or plan. It is written on the node to a root-only file (mode `0400`), and state keeps only its SHA-256 "+
			"in `conn_auth_secret_hash`, so changing the secret shows as an update. Exactly one of this and "+
			"`conn_auth_secret_file`.", beegfs.MinSecretLength),
		Validators: []validator.String{stringvalidator.LengthAtLeast(beegfs.MinSecretLength),
			stringvalidator.ExactlyOneOf(path.MatchRoot("conn_auth_secret_file"))},
	}
	attrs["conn_auth_secret_file"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Path of a file holding the secret (first line), read on the machine running Terraform at " +
			"plan and apply time; for Terraform before 1.11 and OpenTofu. Only the path and the hash reach state.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["conn_auth_secret_hash"] = schema.StringAttribute{Computed: true,
		MarkdownDescription: "`scrypt:<hex>` of the secret (scrypt N=2^15, r=8, p=1, so guessing it from state is slow), so plans see a new secret without storing it."}
}

func beegfsSettingsAttribute(defaults map[string]string) schema.MapAttribute {
	return schema.MapAttribute{Optional: true, ElementType: types.StringType,
		MarkdownDescription: "Extra or overriding config options (`key = value` of the BeeGFS config file). Defaults from the " +
			"R1 paper: " + settingsList(defaults) + "."}
}

func settingsList(m map[string]string) string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, "`"+k+"="+m[k]+"`")
	}
	return strings.Join(out, ", ")
}

// secretFrom reads the secret from the configuration (the write-only
// attribute, or the file it names): known is false while either is unknown;
// Unread when there is no configuration (refresh).
func secretFrom(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) (beegfs.Auth, bool) {
	if config.Raw.IsNull() {
		return beegfs.Auth{Unread: true}, true
	}
	var s, f types.String
	diags.Append(config.GetAttribute(ctx, path.Root("conn_auth_secret"), &s)...)
	diags.Append(config.GetAttribute(ctx, path.Root("conn_auth_secret_file"), &f)...)
	if s.IsUnknown() || f.IsUnknown() {
		return beegfs.Auth{}, false
	}
	if !f.IsNull() {
		line, ok := firstLineOf(f.ValueString(), path.Root("conn_auth_secret_file"), "Unreadable Secret File", diags)
		if !ok {
			return beegfs.Auth{}, false
		}
		if len(line) < beegfs.MinSecretLength {
			addError(diags, path.Root("conn_auth_secret_file"), "Secret Too Short",
				fmt.Sprintf("The first line of %s must hold at least %d characters.", f.ValueString(), beegfs.MinSecretLength), nil)
			return beegfs.Auth{}, false
		}
		return beegfs.Auth{Secret: line}, true
	}
	if s.IsNull() {
		return beegfs.Auth{Unread: true}, true
	}
	return beegfs.Auth{Secret: s.ValueString()}, true
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

// settingsMap converts the optional settings map; known false when a value
// is unknown.
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

// renderError reports an internal/beegfs validation error on at.
func renderError(diags *diag.Diagnostics, at path.Path, err error) {
	addError(diags, at, "Invalid BeeGFS Setting", "Fix the value in the configuration.", err)
}

// emptyDrift is the drift of a node just applied.
func emptyDrift() types.Map { return types.MapValueMust(types.StringType, map[string]attr.Value{}) }

// claimIDs refuses two resources of this run using one BeeGFS id (a
// target id, a node id) of one file system (scope: its mgmtd host).
func (n *nodeAccess) claimIDs(scope, resource string, ids []string) map[string]string {
	if n == nil || n.claims == nil {
		return nil
	}
	return n.claims.claim("beegfs:"+scope, resource, ids)
}

// BeegfsNode holds the attributes every BeeGFS node resource has. It is
// embedded (exported, so the framework promotes its fields).
type BeegfsNode struct {
	ID    types.String `tfsdk:"id"`
	Host  types.String `tfsdk:"host"`
	SSH   types.Object `tfsdk:"ssh"`
	Drift types.Map    `tfsdk:"drift"`
}

func (b *BeegfsNode) base() *BeegfsNode { return b }

// BeegfsSecret is embedded by the resources that write a connAuthFile.
type BeegfsSecret struct {
	ConnAuthSecret     types.String `tfsdk:"conn_auth_secret"`
	ConnAuthSecretFile types.String `tfsdk:"conn_auth_secret_file"`
	SecretHash         types.String `tfsdk:"conn_auth_secret_hash"`
}

func (s *BeegfsSecret) secret() *BeegfsSecret { return s }

// beegfsModel is what each service resource's model provides to the
// shared lifecycle below.
type beegfsModel interface {
	base() *BeegfsNode
	// secret is nil for resources without a connAuthFile.
	secret() *BeegfsSecret
	owner() string
	// known is false while an input is unknown (plan time).
	known() bool
	// items renders the agent items; an error names its attribute.
	items(auth beegfs.Auth) ([]protocol.Item, path.Path, error)
	// itemPath maps an item index to its attribute.
	itemPath(i int) path.Path
	// fill sets computed outputs after a successful render.
	fill()
}

// beegfsWriteOnly is implemented by models with write-only inputs besides
// the connection secret (the monitor's InfluxDB password): readWriteOnly
// takes them from the configuration at plan and apply time, before items
// are rendered, and sets their hashes (unknown while an input is unknown).
// Without a configuration (refresh, the prior state of an update) it is not
// called, so such a model renders its secret files unread.
type beegfsWriteOnly interface {
	readWriteOnly(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics)
}

func readWriteOnly(ctx context.Context, m beegfsModel, config tfsdk.Config, diags *diag.Diagnostics) {
	if w, ok := m.(beegfsWriteOnly); ok && !config.Raw.IsNull() {
		w.readWriteOnly(ctx, config, diags)
	}
}

func beegfsRunFor(nodes *nodeAccess, m beegfsModel) beegfsRun {
	b := m.base()
	return beegfsRun{nodes: nodes, host: b.Host.ValueString(), ssh: b.SSH, owner: m.owner(),
		at: func(i int, _ string) path.Path { return m.itemPath(i) }}
}

func renderItems(m beegfsModel, auth beegfs.Auth, diags *diag.Diagnostics) ([]protocol.Item, bool) {
	items, at, err := m.items(auth)
	if err != nil {
		renderError(diags, at, err)
		return nil, false
	}
	return items, true
}

func applied(m beegfsModel, auth beegfs.Auth) {
	b := m.base()
	b.ID = types.StringValue(b.Host.ValueString() + "/" + m.owner())
	b.Drift = emptyDrift()
	if s := m.secret(); s != nil {
		s.ConnAuthSecret = types.StringNull()
		if !auth.Unread {
			s.SecretHash = types.StringValue(beegfs.SecretHash(auth.Secret))
		}
	}
	m.fill()
}

func beegfsCreate[M any, P interface {
	*M
	beegfsModel
}](ctx context.Context, nodes *nodeAccess, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan M
	p := P(&plan)
	resp.Diagnostics.Append(req.Plan.Get(ctx, p)...)
	auth := configSecret(ctx, p, req.Config, &resp.Diagnostics)
	readWriteOnly(ctx, p, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if p.secret() != nil && auth.Unread {
		addError(&resp.Diagnostics, path.Root("conn_auth_secret"), "Missing Secret", "Set conn_auth_secret or conn_auth_secret_file.", nil)
		return
	}
	items, ok := renderItems(p, auth, &resp.Diagnostics)
	if !ok || !beegfsRunFor(nodes, p).converge(ctx, items, nil, &resp.Diagnostics) {
		return
	}
	applied(p, auth)
	resp.Diagnostics.Append(resp.State.Set(ctx, p)...)
}

func beegfsRead[M any, P interface {
	*M
	beegfsModel
}](ctx context.Context, nodes *nodeAccess, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state M
	p := P(&state)
	resp.Diagnostics.Append(req.State.Get(ctx, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	items, ok := renderItems(p, beegfs.Auth{Unread: true}, &resp.Diagnostics)
	if !ok {
		return
	}
	drift, ok := beegfsRunFor(nodes, p).drift(ctx, items, &resp.Diagnostics)
	if !ok {
		return
	}
	p.base().Drift = drift
	resp.Diagnostics.Append(resp.State.Set(ctx, p)...)
}

func beegfsUpdate[M any, P interface {
	*M
	beegfsModel
}](ctx context.Context, nodes *nodeAccess, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior M
	p, q := P(&plan), P(&prior)
	resp.Diagnostics.Append(req.Plan.Get(ctx, p)...)
	resp.Diagnostics.Append(req.State.Get(ctx, q)...)
	auth := configSecret(ctx, p, req.Config, &resp.Diagnostics)
	readWriteOnly(ctx, p, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	items, ok := renderItems(p, auth, &resp.Diagnostics)
	// The previous secret is not known (state keeps its hash), so a
	// rollback restores everything but the secret file's content.
	previous, pok := renderItems(q, beegfs.Auth{Unread: true}, &resp.Diagnostics)
	if !ok || !pok || !beegfsRunFor(nodes, p).converge(ctx, items, previous, &resp.Diagnostics) {
		return
	}
	applied(p, auth)
	resp.Diagnostics.Append(resp.State.Set(ctx, p)...)
}

func beegfsDelete[M any, P interface {
	*M
	beegfsModel
}](ctx context.Context, nodes *nodeAccess, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state M
	p := P(&state)
	resp.Diagnostics.Append(req.State.Get(ctx, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	beegfsRunFor(nodes, p).remove(ctx, &resp.Diagnostics)
}

// beegfsModifyPlan fills computed values and, for a new or changed
// resource whose inputs are known, claims its ids (claim returns ids other
// resources of this run hold) and checks it against the node read-only.
func beegfsModifyPlan[M any, P interface {
	*M
	beegfsModel
}](ctx context.Context, nodes *nodeAccess, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	claim func(m P) map[string]string) {
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
		b.ID = types.StringValue(b.Host.ValueString() + "/" + p.owner())
	}
	auth, authKnown := beegfs.Auth{Unread: true}, true
	sec := p.secret()
	// The secret's hash is scrypt (slow on purpose, about 175 ms): it is
	// computed only when the node cannot tell that the secret is unchanged
	// (see below).
	hashSecret := func() {
		if sec != nil && authKnown && !auth.Unread {
			sec.SecretHash = types.StringValue(beegfs.SecretHash(auth.Secret))
		}
	}
	if sec != nil {
		auth, authKnown = secretFrom(ctx, req.Config, &resp.Diagnostics)
		sec.SecretHash = types.StringUnknown()
	}
	readWriteOnly(ctx, p, req.Config, &resp.Diagnostics)
	if !p.known() || b.Host.IsUnknown() {
		hashSecret()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, p)...)
		return
	}
	items, ok := renderItems(p, beegfs.Auth{Unread: true}, &resp.Diagnostics)
	if !ok {
		return
	}
	p.fill()
	var state M
	s := P(&state)
	unchanged := false
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, s)...)
		before, ok := renderItems(s, beegfs.Auth{Unread: true}, &resp.Diagnostics)
		unchanged = ok && sameItems(before, items) && len(s.base().Drift.Elements()) == 0
	}
	switch {
	case unchanged && sec != nil && nodes != nil && authKnown && !auth.Unread && !s.secret().SecretHash.IsNull() &&
		nodeHasSecret(ctx, beegfsRunFor(nodes, p), p, auth):
		// Nothing else changed and the node's files already hold this
		// secret: it is the one applied, so the state's hash stands
		// without hashing the secret again.
		sec.SecretHash = s.secret().SecretHash
	default:
		hashSecret()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, p)...)
	// IDs are claimed for every planned resource, changed or not, so a new
	// resource cannot reuse the ID of one already applied.
	if nodes != nil && claim != nil {
		for id, other := range claim(p) {
			addError(&resp.Diagnostics, path.Empty(), "BeeGFS ID Used Twice", fmt.Sprintf("%s is also used by %s in this "+
				"configuration: ids must be unique in one file system.", id, other), nil)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if unchanged && (sec == nil || s.secret().SecretHash.Equal(sec.SecretHash)) {
		return
	}
	if nodes == nil {
		return
	}
	if authKnown && !auth.Unread {
		if items, ok = renderItems(p, auth, &resp.Diagnostics); !ok {
			return
		}
	}
	beegfsRunFor(nodes, p).check(ctx, items, &resp.Diagnostics)
}

// nodeHasSecret runs the resource's items with the configured secret
// read-only: no change means the node's auth files hold this secret. Any
// failure says no (the caller then hashes the secret as usual and the plan
// goes on to its own check).
func nodeHasSecret(ctx context.Context, run beegfsRun, m beegfsModel, auth beegfs.Auth) bool {
	var quiet diag.Diagnostics
	items, ok := renderItems(m, auth, &quiet)
	if !ok {
		return false
	}
	res, ok := run.exec(ctx, items, true, &quiet)
	return ok && !quiet.HasError() && !res.Failed && !res.Changed
}

// configSecret is the secret at apply time (always known then).
func configSecret(ctx context.Context, m beegfsModel, config tfsdk.Config, diags *diag.Diagnostics) beegfs.Auth {
	if m.secret() == nil {
		return beegfs.Auth{Unread: true}
	}
	a, _ := secretFrom(ctx, config, diags)
	return a
}

func sameItems(a, b []protocol.Item) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// beegfsServiceSchema adds the shared attributes to a service resource.
func beegfsServiceSchema(what string, attrs map[string]schema.Attribute, secret bool) map[string]schema.Attribute {
	attrs["host"] = beegfsHostAttribute(what)
	attrs["ssh"] = sshResourceAttribute()
	attrs["id"] = beegfsIDAttribute("`host/owner`, the owner being the agent owner of this resource's items.")
	attrs["drift"] = beegfsDriftAttribute()
	if secret {
		beegfsSecretAttributes(attrs)
	}
	return attrs
}

// errorPath turns the field a render error starts with ("port",
// "instances[2].port", "settings key ...") into an attribute path; a field
// not among names falls back to the first name.
func errorPath(err error, names ...string) path.Path {
	if err == nil || len(names) == 0 {
		return path.Empty()
	}
	msg := strings.TrimPrefix(err.Error(), beegfs.ErrInvalid.Error()+": ")
	field, _, _ := strings.Cut(msg, " ")
	field = strings.TrimSuffix(field, ":")
	parts := strings.Split(field, ".")
	root, idx, hasIdx := parts[0], 0, false
	if i := strings.Index(root, "["); i > 0 && strings.HasSuffix(root, "]") {
		if _, err := fmt.Sscanf(root[i:], "[%d]", &idx); err == nil {
			hasIdx = true
		}
		root = root[:i]
	}
	known := false
	for _, n := range names {
		known = known || n == root
	}
	if !known {
		return path.Root(names[0])
	}
	at := path.Root(root)
	if hasIdx {
		at = at.AtListIndex(idx)
		if len(parts) > 1 {
			at = at.AtName(parts[1])
		}
	}
	return at
}

// beegfsValidateConfig renders known configurations, so `terraform
// validate` reports a bad value (a duplicate target id, a bad setting) on
// its attribute without reaching any node.
func beegfsValidateConfig[M any, P interface {
	*M
	beegfsModel
}](ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg M
	p := P(&cfg)
	resp.Diagnostics.Append(req.Config.Get(ctx, p)...)
	if resp.Diagnostics.HasError() || !p.known() || p.base().Host.IsUnknown() {
		return
	}
	renderItems(p, beegfs.Auth{Unread: true}, &resp.Diagnostics)
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
