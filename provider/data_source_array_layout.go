package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/layout"
)

var (
	_ datasource.DataSource                     = (*arrayLayoutDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*arrayLayoutDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*arrayLayoutDataSource)(nil)
)

// NewArrayLayoutDataSource returns the pure array layout planner.
func NewArrayLayoutDataSource() datasource.DataSource { return &arrayLayoutDataSource{} }

type arrayLayoutDataSource struct{ data *providerData }

type arrayLayoutModel struct {
	// Inputs: exactly one drive source.
	Model              types.String       `tfsdk:"model"`
	DriveCount         types.Int64        `tfsdk:"drive_count"`
	DrawerSize         types.Int64        `tfsdk:"drawer_size"`
	DriveMediaType     types.String       `tfsdk:"drive_media_type"`
	DriveCapacityBytes types.Int64        `tfsdk:"drive_capacity_bytes"`
	Drives             []layoutDriveModel `tfsdk:"drives"`
	Endpoint           types.String       `tfsdk:"endpoint"`
	StorageID          types.String       `tfsdk:"storage_id"`
	Policy             *layoutPolicyModel `tfsdk:"policy"`
	BuildingBlock      types.String       `tfsdk:"beegfs_building_block"`
	// Outputs.
	DiskGroups     []layoutGroupModel  `tfsdk:"disk_groups"`
	Volumes        []layoutVolumeModel `tfsdk:"volumes"`
	SpareDriveIDs  []string            `tfsdk:"spare_drive_ids"`
	UnusedDriveIDs []string            `tfsdk:"unused_drive_ids"`
	Diagram        types.String        `tfsdk:"diagram"`
	RawCapacity    types.Int64         `tfsdk:"raw_capacity_bytes"`
}

type layoutDriveModel struct {
	ID            types.String `tfsdk:"id"`
	MediaType     types.String `tfsdk:"media_type"`
	CapacityBytes types.Int64  `tfsdk:"capacity_bytes"`
	Drawer        types.Int64  `tfsdk:"drawer"`
	Slot          types.Int64  `tfsdk:"slot"`
}

type layoutPolicyModel struct {
	RAIDLevel        types.String `tfsdk:"raid_level"`
	DrivesPerGroup   types.Int64  `tfsdk:"drives_per_group"`
	GroupCount       types.Int64  `tfsdk:"group_count"`
	MinSpares        types.Int64  `tfsdk:"min_spares"`
	LeftoverAsSpares types.Bool   `tfsdk:"leftover_as_spares"`
	MediaType        types.String `tfsdk:"media_type"`
	NamePrefix       types.String `tfsdk:"name_prefix"`
}

// layoutVolumeModel is one volume of a building-block layout.
type layoutVolumeModel struct {
	Name             string  `tfsdk:"name"`
	DiskGroup        string  `tfsdk:"disk_group"`
	Service          string  `tfsdk:"service"`
	Percent          float64 `tfsdk:"percent"`
	SegmentSizeBytes int64   `tfsdk:"segment_size_bytes"`
	CapacityBytes    int64   `tfsdk:"capacity_bytes"`
}

type layoutGroupModel struct {
	Name          string   `tfsdk:"name"`
	RAIDLevel     string   `tfsdk:"raid_level"`
	DriveIDs      []string `tfsdk:"drive_ids"`
	Drawers       []int64  `tfsdk:"drawers"`
	CapacityBytes int64    `tfsdk:"capacity_bytes"`
}

func (d *arrayLayoutDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_array_layout"
}

func (d *arrayLayoutDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	var models []string
	for _, m := range layout.Models {
		models = append(models, fmt.Sprintf("`%s` (%s)", m.Name, m.Description))
	}
	var rules []string
	for _, l := range layout.PoolLevels {
		rules = append(rules, fmt.Sprintf("`%s`: %s", l, layout.DriveCountRule(l)))
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Plans how an array's drives are carved into disk groups and global spares. Unless " +
			"`endpoint` is set it contacts nothing: the same inputs always give the same plan, so it can feed `hpcstorage_disk_group` " +
			"and `hpcstorage_spare_drives` with `for_each`. Groups stay inside one drawer while a drawer has room for " +
			"a whole group, and leftovers go to the end of each drawer. Give the drives as a `model` preset, a " +
			"`drive_count`, a `drives` list (for example from `data.hpcstorage_drives`), or an array `endpoint`.",
		Attributes: map[string]schema.Attribute{
			// Inputs: the drives.
			"model": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Enclosure preset, drives numbered from 0: " + strings.Join(models, "; ") + ".",
				Validators:          []validator.String{stringvalidator.OneOf(layout.ModelNames()...)},
			},
			"drive_count": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Number of drives, ids `0` to `drive_count-1`.",
				Validators:          []validator.Int64{int64validator.Between(1, 4096)},
			},
			"drawer_size": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Bays per drawer with `drive_count` (42 on an ME4084). Default: one drawer.",
				Validators: []validator.Int64{int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRoot("drive_count"))},
			},
			"drive_media_type": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Media type of the drives given by `model` or `drive_count` (`HDD`, `SSD`).",
				Validators:          []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("drives"))},
			},
			"drive_capacity_bytes": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Capacity of each drive given by `model` or `drive_count`; enables `capacity_bytes` of the groups.",
				Validators: []validator.Int64{int64validator.AtLeast(1),
					int64validator.ConflictsWith(path.MatchRoot("drives"))},
			},
			"drives": schema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "The drives, in any order; they are planned in `drawer`, `slot` order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":             schema.StringAttribute{Required: true, MarkdownDescription: "Drive id on the array."},
					"media_type":     schema.StringAttribute{Optional: true, MarkdownDescription: "`HDD`, `SSD` ..."},
					"capacity_bytes": schema.Int64Attribute{Optional: true, MarkdownDescription: "Raw capacity."},
					"drawer":         schema.Int64Attribute{Optional: true, MarkdownDescription: "Drawer or enclosure number (default 0)."},
					"slot":           schema.Int64Attribute{Optional: true, MarkdownDescription: "Bay number (default: position in the list)."},
				}},
			},
			"endpoint": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Read the drives from this array (a name in the provider's `endpoints` map) instead; " +
					"the only input that makes the data source contact anything.",
			},
			"storage_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: storageIDDoc,
				Validators:          []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("endpoint"))},
			},
			"beegfs_building_block": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Instead of `policy`, lay out a BeeGFS on NetApp building block's 24-drive EF600 as NetApp " +
					"publishes it (netapp_eseries.beegfs collection, `beegfs_target_settings`): `base` and `metadata_storage` get a " +
					"2+2 `RAID10` metadata group (128 KiB segments) and two `RAID6` 8+2 storage groups (512 KiB segments); `storage` " +
					"two `RAID6` 10+2 groups. `volumes` lists the volumes with NetApp's sizes (23.75 % per metadata, 24 % per storage " +
					"volume, 1 % management on `base`). One of: " + blockProfiles() + ".",
				Validators: []validator.String{stringvalidator.OneOf(blockProfileStrings()...)},
			},
			"policy": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "How to carve the drives. Either this or `beegfs_building_block`.",
				Attributes: map[string]schema.Attribute{
					"raid_level": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "RAID level of every group; drive counts allowed: " + strings.Join(rules, "; ") + ".",
						Validators:          []validator.String{stringvalidator.OneOf(layout.PoolLevelStrings()...)},
					},
					"drives_per_group": schema.Int64Attribute{
						Optional:            true,
						MarkdownDescription: "Drives in each group (10 for RAID6 8+2). Default 2 for `RAID1`; required otherwise.",
						Validators:          []validator.Int64{int64validator.AtLeast(1)},
					},
					"group_count": schema.Int64Attribute{
						Optional:            true,
						MarkdownDescription: "Number of groups. Default: as many as fit after `min_spares`.",
						Validators:          []validator.Int64{int64validator.AtLeast(1)},
					},
					"min_spares": schema.Int64Attribute{
						Optional:            true,
						MarkdownDescription: "Drives reserved as global spares before groups are formed. Default 0.",
						Validators:          []validator.Int64{int64validator.AtLeast(0)},
					},
					"leftover_as_spares": schema.BoolAttribute{
						Optional:            true,
						MarkdownDescription: "Make every eligible drive left over a global spare. Default true.",
					},
					"media_type": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Plan only drives of this media type; others are reported unused. Required when media types are mixed.",
					},
					"name_prefix": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Groups are named `<name_prefix>01`, `<name_prefix>02` ... Default `dg`.",
						Validators:          []validator.String{stringvalidator.LengthBetween(1, 24)},
					},
				},
			},
			// Outputs.
			// A list of objects, not nested attributes: Terraform's mock_provider
			// (terraform test, up to 1.15 at least) cannot mock a computed
			// nested list (hashicorp/terraform#38369), and modules are
			// unit-tested with the layout mocked.
			"disk_groups": schema.ListAttribute{
				Computed: true,
				ElementType: types.ObjectType{AttrTypes: map[string]attr.Type{
					"name": types.StringType, "raid_level": types.StringType, "drive_ids": types.ListType{ElemType: types.StringType},
					"drawers": types.ListType{ElemType: types.Int64Type}, "capacity_bytes": types.Int64Type,
				}},
				MarkdownDescription: "Planned disk groups, in order: `name`, `raid_level`, `drive_ids` (member drive ids in " +
					"bay order), `drawers` (drawers the members sit in), `capacity_bytes` (usable capacity, 0 when drive " +
					"capacities are unknown).",
			},
			"volumes": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Volumes of a `beegfs_building_block` layout, in group order; empty with `policy`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":               schema.StringAttribute{Computed: true, MarkdownDescription: "Volume name (`mgmt`, `meta_01_01`, `stor_02_04` ...)."},
					"disk_group":         schema.StringAttribute{Computed: true, MarkdownDescription: "Group the volume is carved from."},
					"service":            schema.StringAttribute{Computed: true, MarkdownDescription: "`management`, `metadata` or `storage`."},
					"percent":            schema.Float64Attribute{Computed: true, MarkdownDescription: "Share of the group's usable capacity."},
					"segment_size_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Segment size."},
					"capacity_bytes":     schema.Int64Attribute{Computed: true, MarkdownDescription: "`percent` of the group in whole MiB (0 when drive capacities are unknown)."},
				}},
			},
			"spare_drive_ids": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Drives to make global spares.",
			},
			"unused_drive_ids": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Drives neither in a group nor spares.",
			},
			"diagram": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The drawers as text, one row per enclosure row: the group number in each bay, `S` " +
					"for a global spare, `.` for a drive left alone, then a legend.",
			},
			"raw_capacity_bytes": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "Sum of the capacities of every drive given or read (grouped, spare or unused); 0 when " +
					"they are unknown. With `endpoint`, a module needs no `data.hpcstorage_drives` for its raw capacity.",
			},
		},
	}
}

func (d *arrayLayoutDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("model"), path.MatchRoot("drive_count"), path.MatchRoot("drives"), path.MatchRoot("endpoint")),
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("policy"), path.MatchRoot("beegfs_building_block")),
	}
}

func (d *arrayLayoutDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m arrayLayoutModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	drives := m.driveList()
	if m.Policy != nil && m.Policy.RAIDLevel.ValueString() == string(layout.DDP) && !m.Endpoint.IsNull() && !d.data.speaksSantricity(m.Endpoint.ValueString()) {
		addError(&resp.Diagnostics, path.Root("policy").AtName("raid_level"), "RAID Level Not Offered",
			fmt.Sprintf("DDP (Dynamic Disk Pools) is an E-Series level; %s is a Redfish array.", m.Endpoint.ValueString()), nil)
		return
	}
	if !m.Endpoint.IsNull() {
		if drives = d.arrayDrives(ctx, &m, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	m.Volumes = []layoutVolumeModel{}
	var plan layout.Plan
	var err error
	if !m.BuildingBlock.IsNull() {
		var bp layout.BlockPlan
		bp, err = layout.BeeGFSBlock(layout.BlockProfile(m.BuildingBlock.ValueString()), drives)
		plan = bp.Plan
		for _, v := range bp.Volumes {
			m.Volumes = append(m.Volumes, layoutVolumeModel{Name: v.Name, DiskGroup: v.Group, Service: v.Service, Percent: v.Percent,
				SegmentSizeBytes: v.SegmentBytes, CapacityBytes: v.CapacityBytes})
		}
	} else {
		plan, err = layout.Make(drives, m.Policy.policy())
	}
	if err != nil {
		at := path.Root("policy")
		if !m.BuildingBlock.IsNull() {
			at = path.Root("beegfs_building_block")
		}
		var fe *layout.FieldError
		if errors.As(err, &fe) {
			switch {
			case !m.BuildingBlock.IsNull() && fe.Field != "drives":
			case fe.Index >= 0:
				at = path.Root(fe.Field).AtListIndex(fe.Index).AtName("id")
			case !m.BuildingBlock.IsNull():
				at = m.driveSource() // the drives do not fit a building block
			default:
				at = at.AtName(fe.Field)
			}
		}
		addError(&resp.Diagnostics, at, "Impossible Array Layout",
			"The drives cannot be carved as asked; change the attribute named above.", err)
		return
	}
	m.DiskGroups = make([]layoutGroupModel, 0, len(plan.Groups))
	for _, g := range plan.Groups {
		gm := layoutGroupModel{Name: g.Name, RAIDLevel: string(g.Level), DriveIDs: g.DriveIDs, CapacityBytes: g.UsableBytes}
		for _, dr := range g.Drawers {
			gm.Drawers = append(gm.Drawers, int64(dr))
		}
		m.DiskGroups = append(m.DiskGroups, gm)
	}
	m.SpareDriveIDs = append([]string{}, plan.Spares...)
	m.UnusedDriveIDs = append([]string{}, plan.Unused...)
	m.Diagram = types.StringValue(plan.Diagram)
	var raw int64
	for _, dr := range drives {
		raw += dr.CapacityBytes
	}
	m.RawCapacity = types.Int64Value(raw)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (d *arrayLayoutDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// arrayDrives reads the drives of the array; drawers are numbered in order
// across enclosures (an ME4084 and its ME484 give drawers 0 to 3).
func (d *arrayLayoutDataSource) arrayDrives(ctx context.Context, m *arrayLayoutModel, diags *diag.Diagnostics) []layout.Drive {
	if d.data.speaksSantricity(m.Endpoint.ValueString()) {
		return d.seamDrives(ctx, m, diags)
	}
	ep, sid := arrayOf(ctx, d.data, m.Endpoint, m.StorageID, diags)
	if ep == nil {
		return nil
	}
	drives, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		redfishError(diags, path.Root("endpoint"), "Cannot List The Drives", err)
		return nil
	}
	type key struct{ encl, drawer int }
	index := map[key]int{}
	out := make([]layout.Drive, 0, len(drives))
	for i, dr := range drives {
		for _, w := range dr.Warnings {
			diags.AddWarning("Drive Partly Read", fmt.Sprintf("Drive %s (%s): %s.", dr.ID, dr.URI, w))
		}
		k := key{dr.Enclosure, dr.Drawer}
		if _, ok := index[k]; !ok {
			index[k] = len(index)
		}
		out = append(out, layout.Drive{ID: dr.ID, MediaType: dr.MediaType, CapacityBytes: dr.CapacityBytes, Drawer: index[k], Slot: i})
	}
	return out
}

// driveList turns whichever drive source is set into planner drives.
func (m *arrayLayoutModel) driveList() []layout.Drive {
	if len(m.Drives) > 0 {
		out := make([]layout.Drive, len(m.Drives))
		for i, d := range m.Drives {
			out[i] = layout.Drive{ID: d.ID.ValueString(), MediaType: d.MediaType.ValueString(),
				CapacityBytes: d.CapacityBytes.ValueInt64(), Drawer: int(d.Drawer.ValueInt64()), Slot: i}
			if !d.Slot.IsNull() {
				out[i].Slot = int(d.Slot.ValueInt64())
			}
		}
		return out
	}
	count, drawer, media := int(m.DriveCount.ValueInt64()), int(m.DrawerSize.ValueInt64()), ""
	if mod, ok := layout.LookupModel(m.Model.ValueString()); ok {
		count, drawer, media = mod.Drives, mod.DrawerSize, mod.MediaType
	}
	if !m.DriveMediaType.IsNull() {
		media = m.DriveMediaType.ValueString()
	}
	return layout.GenerateDrives(count, drawer, media, m.DriveCapacityBytes.ValueInt64())
}

func (p *layoutPolicyModel) policy() layout.Policy {
	return layout.Policy{
		Level:            layout.RAIDLevel(p.RAIDLevel.ValueString()),
		DrivesPerGroup:   int(p.DrivesPerGroup.ValueInt64()),
		GroupCount:       int(p.GroupCount.ValueInt64()),
		MinSpares:        int(p.MinSpares.ValueInt64()),
		LeftoverAsSpares: p.LeftoverAsSpares.IsNull() || p.LeftoverAsSpares.ValueBool(),
		MediaType:        p.MediaType.ValueString(),
		NamePrefix:       p.NamePrefix.ValueString(),
	}
}

// seamDrives reads an array's drives through internal/arrays (E-Series
// endpoints): trays play the part of drawers.
func (d *arrayLayoutDataSource) seamDrives(ctx context.Context, m *arrayLayoutModel, diags *diag.Diagnostics) []layout.Drive {
	a, _ := d.data.arrayFor(ctx, m.Endpoint.ValueString(), m.StorageID, diags)
	if a == nil {
		return nil
	}
	drives, err := a.Drives(ctx)
	if err != nil {
		redfishError(diags, path.Root("endpoint"), "Cannot List The Drives", err)
		return nil
	}
	index := map[int]int{}
	out := make([]layout.Drive, 0, len(drives))
	for i, dr := range drives {
		if _, ok := index[dr.Enclosure]; !ok {
			index[dr.Enclosure] = len(index)
		}
		out = append(out, layout.Drive{ID: dr.ID, MediaType: dr.MediaType, CapacityBytes: dr.CapacityBytes, Drawer: index[dr.Enclosure], Slot: i})
	}
	return out
}

func blockProfileStrings() []string {
	out := make([]string, len(layout.BlockProfiles))
	for i, p := range layout.BlockProfiles {
		out[i] = string(p)
	}
	return out
}

func blockProfiles() string { return "`" + strings.Join(blockProfileStrings(), "`, `") + "`" }

// driveSource is the attribute that gave the drives.
func (m *arrayLayoutModel) driveSource() path.Path {
	switch {
	case !m.Model.IsNull():
		return path.Root("model")
	case !m.DriveCount.IsNull():
		return path.Root("drive_count")
	case !m.Endpoint.IsNull():
		return path.Root("endpoint")
	}
	return path.Root("drives")
}
