package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// NewBeegfsMirrorGroupResource is the hpcstorage_beegfs_mirror_group
// resource: one BeeGFS buddy mirror group.
func NewBeegfsMirrorGroupResource() resource.Resource {
	return &beegfsMirrorGroupResource{&nodeService[beegfsMirrorGroupModel, *beegfsMirrorGroupModel]{name: "_beegfs_mirror_group",
		kind: beegfsKind, schema: beegfsMirrorGroupSchema}}
}

// beegfsMirrorGroupResource adds the read-back and the plan-time client
// check to the shell.
type beegfsMirrorGroupResource struct {
	*nodeService[beegfsMirrorGroupModel, *beegfsMirrorGroupModel]
}

type beegfsMirrorGroupModel struct {
	NodeService
	NodeType       types.String `tfsdk:"node_type"`
	GroupID        types.Int64  `tfsdk:"group_id"`
	Primary        types.Object `tfsdk:"primary"`
	Secondary      types.Object `tfsdk:"secondary"`
	MirrorMetadata types.Bool   `tfsdk:"mirror_metadata"`
	Version        types.String `tfsdk:"version"`
	TLSDisable     types.Bool   `tfsdk:"tls_disable"`
	CurrentPrimary types.Int64  `tfsdk:"current_primary"`
	Command        types.List   `tfsdk:"command"`
}

type beegfsMirrorMemberModel struct {
	ID        types.Int64  `tfsdk:"id"`
	SizeBytes types.Int64  `tfsdk:"size_bytes"`
	Pool      types.Int64  `tfsdk:"pool"`
	Server    types.String `tfsdk:"server"`
}

var beegfsMirrorMemberTypes = map[string]attr.Type{"id": types.Int64Type, "size_bytes": types.Int64Type, "pool": types.Int64Type,
	"server": types.StringType}

func beegfsMirrorMemberAttribute(which string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Required: true, PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
		MarkdownDescription: "The " + which + " side: a storage target (its numeric target ID) or a metadata node (its numeric node ID).",
		Attributes: map[string]schema.Attribute{
			"id": schema.Int64Attribute{Required: true, MarkdownDescription: "Target ID (storage) or metadata node ID (meta).",
				Validators: []validator.Int64{int64validator.Between(1, 65535)}},
			"size_bytes": schema.Int64Attribute{Optional: true, MarkdownDescription: "Size of the storage target's volume (e.g. the " +
				"`capacity_bytes` of its `hpcstorage_volume`). Required for storage: both sides must be equal, a pair across sizes is " +
				"refused at plan (the smaller side would cap the group, and BeeGFS's automatic mode silently skips such targets).",
				Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"pool": schema.Int64Attribute{Optional: true, MarkdownDescription: "Storage pool of the target (storage; default 1). Both sides " +
				"must be in the same pool.", Validators: []validator.Int64{int64validator.Between(1, 65535)}},
			"server": schema.StringAttribute{Optional: true, MarkdownDescription: "The server that serves it. When both sides give one, " +
				"they must differ: a group on one server loses both copies with it."},
		}}
}

func beegfsMirrorGroupSchema() schema.Schema {
	attrs := beegfsServiceSchema("a node with `beegfs-ctl` and a client config reaching the management service (a client, "+
		"or the management server)", map[string]schema.Attribute{
		"node_type": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			MarkdownDescription: "`storage` (a pair of storage targets) or `meta` (a pair of metadata nodes).",
			Validators:          []validator.String{stringvalidator.OneOf(beegfs.MirrorNodeTypes...)}},
		"group_id": schema.Int64Attribute{Required: true, PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			MarkdownDescription: "Buddy group ID, unique per node type (it may equal a target ID).",
			Validators:          []validator.Int64{int64validator.Between(1, 65535)}},
		"primary":   beegfsMirrorMemberAttribute("primary"),
		"secondary": beegfsMirrorMemberAttribute("secondary"),
		"mirror_metadata": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "`meta` only: turn metadata mirroring on (`beegfs-ctl --mirrormd`, once) after the group is defined. " +
				"BeeGFS needs every client unmounted while it runs: the plan lists the mounted clients " +
				"(`beegfs-ctl --listnodes --nodetype=client`) and refuses, naming them. The provider does not order the restarts " +
				"itself: after the apply, restart every metadata service (with HA, each metadata group: `crm_resource --restart " +
				"--resource <group>`, what `pcs resource restart` runs), then start the clients. It cannot be turned off again."},
		"version":     beegfsVersionAttribute(),
		"tls_disable": beegfsCLITLSAttribute(),
		"current_primary": schema.Int64Attribute{Computed: true, MarkdownDescription: "The side that is primary now, as " +
			"`beegfs-ctl --listmirrorgroups` shows it (after a failover BeeGFS swaps primary and secondary; that is no drift)."},
		"command": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The `beegfs-ctl --addmirrorgroup` " +
			"argv (7.x), or `beegfs mirror create <node_type>_group_<group_id> --node-type --primary --secondary --num-id` (8: read back " +
			"with `beegfs mirror list`, metadata mirroring with `beegfs mirror init --yes`, clients with `beegfs node list`)."},
	}, false)
	return schema.Schema{
		MarkdownDescription: "One BeeGFS buddy mirror group (BeeGFS 7.x `beegfs-ctl --addmirrorgroup`; with `version = \"8\"` `beegfs mirror create`), for designs whose " +
			"servers do not share storage: the secondary keeps a copy of everything written to the primary, and takes over when " +
			"the primary fails. **Mirroring halves the capacity** of the targets it pairs (files in a `buddy_mirror` directory " +
			"take twice their size). Groups are defined explicitly, never with `--automatic`. The group is read back with " +
			"`beegfs-ctl --listmirrorgroups` on every refresh. Directories are mirrored with `hpcstorage_beegfs_stripe_pattern`'s " +
			"`buddy_mirror`. Destroy leaves the group in BeeGFS (its data is mirrored in it); a changed member or ID is a new " +
			"group, which BeeGFS refuses while the old one exists.",
		Attributes: attrs,
	}
}

func (m *beegfsMirrorGroupModel) secret() serviceSecret { return nil }

func (m *beegfsMirrorGroupModel) owner() string {
	return fmt.Sprintf("beegfs-mirror-%s-%d", m.NodeType.ValueString(), m.GroupID.ValueInt64())
}

func (m *beegfsMirrorGroupModel) known() bool {
	return !m.NodeType.IsUnknown() && !m.GroupID.IsUnknown() && !m.MirrorMetadata.IsUnknown() && memberKnown(m.Primary) && memberKnown(m.Secondary) &&
		!m.Version.IsUnknown() && !m.TLSDisable.IsUnknown()
}

func memberKnown(o types.Object) bool {
	if o.IsUnknown() {
		return false
	}
	for _, v := range o.Attributes() {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

func mirrorMember(o types.Object) beegfs.MirrorMember {
	var mm beegfsMirrorMemberModel
	_ = o.As(context.Background(), &mm, basetypes.ObjectAsOptions{})
	return beegfs.MirrorMember{ID: int(mm.ID.ValueInt64()), SizeBytes: mm.SizeBytes.ValueInt64(), Pool: intOr(mm.Pool, 1),
		Server: mm.Server.ValueString()}
}

func (m *beegfsMirrorGroupModel) group() beegfs.MirrorGroup {
	return beegfs.MirrorGroup{NodeType: m.NodeType.ValueString(), GroupID: int(m.GroupID.ValueInt64()), Primary: mirrorMember(m.Primary),
		Secondary: mirrorMember(m.Secondary), MirrorMetadata: m.MirrorMetadata.ValueBool(), Version: m.Version.ValueString(),
		TLSDisable: m.TLSDisable.ValueBool()}
}

func (m *beegfsMirrorGroupModel) items(secretInput) ([]protocol.Item, path.Path, error) {
	items, err := m.group().Items()
	if _, ok := located.Find(err); ok {
		return items, beegfsErrPath(err), err
	}
	return items, errorPath(err, "group_id", "node_type", "primary", "secondary", "mirror_metadata"), err
}

func (m *beegfsMirrorGroupModel) itemPath(i int, _ string) path.Path {
	if i == 1 {
		return path.Root("mirror_metadata")
	}
	return path.Root("group_id")
}

func (m *beegfsMirrorGroupModel) fill() {
	m.Command = stringList(m.group().AddArgv())
	if m.CurrentPrimary.IsNull() || m.CurrentPrimary.IsUnknown() {
		m.CurrentPrimary = types.Int64Value(int64(m.group().Primary.ID))
	}
}

// Read reads the group back (`beegfs-ctl --listmirrorgroups`): a group
// gone, or with other members, shows as drift that the apply defines
// again (BeeGFS refuses a group ID in use with other members: that error
// then names the group).
func (r *beegfsMirrorGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state beegfsMirrorGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.Drift.IsNull() {
		// Imported: the shell fills the attributes from the node first.
		r.nodeService.Read(ctx, req, resp)
		return
	}
	items, ok := r.renderItems(&state, req.State.Raw, secretInput{Unread: true}, &resp.Diagnostics)
	if !ok {
		return
	}
	g := state.group()
	probe := g.ProbeItems()[0]
	drift, out, ran, ok := nodeRunFor(r.nodes, &state).driftProbe(ctx, items, probe, &resp.Diagnostics)
	if !ok {
		return
	}
	if ran {
		listed, err := beegfs.ParseMirrorGroups(out)
		found, same := g.Listed(listed)
		switch {
		case err != nil:
			drift[probe.ID()] = "error: " + err.Error()
		case !found:
			drift["mirror group"] = fmt.Sprintf("group %d is not in --listmirrorgroups", g.GroupID)
		case !same:
			drift["mirror group"] = fmt.Sprintf("group %d has other members", g.GroupID)
		}
		for _, l := range listed {
			if l.ID == g.GroupID && same {
				state.CurrentPrimary = types.Int64Value(int64(l.Primary))
			}
		}
	}
	state.Drift = driftMap(drift)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// ModifyPlan adds to the shell's plan-time check: metadata mirroring
// about to be turned on while clients are mounted is refused, naming them.
func (r *beegfsMirrorGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !beegfsUpgradeCheck(ctx, req, resp) {
		return
	}
	r.nodeService.ModifyPlan(ctx, req, resp)
	if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() || r.nodes == nil {
		return
	}
	var plan beegfsMirrorGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.known() || plan.Host.IsUnknown() || !plan.MirrorMetadata.ValueBool() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state beegfsMirrorGroupModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if state.MirrorMetadata.ValueBool() {
			return // on already; --mirrormd ran once
		}
	}
	probe := plan.group().ProbeItems()[1]
	res, ok := nodeRunFor(r.nodes, &plan).exec(ctx, []protocol.Item{probe}, true, &resp.Diagnostics)
	if !ok || len(res.Items) == 0 {
		return
	}
	if ir := res.Items[0]; ir.Error != "" {
		addError(&resp.Diagnostics, path.Root("mirror_metadata"), "Cannot List BeeGFS Clients", fmt.Sprintf("Host %s: %s: %s",
			plan.Host.ValueString(), strings.Join(beegfs.ClientsArgvFor(plan.Version.ValueString(), plan.TLSDisable.ValueBool()), " "), ir.Error), nil)
		return
	}
	if clients := beegfs.ParseClients(res.Items[0].Output); len(clients) > 0 {
		addError(&resp.Diagnostics, path.Root("mirror_metadata"), "Clients Are Mounted",
			fmt.Sprintf("beegfs-ctl --mirrormd needs every client unmounted, and %d client(s) are: %s. Stop beegfs-client on them "+
				"(or remove them from this configuration), apply, then restart every beegfs-meta service and start the clients again.",
				len(clients), strings.Join(clients, ", ")), nil)
	}
}
