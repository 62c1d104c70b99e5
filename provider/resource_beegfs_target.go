package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

// NewBeegfsTargetResource is the hpcstorage_beegfs_target resource: one
// volume formatted and mounted on one node.
func NewBeegfsTargetResource() resource.Resource {
	return &beegfsTargetResource{&nodeService[beegfsTargetModel, *beegfsTargetModel]{name: "_beegfs_target", kind: beegfsKind,
		schema: beegfsTargetSchema}}
}

// beegfsTargetResource plans its own way: the format is checked against
// the node's facts.
type beegfsTargetResource struct {
	*nodeService[beegfsTargetModel, *beegfsTargetModel]
}

type beegfsTargetModel struct {
	NodeService
	WWN          types.String `tfsdk:"wwn"`
	Kind         types.String `tfsdk:"kind"`
	MountPoint   types.String `tfsdk:"mount_point"`
	SegmentSize  types.Int64  `tfsdk:"segment_size_bytes"`
	DataDrives   types.Int64  `tfsdk:"data_drives"`
	Wipe         types.Bool   `tfsdk:"wipe"`
	MountOptions types.List   `tfsdk:"mount_options"`
	Device       types.String `tfsdk:"device"`
	FSType       types.String `tfsdk:"fstype"`
	MkfsCommand  types.List   `tfsdk:"mkfs_command"`
}

func beegfsTargetSchema() schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	return schema.Schema{
		MarkdownDescription: "A BeeGFS target: an array volume found on a node by its WWN, formatted once and mounted. " +
			"Metadata and management targets get ext4 with the inode layout BeeGFS metadata needs (`-i 2048 -I 512 -J size=400 " +
			"-O dir_index,filetype`); storage targets get xfs aligned to the RAID stripe (`su` = segment size, `sw` = data " +
			"drives). A device that carries any signature (file system, partition table, RAID member) is never formatted " +
			"unless `wipe = true`; a device this provider formatted is recorded on the node (`" + beegfs.MarkerDir + "`) and " +
			"never formatted again. The mount is persisted in `/etc/fstab`.\n\nDestroy unmounts the target and removes its " +
			"fstab line, but never wipes it: the data stays on the volume, and creating the resource again mounts it as it is." +
			"\n\nThe signature check happens twice: at plan time from the node's facts (`blkid -p`, through the agent), so " +
			"a plan that would format a used device fails on `wipe` before anything is applied; and again on the node right " +
			"before `mkfs`.",
		Attributes: map[string]schema.Attribute{
			// Required
			"host": nodeHostAttribute("the target"),
			"wwn": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "WWN of the volume (`hpcstorage_volume.wwn`; NAA hex, `0x` or `naa.` prefixes accepted). The " +
					"node finds it as `/dev/disk/by-id/wwn-0x<wwn>`; a volume not mapped to this node fails the plan (or the " +
					"apply, when the WWN is only known then) before anything is changed."},
			"kind": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "What the target holds: " + backtickList(beegfs.TargetKinds) + ".",
				Validators:          []validator.String{stringvalidator.OneOf(beegfs.TargetKinds...)}},
			"mount_point": schema.StringAttribute{Required: true,
				MarkdownDescription: "Where the target is mounted, e.g. `/data/mdt01` or `/data/st01`."},
			// Optional
			"ssh": sshResourceAttribute(),
			"segment_size_bytes": schema.Int64Attribute{Optional: true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
				MarkdownDescription: "Segment (strip) size of the volume on one drive, in bytes (`hpcstorage_volume` optimum I/O size): xfs `su`. Required for storage targets.",
				Validators:          []validator.Int64{int64validator.Between(4096, 1<<30)}},
			"data_drives": schema.Int64Attribute{Optional: true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
				MarkdownDescription: "Drives holding data in one stripe (8 for RAID6 8+2): xfs `sw`. Required for storage targets.",
				Validators:          []validator.Int64{int64validator.Between(1, 64)}},
			"wipe": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
				MarkdownDescription: "Erase an existing signature before formatting (`wipefs -a`). Off by default: a device " +
					"with any signature (one this provider did not format) fails the plan, naming the device and what it " +
					"holds, and nothing is changed. Applies only to the first format."},
			"mount_options": schema.ListAttribute{Optional: true, Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Mount options, one per entry. Default per kind: storage " +
					backtickList(beegfs.Target{Kind: beegfs.KindStorage}.DefaultMountOptions()) + "; metadata and management " +
					backtickList(beegfs.Target{Kind: beegfs.KindMetadata}.DefaultMountOptions()) + ". A change applies at the next mount.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)}},
			// Computed
			"id":     nodeIDAttribute("`host/wwn`."),
			"device": schema.StringAttribute{Computed: true, MarkdownDescription: "`/dev/disk/by-id/wwn-0x<wwn>`."},
			"fstype": schema.StringAttribute{Computed: true, MarkdownDescription: "`ext4` or `xfs`."},
			"mkfs_command": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The mkfs argv run (once) on the node."},
			"drift":          nodeDriftAttribute(),
			"failure_domain": nodeDomainSchema(),
		},
	}
}

// ModifyPlan fills the computed attributes and, when the target changes and
// everything is known, checks it against the node (one read-only agent
// run): a volume not mapped to the node or a mount point in use fails the
// plan. It also refuses two targets of this run on one device or mount point.
func (r *beegfsTargetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan beegfsTargetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Drift = emptyDrift()
	if plan.MountOptions.IsUnknown() && !plan.Kind.IsUnknown() {
		plan.MountOptions = stringList(beegfs.Target{Kind: plan.Kind.ValueString()}.DefaultMountOptions())
	}
	if plan.Host.IsUnknown() || plan.WWN.IsUnknown() || plan.Kind.IsUnknown() || plan.MountPoint.IsUnknown() ||
		plan.SegmentSize.IsUnknown() || plan.DataDrives.IsUnknown() || plan.MountOptions.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	t, at, err := plan.target()
	if err != nil {
		beegfsInvalid(&resp.Diagnostics, at, err)
		return
	}
	plan.ID = types.StringValue(plan.resourceID())
	plan.fill()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	if r.nodes == nil {
		return
	}
	// The claimant names the mount point too: two targets on one device
	// would share an agent owner and silently override each other.
	clash := r.nodes.claims.claim(plan.Host.ValueString(), "hpcstorage_beegfs_target mounting "+t.MountPoint+" from "+beegfs.NormWWN(t.WWN),
		[]string{"device:" + beegfs.NormWWN(t.WWN), "mount:" + t.MountPoint})
	for id, other := range clash {
		at := path.Root("wwn")
		if strings.HasPrefix(id, "mount:") {
			at = path.Root("mount_point")
		}
		addError(&resp.Diagnostics, at, "Target Used Twice", fmt.Sprintf("%s on host %s is also used by the %s in this configuration.",
			id, plan.Host.ValueString(), other), nil)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state beegfsTargetModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		s, at, err := state.target()
		if err != nil {
			beegfsInvalid(&resp.Diagnostics, at, err)
		} else if s.MountPoint == t.MountPoint && strings.Join(s.Options(), ",") == strings.Join(t.Options(), ",") &&
			len(state.Drift.Elements()) == 0 {
			return
		}
	}
	items, _ := t.Items()
	run := nodeRunFor(r.nodes, &plan)
	res, ok := run.check(ctx, items, &resp.Diagnostics)
	if !ok || t.Wipe || len(res.Items) == 0 || !res.Items[0].Changed {
		return
	}
	// The format would run (no marker: this provider never formatted the
	// device): refuse one that carries any signature.
	f, ok := run.facts(ctx, &resp.Diagnostics)
	if !ok {
		return
	}
	for _, d := range f.BlockDevices {
		if d.WWN != "" && beegfs.NormWWN(d.WWN) == beegfs.NormWWN(t.WWN) && d.FSType != "" {
			addError(&resp.Diagnostics, path.Root("wipe"), "Device Already Has A Signature", fmt.Sprintf("Host %s: %s (/dev/%s) "+
				"already holds a %s signature, and this provider did not format it (no %s on the node). Formatting it would "+
				"destroy what it holds. Set wipe = true to erase it, or use another volume.", plan.Host.ValueString(),
				beegfs.DevicePath(t.WWN), d.Name, d.FSType, t.MarkerPath()), nil)
			return // one error, even when several paths (multipath) show the volume
		}
	}
}

// ValidateConfig reports missing geometry of storage targets and other
// render errors on their attribute.
func (r *beegfsTargetResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m beegfsTargetModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Kind.IsUnknown() || m.Kind.ValueString() != beegfs.KindStorage {
		return
	}
	for _, a := range []struct {
		v    types.Int64
		name string
	}{{m.SegmentSize, "segment_size_bytes"}, {m.DataDrives, "data_drives"}} {
		if a.v.IsNull() {
			addError(&resp.Diagnostics, path.Root(a.name), "Missing Stripe Geometry",
				"Storage targets need segment_size_bytes and data_drives to align xfs (su/sw) with the RAID stripe.", nil)
		}
	}
}

func (m *beegfsTargetModel) secret() serviceSecret { return nil }

func (m *beegfsTargetModel) owner() string {
	return "beegfs-target-" + beegfs.NormWWN(m.WWN.ValueString())
}

// resourceID is `host/wwn`: one target per volume and node.
func (m *beegfsTargetModel) resourceID() string {
	return m.Host.ValueString() + "/" + beegfs.NormWWN(m.WWN.ValueString())
}

func (m *beegfsTargetModel) known() bool {
	return !m.WWN.IsUnknown() && !m.Kind.IsUnknown() && !m.MountPoint.IsUnknown() && !m.SegmentSize.IsUnknown() &&
		!m.DataDrives.IsUnknown() && !m.MountOptions.IsUnknown()
}

// target converts the model; an error names its attribute.
func (m *beegfsTargetModel) target() (beegfs.Target, path.Path, error) {
	t := beegfs.Target{WWN: m.WWN.ValueString(), Kind: m.Kind.ValueString(), MountPoint: m.MountPoint.ValueString(),
		SegmentBytes: m.SegmentSize.ValueInt64(), DataDrives: int(m.DataDrives.ValueInt64()), Wipe: m.Wipe.ValueBool()}
	if !m.MountOptions.IsNull() && !m.MountOptions.IsUnknown() {
		for _, e := range m.MountOptions.Elements() {
			if s, ok := e.(types.String); ok {
				t.MountOptions = append(t.MountOptions, s.ValueString())
			}
		}
	}
	if err := t.Validate(); err != nil {
		at := path.Root("wwn")
		for _, name := range []string{"kind", "segment_size_bytes", "data_drives", "mount_point", "mount_options"} {
			if strings.Contains(err.Error(), name) {
				at = path.Root(name)
				break
			}
		}
		return t, at, err
	}
	return t, path.Empty(), nil
}

func (m *beegfsTargetModel) items(secretInput) ([]protocol.Item, path.Path, error) {
	t, at, err := m.target()
	if err != nil {
		return nil, at, err
	}
	items, _ := t.Items()
	return items, path.Empty(), nil
}

// itemPath: a missing device is the volume's fault (not mapped to this
// node), not the mount point's.
func (m *beegfsTargetModel) itemPath(i int, msg string) path.Path {
	if i == 0 || strings.Contains(msg, "mapped") {
		return path.Root("wwn")
	}
	return path.Root("mount_point")
}

func (m *beegfsTargetModel) fill() {
	t, _, _ := m.target()
	m.Device = types.StringValue(beegfs.DevicePath(t.WWN))
	m.FSType = types.StringValue(t.FSType())
	m.MkfsCommand = stringList(t.MkfsArgv())
	m.MountOptions = stringList(t.Options())
}

func stringList(l []string) types.List {
	elems := make([]attr.Value, len(l))
	for i, s := range l {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

// importOwner: the target is imported as `host/wwn`.
func (m *beegfsTargetModel) importOwner(wwn string) string {
	return "beegfs-target-" + beegfs.NormWWN(wwn)
}
