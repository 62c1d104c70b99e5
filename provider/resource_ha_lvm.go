package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/halvm"
)

// NewHALVMResource is the hpcstorage_ha_lvm resource: HA-LVM with system
// ID access on one node of a pair, and (on one of them) the shared volume
// group, its striped logical volume and XFS.
func NewHALVMResource() resource.Resource {
	return &nodeService[haLVMModel, *haLVMModel]{name: "_ha_lvm", kind: "HA-LVM", schema: haLVMSchema, claim: claimVGCreation}
}

type haLVMModel struct {
	NodeService
	VolumeGroup   types.String `tfsdk:"volume_group"`
	LogicalVolume types.String `tfsdk:"logical_volume"`
	Devices       types.List   `tfsdk:"devices"`
	SegmentSize   types.Int64  `tfsdk:"segment_size_bytes"`
	DataDrives    types.Int64  `tfsdk:"data_drives"`
	Create        types.Bool   `tfsdk:"create"`
	Wipe          types.Bool   `tfsdk:"wipe"`
	PackageFloors types.Bool   `tfsdk:"package_floors"`
	DevicePath    types.String `tfsdk:"device_path"`
	StripeSize    types.Int64  `tfsdk:"stripe_size_bytes"`
	MkfsCommand   types.List   `tfsdk:"mkfs_command"`
}

func haLVMSchema() schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	f := halvm.LVMFloor
	return schema.Schema{
		MarkdownDescription: "HA-LVM for an active-passive pair (R2), the way the cluster's `LVM-activate` resource " +
			"with `vg_access_mode=system_id` needs it. On every node of the pair: `" + halvm.LocalConf + "` sets " +
			"`system_id_source = \"uname\"`, so a volume group belongs to the node that activated it and no other node " +
			"activates it by accident. On the one node with `create = true`: the volume group over the multipathed " +
			"volumes (`hpcstorage_multipath.devices`), one logical volume striped over all of them (stripe size = the " +
			"RAID set's full stripe, `segment_size_bytes` × `data_drives`) and XFS aligned to it (`su` = that stripe, " +
			"`sw` = the number of volumes); then the volume group is deactivated, left for the cluster to activate " +
			"where it runs the NFS group.\n\nCreated once: when the volume group exists (on any node, foreign ones " +
			"included) nothing is created or formatted again, whatever the attributes say. Until its file system is made " +
			"the volume group carries the LVM tag `" + halvm.CreatingTag + "`: a creation cut short (a killed run) is " +
			"resumed by the next apply, step by step, and never started over. A device that already holds " +
			"a signature (another volume group, a file system, a partition table) fails the plan, naming it, unless " +
			"`wipe = true`; a device whose map is not there yet at plan time is checked again on the node right before " +
			"`vgcreate`.\n\nDestroy puts back `lvmlocal.conf` only: it **never** removes the volume group, the logical " +
			"volume or the file system (the data stays; remove them by hand with `vgremove` if that is what you want). " +
			"Package floor (rpm nodes): `lvm2` " + f.Min + " (" + f.Why + ").",
		Attributes: nodeServiceSchema("HA-LVM", map[string]schema.Attribute{
			"volume_group": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Volume group name (R2: e.g. `vg_nfs`)."},
			"logical_volume": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Logical volume name (e.g. `lv_nfs`)."},
			"devices": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "The multipathed volumes, `/dev/mapper/<alias>` (`values(hpcstorage_multipath.x.devices)`), " +
					"one stripe each. The same on every node of the pair.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues()}},
			"segment_size_bytes": schema.Int64Attribute{Required: true,
				MarkdownDescription: "Segment (strip) size of the RAID sets on one drive, in bytes (R2: 524288).",
				Validators:          []validator.Int64{int64validator.Between(512, 1<<30)}},
			"data_drives": schema.Int64Attribute{Required: true,
				MarkdownDescription: "Data drives of one RAID set (8 for RAID6 8+2).",
				Validators:          []validator.Int64{int64validator.Between(1, 64)}},
			"create": schema.BoolAttribute{Required: true,
				MarkdownDescription: "Create the volume group, logical volume and file system from this node. Exactly one " +
					"node of the pair: two resources of one run creating the same volume group fail the plan."},
			"wipe": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Erase existing signatures on the devices before `vgcreate` (`wipefs -a`). Off by default; " +
					"only used by the creation, which runs once."},
			"package_floors": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Check the lvm2 floor (rpm nodes)."},
			"device_path": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The logical volume, `/dev/<volume_group>/<logical_volume>`: the `Filesystem` resource's device."},
			"stripe_size_bytes": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "The logical volume's stripe size, one full RAID stripe."},
			"mkfs_command": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The mkfs argv run (once) by the creating node."},
		}),
	}
}

// claimVGCreation refuses two creators of one volume group in a run.
func claimVGCreation(nodes *nodeAccess, m *haLVMModel, diags *diag.Diagnostics) {
	if !m.Create.ValueBool() {
		return
	}
	who := "hpcstorage_ha_lvm creating on " + m.Host.ValueString()
	for id, other := range nodes.claims.claim("ha-lvm", who, []string{"create:" + m.VolumeGroup.ValueString()}) {
		addError(diags, path.Root("create"), "Volume Group Created Twice", fmt.Sprintf("%s: the %s in this configuration "+
			"creates it too. Set create = true on one node of the pair only.", strings.TrimPrefix(id, "create:"), other), nil)
	}
}

func (m *haLVMModel) secret() serviceSecret { return nil }

func (m *haLVMModel) owner() string { return "ha-lvm-" + m.VolumeGroup.ValueString() }

func (m *haLVMModel) known() bool {
	return !m.VolumeGroup.IsUnknown() && !m.LogicalVolume.IsUnknown() && !m.Devices.IsUnknown() && !m.SegmentSize.IsUnknown() &&
		!m.DataDrives.IsUnknown() && !m.Create.IsUnknown() && !m.Wipe.IsUnknown() && !m.PackageFloors.IsUnknown() && m.devicesKnown()
}

func (m *haLVMModel) devicesKnown() bool {
	for _, e := range m.Devices.Elements() {
		if e.IsUnknown() {
			return false
		}
	}
	return true
}

func (m *haLVMModel) vg() halvm.VolumeGroup {
	v := halvm.VolumeGroup{Name: m.VolumeGroup.ValueString(), LogicalVolume: m.LogicalVolume.ValueString(),
		SegmentBytes: m.SegmentSize.ValueInt64(), DataDrives: int(m.DataDrives.ValueInt64()), Wipe: m.Wipe.ValueBool()}
	for _, e := range m.Devices.Elements() {
		if s, ok := e.(types.String); ok {
			v.Devices = append(v.Devices, s.ValueString())
		}
	}
	return v
}

func (m *haLVMModel) floors() bool { return m.PackageFloors.IsNull() || m.PackageFloors.ValueBool() }

// items: the floor, lvmlocal.conf, then on the creator the read-only
// refusal of used devices and the one-time creation.
func (m *haLVMModel) items(secretInput) ([]protocol.Item, path.Path, error) {
	v := m.vg()
	if err := v.Validate(); err != nil {
		return nil, path.Root("volume_group"), err // located at its attribute
	}
	var items []protocol.Item
	if m.floors() {
		items = append(items, halvm.FloorItem())
	}
	items = append(items, halvm.NodeItems()...)
	if m.Create.ValueBool() {
		if probe, ok := v.UsedProbe(); ok {
			items = append(items, probe)
		}
		create, err := v.CreateItem()
		if err != nil {
			return nil, path.Root("volume_group"), err // located at its attribute
		}
		items = append(items, create)
	}
	return items, path.Empty(), nil
}

// itemPath: the floor and lvmlocal.conf are the host's; the probe that
// refuses used devices (there without wipe) points at wipe; the creation
// at the devices.
func (m *haLVMModel) itemPath(i int, _ string) path.Path {
	if m.floors() {
		if i == 0 {
			return path.Root("host")
		}
		i--
	}
	switch {
	case i == 0:
		return path.Root("host")
	case i == 1 && !m.Wipe.ValueBool():
		return path.Root("wipe")
	}
	return path.Root("devices")
}

func (m *haLVMModel) fill() {
	v := m.vg()
	m.DevicePath = types.StringValue(v.DevicePath())
	m.StripeSize = types.Int64Value(v.StripeBytes())
	m.MkfsCommand = stringList(v.MkfsArgv())
}
