package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/nodeconfig"
)

var (
	_ resource.Resource                   = (*nodeConfigResource)(nil)
	_ resource.ResourceWithConfigure      = (*nodeConfigResource)(nil)
	_ resource.ResourceWithImportState    = (*nodeConfigResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodeConfigResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodeConfigResource)(nil)
)

// NewNodeConfigResource is the hpcstorage_node_config resource.
func NewNodeConfigResource() resource.Resource { return &nodeConfigResource{} }

// nodeConfigResource is one owner's set of agent items on one host.
type nodeConfigResource struct {
	nodes *nodeAccess
	data  *providerData
}

// nodeConfigModel is the resource's data. The item attributes stay
// attr values (not Go maps) because plans may hold unknown values.
type nodeConfigModel struct {
	ID            types.String `tfsdk:"id"`
	Host          types.String `tfsdk:"host"`
	Owner         types.String `tfsdk:"owner"`
	SSH           types.Object `tfsdk:"ssh"`
	PackageFloors types.Map    `tfsdk:"package_floors"`
	Sysctl        types.Map    `tfsdk:"sysctl"`
	THP           types.Object `tfsdk:"thp"`
	BlockQueues   types.List   `tfsdk:"block_queues"`
	KernelModules types.Map    `tfsdk:"kernel_modules"`
	UdevRules     types.Map    `tfsdk:"udev_rules"`
	Files         types.Map    `tfsdk:"files"`
	Mounts        types.Map    `tfsdk:"mounts"`
	Commands      types.List   `tfsdk:"commands"`
	Services      types.Map    `tfsdk:"services"`
	Drift         types.Map    `tfsdk:"drift"`
	// FailureDomain rolls a change that takes the node out (a kernel
	// module, a restart it notifies) through its domain's sequence.
	FailureDomain *nodeDomainModel `tfsdk:"failure_domain"`
}

func (r *nodeConfigResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_config"
}

func (r *nodeConfigResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := nodeItemAttributes()
	// Required
	attrs["host"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Node to configure: name or address, optionally `name:port`. Changing it replaces the resource (the old node is reverted).",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
	attrs["owner"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Name of this set of items on the node (1-63 characters `a-z 0-9 _ . -`). The agent records every " +
			"original value per owner, refuses a key another owner holds, and puts everything back when the resource is destroyed.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
	// Optional
	attrs["ssh"] = sshResourceAttribute()
	// Computed
	attrs["id"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "`host/owner`, also the import ID.",
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
	attrs["drift"] = schema.MapAttribute{
		Computed:    true,
		ElementType: types.StringType,
		MarkdownDescription: "What differs on the node from the last apply, by agent item ID (`sysctl:vm.dirty_ratio`), as the " +
			"agent's diff. Empty after every apply; a refresh that finds changes made by hand fills it (and the attributes " +
			"concerned show the node's values), so the plan shows them and apply puts them back.",
	}
	attrs["failure_domain"] = nodeDomainSchema()
	resp.Schema = schema.Schema{
		MarkdownDescription: "Kernel, device, file and service configuration of one node, applied by the hpcstorage agent " +
			"over SSH. Create and update apply the items and then verify them with a read-only check (a change that does " +
			"not hold is an error, and a failed create is rolled back). Refresh runs the same check, so changes made on the " +
			"node by hand show in the plan as changes of the attributes concerned. Destroy puts back every original value " +
			"this owner changed.\n\nFeed it a preset with the `hpcstorage_tuning_profile` data source, or write items directly.",
		Attributes: attrs,
	}
}

func (r *nodeConfigResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes, r.data = d.Nodes, d
	}
}

func (r *nodeConfigResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodeConfigModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, _ := r.config(&plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	rollback := nodeconfig.Config{} // nothing of this owner was there before
	if !r.converge(ctx, &plan, cfg, rollback, nil, &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *nodeConfigResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodeConfigModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, _ := r.config(&state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	imported := cfg.Empty() && state.Drift.IsNull()
	items, _ := cfg.Items()
	res, ok := r.runner(&state, nil).exec(ctx, items, true, &resp.Diagnostics)
	if !ok {
		return
	}
	if imported {
		got, unknown := nodeconfig.FromRevert(res)
		if got.Empty() && len(unknown) == 0 {
			resp.Diagnostics.AddError("Nothing To Import",
				fmt.Sprintf("Owner %q manages nothing on host %s: check the import ID (host/owner).", state.Owner.ValueString(), state.Host.ValueString()))
			return
		}
		if len(unknown) > 0 {
			resp.Diagnostics.AddWarning("Partly Imported",
				fmt.Sprintf("Owner %q on host %s also manages %s, whose desired values cannot be read back from the node: "+
					"write them in the configuration (the next plan shows them as additions).", state.Owner.ValueString(),
					state.Host.ValueString(), strings.Join(unknown, ", ")))
		}
		resp.Diagnostics.Append(setItems(ctx, &state, got)...)
		state.Drift = types.MapValueMust(types.StringType, map[string]attr.Value{})
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	observed, drift := nodeconfig.Observe(cfg, res)
	resp.Diagnostics.Append(setItems(ctx, &state, observed)...)
	state.Drift = driftMap(drift)
	readDomainPending(ctx, r.nodes, state.FailureDomain, state.Host.ValueString(), &state.Drift, &resp.Diagnostics)
	if len(drift) > 0 {
		tflog.Info(ctx, "node drifted from the last apply", map[string]any{"host": state.Host.ValueString(), "items": len(drift)})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *nodeConfigResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior nodeConfigModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, _ := r.config(&plan, &resp.Diagnostics)
	before, _ := r.config(&prior, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.converge(ctx, &plan, cfg, before, &prior, &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *nodeConfigResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodeConfigModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.nodes == nil {
		resp.Diagnostics.AddError("Provider Not Configured", "The hpcstorage provider was not configured before use.")
		return
	}
	// `agent remove` reverts every key the owner holds, newest change first,
	// and drops the owner's record from the node.
	host := state.Host.ValueString()
	out, err := r.nodes.pool.Remove(ctx, r.nodes.options(host, state.SSH, &resp.Diagnostics), state.Owner.ValueString(), false, "")
	res, err := agentResult(host, out, err, &resp.Diagnostics)
	if err != nil {
		return
	}
	if res != nil && res.Failed {
		resp.Diagnostics.AddError("Node Not Fully Reverted", fmt.Sprintf("Host %s, owner %q: %s\nThe keys that failed stay "+
			"recorded on the node; run terraform destroy again once the cause is fixed.", state.Host.ValueString(),
			state.Owner.ValueString(), failedItems(res)))
	}
}

func (r *nodeConfigResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	i := strings.LastIndex(req.ID, "/")
	if i <= 0 || i == len(req.ID)-1 {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Want host/owner (e.g. stor01/r1-storage-tuning), got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("host"), req.ID[:i])...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("owner"), req.ID[i+1:])...)
}

// ModifyPlan checks a changing plan against the node (one read-only agent
// run): a scheduler the disks do not offer, a key another owner holds, a
// package below its floor or an unreachable host fail the plan, before
// anything is applied. It also refuses two resources of this run owning
// one key on one host. Unchanged resources cost nothing here.
func (r *nodeConfigResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan nodeConfigModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if sysctlProblems(plan.Sysctl.Elements(), "", path.Root(nodeconfig.AttrSysctl), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	// Apply converges the node, so nothing is left drifted afterwards.
	plan.Drift = types.MapValueMust(types.StringType, map[string]attr.Value{})
	if !plan.Host.IsUnknown() && !plan.Owner.IsUnknown() {
		plan.ID = types.StringValue(plan.Host.ValueString() + "/" + plan.Owner.ValueString())
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	cfg, known := r.config(&plan, &resp.Diagnostics)
	if !known || resp.Diagnostics.HasError() || r.nodes == nil || r.nodes.deferred || plan.Host.IsUnknown() || plan.Owner.IsUnknown() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state nodeConfigModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if before, ok := r.config(&state, &resp.Diagnostics); ok && sameSpec(before, cfg) && len(state.Drift.Elements()) == 0 &&
			state.Host.Equal(plan.Host) {
			return
		}
	}
	if spec, _, err := cfg.SpecJSON(plan.Owner.ValueString()); err == nil &&
		r.nodes.claims.owner(plan.Host.ValueString(), plan.Owner.ValueString(), string(spec)) {
		addError(&resp.Diagnostics, path.Root("owner"), "Owner Used Twice",
			fmt.Sprintf("Another hpcstorage_node_config in this configuration also uses owner %q on host %s: each would "+
				"revert the other's items on every apply. Give each resource its own owner.", plan.Owner.ValueString(),
				plan.Host.ValueString()), nil)
		return
	}
	items, locs := cfg.Items()
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID()
	}
	clash := r.nodes.claims.claim(plan.Host.ValueString(), plan.Owner.ValueString(), ids)
	for i, id := range ids {
		if other, ok := clash[id]; ok {
			addError(&resp.Diagnostics, locPath(locs[i]), "Key Managed Twice",
				fmt.Sprintf("%s on host %s is also managed by the hpcstorage_node_config with owner %q in this "+
					"configuration: one owner per key. Remove it from one of them (or override it in one profile).",
					id, plan.Host.ValueString(), other), nil)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	res, ok := r.runner(&plan, locs).check(ctx, items, &resp.Diagnostics)
	if ok && !req.State.Raw.IsNull() {
		var state nodeConfigModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		planDomain(ctx, r.nodes, plan.FailureDomain, plan.Host.ValueString(), state.Drift, res, nil, &resp.Diagnostics)
	}
}

// ValidateConfig runs the agent's own spec validation on the typed items,
// so a bad value fails `terraform validate` on the attribute it is in.
func (r *nodeConfigResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodeConfigModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	sysctlProblems(m.Sysctl.Elements(), "", path.Root(nodeconfig.AttrSysctl), &resp.Diagnostics)
	cfg, known := r.config(&m, &resp.Diagnostics)
	if !known || resp.Diagnostics.HasError() {
		return
	}
	owner := m.Owner.ValueString()
	if m.Owner.IsUnknown() {
		owner = "validate"
	}
	spec, locs := cfg.Spec(owner)
	err := spec.Validate()
	var serr *protocol.SpecError
	if !errors.As(err, &serr) {
		return
	}
	for _, fe := range serr.Errors {
		at := specPath(fe.Path, locs)
		if fe.Path == "owner" && m.Owner.IsUnknown() {
			continue
		}
		addError(&resp.Diagnostics, at, "Invalid Node Item", fmt.Sprintf("%s (agent spec %s).", fe.Msg, fe.Path), nil)
	}
}

// sysctlProblems refuses the known values of a sysctl map (keys prefix
// then the parameter's name) that their kernel type rules out, each on its
// key; unknown values wait.
func sysctlProblems(m map[string]attr.Value, prefix string, at path.Path, diags *diag.Diagnostics) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, ok := m[k].(types.String)
		name, isSysctl := strings.CutPrefix(k, prefix)
		if !ok || v.IsUnknown() || v.IsNull() || !isSysctl || v.ValueString() == "" {
			continue
		}
		if err := nodeconfig.CheckSysctl(name, v.ValueString()); err != nil {
			addError(diags, at.AtMapKey(k), "Invalid Sysctl Value", fmt.Sprintf("The kernel refuses or misreads %s = %q.",
				name, v.ValueString()), err)
		}
	}
}

// nodeItemAttributes are the typed agent items, shared by the resource
// and (as their types) the tuning profile data source.
func nodeItemAttributes() map[string]schema.Attribute {
	str := func(desc string, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: append(v, stringvalidator.LengthAtLeast(1))}
	}
	notify := schema.ListAttribute{Optional: true, ElementType: types.StringType,
		MarkdownDescription: "Services (in `services`) to restart once, after all items, when this item changes."}
	// Enumerations and bounds are checked once, by the agent's own spec
	// validation in ValidateConfig (one diagnostic per mistake, on the
	// attribute); the descriptions list them.
	between := func(desc string, r [2]int) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, MarkdownDescription: fmt.Sprintf("%s, %d to %d.", desc, r[0], r[1])}
	}
	return map[string]schema.Attribute{
		nodeconfig.AttrPackageFloors: schema.MapAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Minimum installed package versions, by package name (`lvm2 = \"2.02.180-10.el7_6.2\"`). " +
				"Checked before anything changes: a node below a floor is not touched.",
		},
		nodeconfig.AttrSysctl: schema.MapAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Kernel parameters by dotted name (`vm.dirty_ratio = \"20\"`), set live and persisted in " +
				"this owner's `/etc/sysctl.d` drop-in. The values of the parameters whose kernel type is known (integers in the " +
				"kernel's range, vectors such as `net.ipv4.tcp_rmem`, 0/1 switches) are checked at plan. The agent warns when " +
				"tuned or another sysctl.d file would override a value.",
		},
		nodeconfig.AttrTHP: schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "Transparent huge pages, set live and persisted with tmpfiles.d.",
			Attributes: map[string]schema.Attribute{
				"enabled": str("One of " + backtickList(protocol.THPEnabled) + "."),
				"defrag":  str("One of " + backtickList(protocol.THPDefrag) + "."),
			},
		},
		nodeconfig.AttrBlockQueues: schema.ListNestedAttribute{Optional: true,
			MarkdownDescription: "Request-queue settings of the disks a match selects, set live and persisted by a udev " +
				"rule (so disks that appear later get them too). The scheduler must be one the disks offer: checked at plan time.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"match": schema.SingleNestedAttribute{Required: true,
					MarkdownDescription: "Which disks: every attribute given must match.",
					Attributes: map[string]schema.Attribute{
						"name":       str("Glob on the kernel name, e.g. `sd*`."),
						"wwn":        str("World wide name, e.g. `0x600c0ff000...` (see `hpcstorage_node_facts`)."),
						"model":      str("Glob on the device model, e.g. `ME4084*`."),
						"rotational": schema.BoolAttribute{Optional: true, MarkdownDescription: "`true` for HDDs, `false` for SSD and NVMe."},
					},
				},
				"scheduler":      str("I/O scheduler, e.g. `mq-deadline` or `none` (blk-mq names)."),
				"nr_requests":    between("Queue depth", protocol.NrRequestsRange),
				"read_ahead_kb":  between("Read-ahead in KiB", protocol.ReadAheadKBRange),
				"max_sectors_kb": between("Largest request in KiB (at most the disk's max_hw_sectors_kb)", protocol.MaxSectorsKBRange),
			}},
		},
		nodeconfig.AttrKernelModules: schema.MapNestedAttribute{Optional: true,
			MarkdownDescription: "Kernel modules by name: loaded, with options (modprobe.d) and loaded at boot (modules-load.d).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"options": str("Module options, e.g. `max_queue_depth=10000`."),
				"load":    schema.BoolAttribute{Optional: true, MarkdownDescription: "Load it now. Default true."},
				"boot":    schema.BoolAttribute{Optional: true, MarkdownDescription: "Load it at boot. Default: as `load`."},
				"notify":  notify,
			}},
		},
		nodeconfig.AttrUdevRules: schema.MapNestedAttribute{Optional: true,
			MarkdownDescription: "udev rules files in `/etc/udev/rules.d`, by file name (`.rules` is added); udev is reloaded and triggered when one changes.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"content": schema.StringAttribute{Required: true, MarkdownDescription: "The rules."},
				"notify":  notify,
			}},
		},
		nodeconfig.AttrFiles: schema.MapNestedAttribute{Optional: true,
			MarkdownDescription: "Files by absolute path: the whole `content`, or `set` keys laid over the existing " +
				"`key = value` file (its comments and other keys are kept), plus mode and ownership.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"content": schema.StringAttribute{Optional: true, MarkdownDescription: "Whole file content. Conflicts with `set`."},
				"set": schema.MapAttribute{Optional: true, ElementType: types.StringType,
					MarkdownDescription: "Keys to set in a `key = value` file (BeeGFS `.conf` files). Conflicts with `content`."},
				"mode":   str("Octal mode, e.g. `0644`."),
				"owner":  str("User name or uid."),
				"group":  str("Group name or gid."),
				"notify": notify,
			}},
		},
		nodeconfig.AttrMounts: schema.MapNestedAttribute{Optional: true,
			MarkdownDescription: "Mounted file systems by mount point.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"device":  schema.StringAttribute{Required: true, MarkdownDescription: "Device path (`/dev/disk/by-id/wwn-0x...`), `LABEL=` or `UUID=`."},
				"fstype":  schema.StringAttribute{Required: true, MarkdownDescription: "File system type, e.g. `xfs`."},
				"options": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Mount options, one per element."},
				"persist": str("One of " + backtickList(protocol.MountPersist) + ". Default `fstab`; `none` for mounts a cluster manager owns."),
				"notify":  notify,
			}},
		},
		nodeconfig.AttrCommands: schema.ListNestedAttribute{Optional: true,
			MarkdownDescription: "One-time commands (e.g. `beegfs-setup-storage`), each guarded by `creates` or `unless` so a second apply runs nothing.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":    str("Name in the item ID. Default: the program."),
				"argv":    schema.ListAttribute{Required: true, ElementType: types.StringType, MarkdownDescription: "Program and arguments (no shell).", Validators: []validator.List{listvalidator.SizeAtLeast(1)}},
				"creates": str("Skip the command when this path exists."),
				"unless":  schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Skip the command when this command succeeds."},
				"notify":  notify,
			}},
		},
		nodeconfig.AttrServices: schema.MapNestedAttribute{Optional: true,
			MarkdownDescription: "systemd units by name (`.service` is implied).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"enabled": schema.BoolAttribute{Optional: true, MarkdownDescription: "Enabled at boot."},
				"state":   str("One of " + backtickList(protocol.ServiceStates) + "."),
				"masked":  schema.BoolAttribute{Optional: true, MarkdownDescription: "Masked."},
				"dropins": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Drop-in files by name (`.conf` is added) and content."},
				"notify":  notify,
			}},
		},
	}
}

// config converts the model's items; known is false when a value is not
// known yet (plan time).
func (r *nodeConfigResource) config(m *nodeConfigModel, diags *diag.Diagnostics) (nodeconfig.Config, bool) {
	var cfg nodeconfig.Config
	raw := map[string]any{}
	for name, v := range m.items() {
		g, known := attrToGo(v)
		if !known {
			return cfg, false
		}
		raw[name] = g
	}
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &cfg)
	}
	if err != nil {
		diags.AddError("Internal Error", "Converting node items: "+err.Error()+". Please report this issue.")
		return cfg, false
	}
	return cfg, true
}

// converge runs cfg through the node shell's loop (check, apply, verify,
// and on failure put back rollback, the state before); an update (prior
// set) runs inside the node's failure domain sequence when it takes the
// node out.
func (r *nodeConfigResource) converge(ctx context.Context, m *nodeConfigModel, cfg, rollback nodeconfig.Config, prior *nodeConfigModel, diags *diag.Diagnostics) bool {
	items, locs := cfg.Items()
	previous, _ := rollback.Items()
	run := r.runner(m, locs)
	ok := false
	if prior != nil {
		ok = run.convergeInDomain(ctx, m.FailureDomain, nil, r.data, prior.Drift, items, previous, diags)
	} else {
		ok = run.converge(ctx, items, previous, diags)
	}
	if !ok {
		return false
	}
	m.Drift = emptyDrift()
	m.ID = types.StringValue(m.Host.ValueString() + "/" + m.Owner.ValueString())
	return true
}

// runner is the node shell's runner for m's owner on m's host; a failed
// item is reported on the attribute element it came from (locs, in item
// order), on its field when the agent's message starts with one.
func (r *nodeConfigResource) runner(m *nodeConfigModel, locs []nodeconfig.Locator) nodeRun {
	return nodeRun{nodes: r.nodes, host: m.Host.ValueString(), ssh: m.SSH, owner: m.Owner.ValueString(),
		at: func(i int, msg string) path.Path {
			if i >= len(locs) {
				return path.Empty()
			}
			at := locPath(locs[i])
			if first, _, _ := strings.Cut(msg, " "); isItemField(locs[i].Attr, first) {
				at = at.AtName(first)
			}
			return at
		}}
}

func (m *nodeConfigModel) items() map[string]attr.Value {
	return map[string]attr.Value{
		nodeconfig.AttrPackageFloors: m.PackageFloors, nodeconfig.AttrSysctl: m.Sysctl, nodeconfig.AttrTHP: m.THP,
		nodeconfig.AttrBlockQueues: m.BlockQueues, nodeconfig.AttrKernelModules: m.KernelModules,
		nodeconfig.AttrUdevRules: m.UdevRules, nodeconfig.AttrFiles: m.Files, nodeconfig.AttrMounts: m.Mounts,
		nodeconfig.AttrCommands: m.Commands, nodeconfig.AttrServices: m.Services,
	}
}

// setItems writes a config into the model's item attributes.
func setItems(_ context.Context, m *nodeConfigModel, cfg nodeconfig.Config) diag.Diagnostics {
	var diags diag.Diagnostics
	vals, err := itemValues(cfg)
	if err != nil {
		diags.AddError("Internal Error", "Converting node items: "+err.Error()+". Please report this issue.")
		return diags
	}
	m.PackageFloors = vals[nodeconfig.AttrPackageFloors].(types.Map)
	m.Sysctl = vals[nodeconfig.AttrSysctl].(types.Map)
	m.THP = vals[nodeconfig.AttrTHP].(types.Object)
	m.BlockQueues = vals[nodeconfig.AttrBlockQueues].(types.List)
	m.KernelModules = vals[nodeconfig.AttrKernelModules].(types.Map)
	m.UdevRules = vals[nodeconfig.AttrUdevRules].(types.Map)
	m.Files = vals[nodeconfig.AttrFiles].(types.Map)
	m.Mounts = vals[nodeconfig.AttrMounts].(types.Map)
	m.Commands = vals[nodeconfig.AttrCommands].(types.List)
	m.Services = vals[nodeconfig.AttrServices].(types.Map)
	return diags
}

// itemTypes are the Terraform types of the item attributes.
func itemTypes() map[string]attr.Type {
	out := map[string]attr.Type{}
	for name, a := range nodeItemAttributes() {
		out[name] = a.GetType()
	}
	return out
}

// itemValues converts a config into attribute values, by attribute name.
func itemValues(cfg nodeconfig.Config) (map[string]attr.Value, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	out := map[string]attr.Value{}
	for name, t := range itemTypes() {
		v, err := goToAttr(t, raw[name], "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// attrToGo turns a value into plain Go (for JSON); known is false when
// the value or anything in it is unknown.
func attrToGo(v attr.Value) (any, bool) {
	if v == nil || v.IsNull() {
		return nil, true
	}
	if v.IsUnknown() {
		return nil, false
	}
	switch t := v.(type) {
	case basetypes.StringValue:
		return t.ValueString(), true
	case basetypes.Int64Value:
		return t.ValueInt64(), true
	case basetypes.BoolValue:
		return t.ValueBool(), true
	case basetypes.MapValue:
		out := map[string]any{}
		for k, e := range t.Elements() {
			g, ok := attrToGo(e)
			if !ok {
				return nil, false
			}
			out[k] = g
		}
		return out, true
	case basetypes.ListValue:
		out := []any{}
		for _, e := range t.Elements() {
			g, ok := attrToGo(e)
			if !ok {
				return nil, false
			}
			out = append(out, g)
		}
		return out, true
	case basetypes.ObjectValue:
		out := map[string]any{}
		for k, e := range t.Attributes() {
			g, ok := attrToGo(e)
			if !ok {
				return nil, false
			}
			out[k] = g
		}
		return out, true
	}
	return nil, false
}

// goToAttr builds a value of type t from decoded JSON. An empty string in
// an object attribute is null (validators forbid "" there), except file
// content, where an empty file is a value.
func goToAttr(t attr.Type, g any, name string) (attr.Value, error) {
	switch tt := t.(type) {
	case basetypes.StringType:
		s, ok := g.(string)
		if g == nil || (s == "" && name != "" && name != "content") {
			return types.StringNull(), nil
		}
		if !ok {
			return nil, fmt.Errorf("want a string, got %T", g)
		}
		return types.StringValue(s), nil
	case basetypes.Int64Type:
		if g == nil {
			return types.Int64Null(), nil
		}
		n, ok := g.(json.Number)
		if !ok {
			return nil, fmt.Errorf("want a number, got %T", g)
		}
		i, err := n.Int64()
		if err != nil {
			return nil, err
		}
		return types.Int64Value(i), nil
	case basetypes.BoolType:
		if g == nil {
			return types.BoolNull(), nil
		}
		b, ok := g.(bool)
		if !ok {
			return nil, fmt.Errorf("want a bool, got %T", g)
		}
		return types.BoolValue(b), nil
	case basetypes.MapType:
		if g == nil {
			return types.MapNull(tt.ElemType), nil
		}
		m, ok := g.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want a map, got %T", g)
		}
		elems := map[string]attr.Value{}
		for k, e := range m {
			v, err := goToAttr(tt.ElemType, e, "")
			if err != nil {
				return nil, err
			}
			elems[k] = v
		}
		v, d := types.MapValue(tt.ElemType, elems)
		return v, diagsToErr(d)
	case basetypes.ListType:
		if g == nil {
			return types.ListNull(tt.ElemType), nil
		}
		l, ok := g.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list, got %T", g)
		}
		var elems []attr.Value
		for _, e := range l {
			v, err := goToAttr(tt.ElemType, e, "")
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		v, d := types.ListValue(tt.ElemType, elems)
		return v, diagsToErr(d)
	case basetypes.ObjectType:
		if g == nil {
			return types.ObjectNull(tt.AttrTypes), nil
		}
		m, ok := g.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want an object, got %T", g)
		}
		attrs := map[string]attr.Value{}
		for k, at := range tt.AttrTypes {
			v, err := goToAttr(at, m[k], k)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			attrs[k] = v
		}
		v, d := types.ObjectValue(tt.AttrTypes, attrs)
		return v, diagsToErr(d)
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

func diagsToErr(d diag.Diagnostics) error {
	if d.HasError() {
		return fmt.Errorf("%v", d)
	}
	return nil
}

// sameSpec compares two configs as the agent would see them.
func sameSpec(a, b nodeconfig.Config) bool {
	ja, _, err1 := a.SpecJSON("x")
	jb, _, err2 := b.SpecJSON("x")
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// locPath is the attribute an item came from.
func locPath(l nodeconfig.Locator) path.Path { return locatedPath(l.Path()) }

var reSpecPath = regexp.MustCompile(`^items\[(\d+)\]\.[a-z_]+(?:\.(.*))?$`)

// specPath maps an agent spec path ("items[3].file.mode") to the
// attribute it came from (files["/etc/x"].mode).
func specPath(p string, locs []nodeconfig.Locator) path.Path {
	if p == "owner" {
		return path.Root("owner")
	}
	m := reSpecPath.FindStringSubmatch(p)
	if m == nil {
		return path.Empty()
	}
	i, _ := strconv.Atoi(m[1])
	if i >= len(locs) {
		return path.Empty()
	}
	at := locPath(locs[i])
	inMatch := false
	for _, part := range strings.Split(m[2], ".") {
		name, idx, hasIdx := strings.Cut(part, "[")
		if inMatch {
			at = at.AtName(name) // match.name, match.wwn, ...
			break
		}
		if name == "" || !isItemField(locs[i].Attr, name) {
			break
		}
		inMatch = name == "match"
		at = at.AtName(name)
		if hasIdx {
			n, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if err != nil {
				break
			}
			at = at.AtListIndex(n)
		}
		if name == "set" || name == "dropins" {
			break
		}
	}
	return at
}

// isItemField reports whether name is an attribute of attr's elements
// (the agent's field names are the attribute names, except key fields).
func isItemField(attrName, name string) bool {
	a, ok := nodeItemAttributes()[attrName]
	if !ok {
		return false
	}
	var nested map[string]attr.Type
	switch t := a.GetType().(type) {
	case basetypes.ObjectType:
		nested = t.AttrTypes
	case basetypes.MapType:
		if ot, ok := t.ElemType.(basetypes.ObjectType); ok {
			nested = ot.AttrTypes
		}
	case basetypes.ListType:
		if ot, ok := t.ElemType.(basetypes.ObjectType); ok {
			nested = ot.AttrTypes
		}
	}
	if name == "match" || strings.HasPrefix(name, "match.") {
		_, ok := nested["match"]
		return ok
	}
	_, ok = nested[name]
	return ok
}
