package provider

import (
	"context"
	"fmt"
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
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
)

var (
	_ resource.ResourceWithConfigure      = (*gpfsFilesystemResource)(nil)
	_ resource.ResourceWithImportState    = (*gpfsFilesystemResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*gpfsFilesystemResource)(nil)
	_ resource.ResourceWithValidateConfig = (*gpfsFilesystemResource)(nil)
)

// NewGpfsFilesystemResource is the hpcstorage_gpfs_filesystem resource.
func NewGpfsFilesystemResource() resource.Resource {
	return &gpfsFilesystemResource{clusterResource{name: "_gpfs_filesystem"}}
}

type gpfsFilesystemResource struct{ clusterResource }

type gpfsFilesystemModel struct {
	ID                  types.String `tfsdk:"id"`
	Host                types.String `tfsdk:"host"`
	SSH                 types.Object `tfsdk:"ssh"`
	Device              types.String `tfsdk:"device"`
	BlockSize           types.String `tfsdk:"block_size"`
	MetadataBlockSize   types.String `tfsdk:"metadata_block_size"`
	Allocation          types.String `tfsdk:"allocation"`
	MetadataReplicas    types.Int64  `tfsdk:"metadata_replicas"`
	MaxMetadataReplicas types.Int64  `tfsdk:"max_metadata_replicas"`
	DataReplicas        types.Int64  `tfsdk:"data_replicas"`
	MaxDataReplicas     types.Int64  `tfsdk:"max_data_replicas"`
	NumNodes            types.Int64  `tfsdk:"num_nodes"`
	MountPoint          types.String `tfsdk:"mount_point"`
	AutoMount           types.Bool   `tfsdk:"automount"`
	Disks               types.List   `tfsdk:"disks"`
	Pools               types.List   `tfsdk:"pools"`
	PlacementPolicy     types.String `tfsdk:"placement_policy"`
	MaxBlockSize        types.String `tfsdk:"max_block_size"`
	Rebalance           types.Bool   `tfsdk:"rebalance_on_add"`
	AllowDiskRemoval    types.Bool   `tfsdk:"allow_disk_removal"`
	DeleteOnDestroy     types.Bool   `tfsdk:"delete_on_destroy"`
	MmcrfsCommand       types.List   `tfsdk:"mmcrfs_command"`
	AddedDisks          types.List   `tfsdk:"added_disks"`
	SubblocksPerBlock   types.Int64  `tfsdk:"subblocks_per_block"`
	SubblockBytes       types.Int64  `tfsdk:"subblock_bytes"`
	Drift               types.Map    `tfsdk:"drift"`
	Version             types.String `tfsdk:"version"`
	AutoInodeLimit      types.Bool   `tfsdk:"auto_inode_limit"`
}

type gpfsDiskModel struct {
	NSD          types.String `tfsdk:"nsd"`
	Usage        types.String `tfsdk:"usage"`
	FailureGroup types.Int64  `tfsdk:"failure_group"`
	Pool         types.String `tfsdk:"pool"`
}

type gpfsPoolModel struct {
	Name      types.String `tfsdk:"name"`
	BlockSize types.String `tfsdk:"block_size"`
	LayoutMap types.String `tfsdk:"layout_map"`
}

func (r *gpfsFilesystemResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	fixed := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Spectrum Scale file system on existing NSDs. Created once with `mmcrfs DEV -F <stanzas> -B " +
			"<block_size> -j <allocation> -m -M -r -R -n -T <mount_point> -A`, given its placement policy (`mmchpolicy`, " +
			"required whenever data goes to a pool other than `system`) and mounted on every node (`mmmount -a`). Each " +
			"refresh reads it back (`mmlsfs -Y`, `mmlsdisk -Y`, `mmlsmount -Y`, `mmlspolicy -L`); what differs shows in " +
			"`drift`.\n\n**Capacity expansion in place**: NSDs added to `disks` are added with ONE `mmadddisk` holding exactly " +
			"the NSDs the file system lacks (the plan lists them in `added_disks`), then `mmrestripefs -b` only if " +
			"`rebalance_on_add`. Nothing else is replaced and the file system stays mounted. Removing an NSD from `disks` " +
			"fails the plan unless `allow_disk_removal = true`, which runs `mmdeldisk` (GPFS migrates the data off it " +
			"first; the plan says which). The mmcrfs settings cannot change on an existing file system: such a change fails " +
			"the plan.\n\nThe plan also checks: block sizes not above the cluster's `maxblocksize` (GPFS would refuse with " +
			"6027-1084), `m <= M <= 3`, `r <= R <= 3`, default replicas not above the failure groups of the disks, usage words, " +
			"pools declared, and a placement policy whenever data leaves `system`.\n\nDestroy never deletes the file system " +
			"(its data) unless `delete_on_destroy = true` (`mmumount -a` then `mmdelfs`).",
		Attributes: map[string]schema.Attribute{
			"host": nodeHostAttribute("the mm commands (the cluster's admin node)"),
			"ssh":  sshResourceAttribute(),
			"device": schema.StringAttribute{Required: true, MarkdownDescription: "Device name, e.g. `fs1` (`/dev/fs1`). Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"block_size": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("8M"),
				MarkdownDescription: "Data block size (`-B`): `8M` for R5."},
			"metadata_block_size": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The system pool's own block size (`--metadata-block-size`), allowed when every NSD of " +
					"the system pool is `metadataOnly`. GPFS 5 gives every pool the same number of subblocks per block, the " +
					"smaller of the two sizes' counts: R5's `8M` data blocks with `2M` metadata blocks have 256 subblocks of " +
					"32 KiB (without it, 512 of 16 KiB). Unset: one block size everywhere. Fixed at creation."},
			"version": gpfsVersionAttribute("The Storage Scale version the cluster runs (the cluster's `version`): " +
				"`mmcrfs` gets only the options that version lists. Raising it on an existing file system runs " +
				"`mmchfs DEV -V full` once the format is below it (after the cluster's `mmchconfig release=LATEST`)."),
			"auto_inode_limit": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "`mmcrfs --auto-inode-limit` (5.1.6 and later: GPFS raises the inode limit as files are " +
					"created); refused at plan for `5.0.4`. Fixed at creation."},
			"allocation": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("scatter"),
				MarkdownDescription: "Block allocation map (`-j`): " + backtickList(gpfs.LayoutMaps) + ". `scatter` keeps " +
					"performance flat as the file system fills.", Validators: []validator.String{stringvalidator.OneOf(gpfs.LayoutMaps...)}},
			"metadata_replicas":     replicaAttribute("Default metadata replicas (`-m`).", 1),
			"max_metadata_replicas": replicaAttribute("Maximum metadata replicas (`-M`).", 2),
			"data_replicas":         replicaAttribute("Default data replicas (`-r`).", 1),
			"max_data_replicas":     replicaAttribute("Maximum data replicas (`-R`).", 2),
			"num_nodes": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(32),
				MarkdownDescription: "Estimated number of nodes that will mount it (`-n`)."},
			"mount_point": schema.StringAttribute{Required: true, MarkdownDescription: "Default mount point (`-T`), e.g. `/gpfs/fs1`."},
			"automount": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Mount when the daemon starts (`-A yes`)."},
			"disks": schema.ListNestedAttribute{Required: true, Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				MarkdownDescription: "The NSDs of the file system (from `hpcstorage_gpfs_nsds`). Adding entries expands the " +
					"file system in place.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"nsd":           schema.StringAttribute{Required: true, MarkdownDescription: "NSD name."},
					"usage":         schema.StringAttribute{Required: true, MarkdownDescription: "One of " + backtickList(gpfs.Usages) + "."},
					"failure_group": schema.Int64Attribute{Required: true, MarkdownDescription: "Failure group."},
					"pool":          schema.StringAttribute{Required: true, MarkdownDescription: "Storage pool (`system` holds metadata)."},
				}}},
			"pools": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "Pools other than `system` (`%pool` stanzas): R5 puts its data LUNs in `data`, 8M, scatter.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":       schema.StringAttribute{Required: true, MarkdownDescription: "Pool name."},
					"block_size": schema.StringAttribute{Required: true, MarkdownDescription: "Block size (`blockSize`)."},
					"layout_map": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("scatter"),
						MarkdownDescription: "`layoutMap`: " + backtickList(gpfs.LayoutMaps) + "."},
				}}},
			"placement_policy": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Placement policy installed with `mmchpolicy`, e.g. `RULE 'default' SET POOL 'data'`. " +
					"Required when data goes to a pool other than `system`."},
			"max_block_size": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The cluster's `maxblocksize` (`hpcstorage_gpfs_cluster.max_block_size`): a larger block " +
					"size fails the plan. Referencing the cluster also orders the file system after the change."},
			"rebalance_on_add": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Run `mmrestripefs -b` after adding NSDs (moves existing data onto them; long and I/O " +
					"heavy, so off by default: new writes spread over all NSDs anyway)."},
			"allow_disk_removal": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Allow NSDs removed from `disks` to be taken out with `mmdeldisk` (their data migrates to the others)."},
			"delete_on_destroy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Delete the file system and all its data on destroy. Off by default: destroy keeps it."},
			"mmcrfs_command": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The mmcrfs argv the file system was created with."},
			"added_disks": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "NSDs of the latest expansion: in a plan, exactly those the apply passes to the one `mmadddisk`."},
			"subblocks_per_block": schema.Int64Attribute{Computed: true, PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
				MarkdownDescription: "Subblocks per full block, as `mmlsfs --subblocks-per-full-block` reports it."},
			"subblock_bytes": schema.Int64Attribute{Computed: true, PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
				MarkdownDescription: "Subblock (minimum fragment) size of the data pools in bytes, as `mmlsfs -f` reports it."},
			"id":    schema.StringAttribute{Computed: true, MarkdownDescription: "The device name.", PlanModifiers: fixed},
			"drift": nodeDriftAttribute(),
		},
	}
}

// decode: the file system has no raw attributes.
func (m *gpfsFilesystemModel) decode(context.Context, *diag.Diagnostics) {}

func (r *gpfsFilesystemResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg gpfsFilesystemModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if f, ok := cfg.fs(ctx, &resp.Diagnostics); ok {
		var quiet diag.Diagnostics
		gpfsProblems(&quiet, f.Validate())
		for _, d := range quiet.Errors() {
			resp.Diagnostics.Append(d)
		}
	}
}

// ModifyPlan checks the rules, refuses changes mmcrfs settings cannot
// take, lists the NSDs the apply adds, and refuses or announces removals.
func (r *gpfsFilesystemResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		if !req.State.Raw.IsNull() {
			var state gpfsFilesystemModel
			resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
			if state.DeleteOnDestroy.ValueBool() {
				resp.Diagnostics.AddWarning("File System Deleted", fmt.Sprintf("delete_on_destroy is set: destroy unmounts and "+
					"DELETES file system %s and all its data (mmdelfs).", state.Device.ValueString()))
			} else {
				resp.Diagnostics.AddWarning("File System Kept", fmt.Sprintf("Destroy keeps file system %s and its data; set "+
					"delete_on_destroy = true (and apply) first to delete it.", state.Device.ValueString()))
			}
		}
	}
	clusterPlan(ctx, req, resp, r.adjust)
}

func (r *gpfsFilesystemResource) adjust(ctx context.Context, plan, state *gpfsFilesystemModel, diags *diag.Diagnostics) bool {
	plan.Drift = emptyDrift()
	plan.ID = plan.Device
	f, ok := plan.fs(ctx, diags)
	if !ok {
		return true
	}
	gpfsProblems(diags, f.Validate())
	if diags.HasError() {
		return false
	}
	if state == nil {
		if gpfsProblems(diags, f.CreateProblems()); diags.HasError() {
			return false
		}
		plan.MmcrfsCommand = stringList(f.MmcrfsArgv(plan.dir() + "/mmcrfs.stanza"))
		plan.AddedDisks = stringList(nil)
		return true
	}
	before, ok := state.fs(ctx, diags)
	if !ok {
		return false
	}
	for _, c := range []struct {
		attr      string
		was, will string
	}{
		{"block_size", before.BlockSize, f.BlockSize}, {"metadata_block_size", before.MetaBlockSize, f.MetaBlockSize},
		{"allocation", before.LayoutMap, f.LayoutMap},
		{"metadata_replicas", fmt.Sprint(before.MetaRepl), fmt.Sprint(f.MetaRepl)},
		{"max_metadata_replicas", fmt.Sprint(before.MaxMeta), fmt.Sprint(f.MaxMeta)},
		{"data_replicas", fmt.Sprint(before.DataRepl), fmt.Sprint(f.DataRepl)},
		{"max_data_replicas", fmt.Sprint(before.MaxData), fmt.Sprint(f.MaxData)},
		{"mount_point", before.MountPoint, f.MountPoint},
		{"auto_inode_limit", fmt.Sprint(before.AutoInodeLimit), fmt.Sprint(f.AutoInodeLimit)},
	} {
		if c.was != c.will {
			addError(diags, path.Root(c.attr), "Setting Fixed At Creation", fmt.Sprintf("%s was %s when file system "+
				"%s was created (mmcrfs); it stays so. Put it back, or create a new file system under another device name.",
				c.attr, c.was, f.Device), nil)
		}
	}
	if gpfs.VersionLess(f.Version, before.Version) {
		addError(diags, path.Root("version"), "Storage Scale Downgrade", fmt.Sprintf("version %s is below %s, which file "+
			"system %s was last planned with: Storage Scale does not go back once mmchfs -V full raised its format.",
			f.Version, before.Version, f.Device), nil)
	}
	if diags.HasError() {
		return false
	}
	plan.MmcrfsCommand = state.MmcrfsCommand
	var added []string
	for _, n := range diskNames(f) {
		if !slices.Contains(diskNames(before), n) {
			added = append(added, n)
		}
	}
	if len(added) > 0 {
		plan.AddedDisks = stringList(added)
		diags.AddAttributeWarning(path.Root("disks"), "File System Expanded In Place", fmt.Sprintf("The apply adds "+
			"%d NSD(s) to %s with one mmadddisk: %s. Existing NSDs and data are untouched; the file system stays mounted.%s",
			len(added), f.Device, strings.Join(added, ", "), map[bool]string{true: " mmrestripefs -b then rebalances existing data.",
				false: " Existing data is not rebalanced (rebalance_on_add is off)."}[plan.Rebalance.ValueBool()]))
	} else {
		plan.AddedDisks = state.AddedDisks
	}
	var removed []string
	for _, n := range diskNames(before) {
		if !slices.Contains(diskNames(f), n) {
			removed = append(removed, n)
		}
	}
	if len(removed) > 0 {
		if !plan.AllowDiskRemoval.ValueBool() {
			addError(diags, path.Root("disks"), "Disk Removal Not Allowed", fmt.Sprintf("NSDs %s are no longer in "+
				"disks. Taking a disk out of file system %s migrates its data to the other disks (mmdeldisk): set "+
				"allow_disk_removal = true to do so, or put them back.", strings.Join(removed, ", "), f.Device), nil)
			return false
		}
		diags.AddAttributeWarning(path.Root("disks"), "Disks Removed From The File System", fmt.Sprintf("The apply "+
			"runs mmdeldisk %s %q: GPFS migrates their data to the remaining disks first.", f.Device, strings.Join(removed, ";")))
	}
	return true
}

func (r *gpfsFilesystemResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *gpfsFilesystemModel, diags *diag.Diagnostics) bool {
		return r.converge(ctx, plan, nil, diags)
	})
}

func (r *gpfsFilesystemResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	clusterRead(ctx, req, resp, r.refresh)
}

// refresh reads the file system back into drift (a missing one is drift,
// not gone); an imported one (no disks yet) is filled from the cluster.
func (r *gpfsFilesystemResource) refresh(ctx context.Context, state *gpfsFilesystemModel, diags *diag.Diagnostics) (found, ok bool) {
	// Imported, or written before version existed: the paper's.
	if state.Version.IsNull() {
		state.Version = types.StringValue(gpfs.DefaultVersion)
	}
	if state.Disks.IsNull() {
		r.readImported(ctx, state, diags)
		return true, !diags.HasError()
	}
	f, ok := state.fs(ctx, diags)
	if !ok {
		return true, false
	}
	seen, ok := readFS(ctx, newGPFSAdmin(r.nodes, state.Host, state.SSH), f.Device, f.Policy != "", diags)
	if !ok {
		return true, false
	}
	state.Drift = driftMap(f.FSDrift(seen))
	if seen.Exists {
		state.setSubblocks(seen)
	}
	return true, true
}

func (r *gpfsFilesystemResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, prior *gpfsFilesystemModel, diags *diag.Diagnostics) bool {
		remove := removedDisks(ctx, prior, plan, diags)
		if len(remove) > 0 && !plan.AllowDiskRemoval.ValueBool() {
			addError(diags, path.Root("disks"), "Disk Removal Not Allowed", fmt.Sprintf("NSDs %s were removed from "+
				"disks; set allow_disk_removal = true to take them out of the file system with mmdeldisk.", strings.Join(remove, ", ")), nil)
			return false
		}
		plan.MmcrfsCommand = prior.MmcrfsCommand
		return !diags.HasError() && r.converge(ctx, plan, remove, diags)
	})
}

func (r *gpfsFilesystemResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, r.destroy)
}

// destroy unmounts and deletes the file system only with delete_on_destroy
// (what is left of it, read back first, so a re-run after a kill sends
// only what did not happen); the files this resource wrote go either way.
func (r *gpfsFilesystemResource) destroy(ctx context.Context, state *gpfsFilesystemModel, diags *diag.Diagnostics) {
	a := newGPFSAdmin(r.nodes, state.Host, state.SSH)
	if state.DeleteOnDestroy.ValueBool() {
		dev := state.Device.ValueString()
		seen, ok := readFS(ctx, a, dev, false, diags)
		if !ok {
			return
		}
		if steps := gpfs.DeleteFSSteps(dev, seen); len(steps) > 0 {
			if !a.apply(ctx, state.owner()+"-delete", stepItems(steps), diags) {
				return
			}
			a.remove(ctx, state.owner()+"-delete", diags)
			if seen, ok = readFS(ctx, a, dev, false, diags); !ok {
				return
			}
			if seen.Exists {
				diags.AddError("File System Not Deleted", fmt.Sprintf("Host %s: mmlsfs %s still lists the file system after mmdelfs.", a.host, dev))
				return
			}
		}
	}
	a.remove(ctx, state.owner(), diags)
}

// ImportState takes HOST/DEVICE: the admin node as SSH reaches it, then
// the file system's device name; the Read that follows fills the rest.
func (r *gpfsFilesystemResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	host, dev, ok := cutImportID(req.ID)
	if !ok {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Give HOST/DEVICE: the admin node as SSH reaches it, "+
			"then the file system's device name, e.g. 10.0.0.5:22/fs1; got %q.", req.ID))
		return
	}
	for attr, v := range map[string]string{"host": host, "device": dev, "id": dev} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), v)...)
	}
}

var (
	gpfsDiskType = types.ObjectType{AttrTypes: map[string]attr.Type{"nsd": types.StringType, "usage": types.StringType,
		"failure_group": types.Int64Type, "pool": types.StringType}}
	gpfsPoolType = types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType, "block_size": types.StringType,
		"layout_map": types.StringType}}
)

// readImported fills an imported file system from mmlsfs, mmlsdisk,
// mmlspolicy -L (gpfs.ImportFS) and the cluster's maxblocksize; the
// switches (rebalance_on_add, allow_disk_removal, delete_on_destroy) take
// their defaults.
func (r *gpfsFilesystemResource) readImported(ctx context.Context, m *gpfsFilesystemModel, diags *diag.Diagnostics) {
	a := newGPFSAdmin(r.nodes, m.Host, m.SSH)
	seen, ok := readFS(ctx, a, m.Device.ValueString(), true, diags)
	if !ok {
		return
	}
	if !seen.Exists {
		diags.AddError("File System Not Found", fmt.Sprintf("Host %s: mmlsfs does not know %s.", a.host, m.Device.ValueString()))
		return
	}
	f, err := gpfs.ImportFS(m.Device.ValueString(), seen)
	if err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: %v", a.host, err))
		return
	}
	out, failed, ok := a.query(ctx, diags, "mmlsconfig", "maxblocksize", "-Y")
	if !ok {
		return
	}
	m.MaxBlockSize = types.StringNull()
	if conf, err := gpfs.ParseConfig(out); failed == "" && err == nil {
		if v, ok := conf.Value("maxblocksize", gpfs.AllNodes); ok {
			m.MaxBlockSize = types.StringValue(v)
		}
	}
	m.BlockSize, m.Allocation, m.MountPoint = types.StringValue(f.BlockSize), types.StringValue(f.LayoutMap), types.StringValue(f.MountPoint)
	m.MetadataBlockSize = types.StringNull()
	if f.MetaBlockSize != "" {
		m.MetadataBlockSize = types.StringValue(f.MetaBlockSize)
	}
	m.MetadataReplicas, m.MaxMetadataReplicas = types.Int64Value(int64(f.MetaRepl)), types.Int64Value(int64(f.MaxMeta))
	m.DataReplicas, m.MaxDataReplicas = types.Int64Value(int64(f.DataRepl)), types.Int64Value(int64(f.MaxData))
	m.NumNodes, m.AutoMount = types.Int64Value(int64(f.NumNodes)), types.BoolValue(f.AutoMount)
	var disks []gpfsDiskModel
	for _, d := range f.Disks {
		disks = append(disks, gpfsDiskModel{NSD: types.StringValue(d.Name), Usage: types.StringValue(d.Usage),
			FailureGroup: types.Int64Value(int64(d.FailureGroup)), Pool: types.StringValue(d.Pool)})
	}
	var pools []gpfsPoolModel
	for _, p := range f.Pools {
		pools = append(pools, gpfsPoolModel{Name: types.StringValue(p.Name), BlockSize: types.StringValue(p.BlockSize), LayoutMap: types.StringValue(p.LayoutMap)})
	}
	var d diag.Diagnostics
	m.Disks, d = types.ListValueFrom(ctx, gpfsDiskType, disks)
	diags.Append(d...)
	m.Pools = types.ListNull(gpfsPoolType)
	if len(pools) > 0 {
		m.Pools, d = types.ListValueFrom(ctx, gpfsPoolType, pools)
		diags.Append(d...)
	}
	m.PlacementPolicy = types.StringNull()
	if f.Policy != "" {
		m.PlacementPolicy = types.StringValue(f.Policy)
	}
	m.Rebalance, m.AllowDiskRemoval, m.DeleteOnDestroy = types.BoolValue(false), types.BoolValue(false), types.BoolValue(false)
	m.MmcrfsCommand = stringList(f.MmcrfsArgv(m.dir() + "/mmcrfs.stanza"))
	m.AddedDisks = stringList(nil)
	m.setSubblocks(seen)
	m.Drift = driftMap(f.FSDrift(seen))
}

func replicaAttribute(desc string, def int64) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(def), MarkdownDescription: desc + " 1 to 3."}
}

// fs converts the model; known false while an input is unknown (but for
// max_block_size: MaxBlockSize 0, not checked).
func (m *gpfsFilesystemModel) fs(ctx context.Context, diags *diag.Diagnostics) (gpfs.FileSystem, bool) {
	for _, v := range []interface{ IsUnknown() bool }{m.Device, m.BlockSize, m.MetadataBlockSize, m.Allocation, m.MetadataReplicas, m.MaxMetadataReplicas,
		m.DataReplicas, m.MaxDataReplicas, m.NumNodes, m.MountPoint, m.AutoMount, m.Disks, m.Pools, m.PlacementPolicy} {
		if v.IsUnknown() {
			return gpfs.FileSystem{}, false
		}
	}
	var disks []gpfsDiskModel
	var pools []gpfsPoolModel
	diags.Append(m.Disks.ElementsAs(ctx, &disks, false)...)
	if !m.Pools.IsNull() {
		diags.Append(m.Pools.ElementsAs(ctx, &pools, false)...)
	}
	if diags.HasError() {
		return gpfs.FileSystem{}, false
	}
	f := gpfs.FileSystem{Device: m.Device.ValueString(), BlockSize: stringOr(m.BlockSize, "8M"),
		MetaBlockSize: m.MetadataBlockSize.ValueString(), LayoutMap: stringOr(m.Allocation, "scatter"),
		MetaRepl: intOr(m.MetadataReplicas, 1), MaxMeta: intOr(m.MaxMetadataReplicas, 2), DataRepl: intOr(m.DataReplicas, 1),
		MaxData: intOr(m.MaxDataReplicas, 2), NumNodes: intOr(m.NumNodes, 32), MountPoint: m.MountPoint.ValueString(),
		AutoMount: m.AutoMount.IsNull() || m.AutoMount.ValueBool(), Policy: m.PlacementPolicy.ValueString(),
		Version: m.Version.ValueString(), AutoInodeLimit: m.AutoInodeLimit.ValueBool()}
	for _, d := range disks {
		if d.NSD.IsUnknown() || d.Usage.IsUnknown() || d.FailureGroup.IsUnknown() || d.Pool.IsUnknown() {
			return gpfs.FileSystem{}, false
		}
		f.Disks = append(f.Disks, gpfs.NSD{Name: d.NSD.ValueString(), Usage: d.Usage.ValueString(), FailureGroup: int(d.FailureGroup.ValueInt64()), Pool: d.Pool.ValueString()})
	}
	for _, p := range pools {
		if p.Name.IsUnknown() || p.BlockSize.IsUnknown() || p.LayoutMap.IsUnknown() {
			return gpfs.FileSystem{}, false
		}
		f.Pools = append(f.Pools, gpfs.Pool{Name: p.Name.ValueString(), BlockSize: p.BlockSize.ValueString(), LayoutMap: stringOr(p.LayoutMap, "scatter")})
	}
	// Unknown (the cluster changes it in this apply): the block size rules
	// that need it run before the apply's first command.
	if !m.MaxBlockSize.IsNull() && !m.MaxBlockSize.IsUnknown() {
		n, err := gpfs.ParseSize(m.MaxBlockSize.ValueString())
		if err != nil {
			addError(diags, path.Root("max_block_size"), "Invalid "+gpfsKind+" Setting", "Give a size such as 8M.", err)
			return f, false
		}
		f.MaxBlockSize = n
	}
	return f, true
}

func (m *gpfsFilesystemModel) dir() string   { return gpfsPath("fs-" + m.Device.ValueString()) }
func (m *gpfsFilesystemModel) owner() string { return "gpfs-fs-" + m.Device.ValueString() }

// readFS runs the -Y queries for the file system.
func readFS(ctx context.Context, a gpfsAdmin, device string, withPolicy bool, diags *diag.Diagnostics) (gpfs.FSSeen, bool) {
	var seen gpfs.FSSeen
	out, failed, ok := a.query(ctx, diags, "mmlsfs", device, "-Y")
	if !ok {
		return seen, false
	}
	if failed != "" {
		return seen, true // not created yet
	}
	var err error
	if seen.Attrs, err = gpfs.ParseFSAttrs(out); err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmlsfs -Y: %v", a.host, err))
		return seen, false
	}
	seen.Exists = true
	queries := []struct {
		argv  []string
		parse func(string) error
	}{
		{[]string{"mmlsdisk", device, "-Y"}, func(o string) (e error) { seen.Disks, e = gpfs.ParseDisks(o); return }},
		{[]string{"mmlsmount", device, "-Y"}, func(o string) (e error) { seen.Mounted, e = gpfs.ParseMounted(o); return }},
	}
	if withPolicy {
		queries = append(queries, struct {
			argv  []string
			parse func(string) error
		}{[]string{"mmlspolicy", device, "-L"}, func(o string) error { seen.Policy = o; return nil }})
	}
	for _, q := range queries {
		out, failed, ok := a.query(ctx, diags, q.argv...)
		if !ok {
			return seen, false
		}
		if failed != "" {
			if q.argv[0] == "mmlspolicy" {
				continue // no policy installed yet: seen.Policy stays empty
			}
			diags.AddError(gpfsKind+" Query Failed", fmt.Sprintf("Host %s: %s", a.host, failed))
			return seen, false
		}
		if err := q.parse(out); err != nil {
			diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: %s: %v", a.host, strings.Join(q.argv, " "), err))
			return seen, false
		}
	}
	return seen, true
}

func diskNames(f gpfs.FileSystem) []string {
	out := make([]string, len(f.Disks))
	for i, d := range f.Disks {
		out[i] = d.Name
	}
	return out
}

func (r *gpfsFilesystemResource) converge(ctx context.Context, m *gpfsFilesystemModel, remove []string, diags *diag.Diagnostics) bool {
	f, ok := m.fs(ctx, diags)
	if !ok {
		return false
	}
	// Values unknown at plan (the cluster's maxblocksize, NSD names) are
	// known now: the rules run again before the first command.
	if gpfsProblems(diags, f.Validate()); diags.HasError() {
		return false
	}
	a := newGPFSAdmin(r.nodes, m.Host, m.SSH)
	seen, ok := readFS(ctx, a, f.Device, f.Policy != "", diags)
	if !ok {
		return false
	}
	if !seen.Exists {
		if gpfsProblems(diags, f.CreateProblems()); diags.HasError() {
			return false
		}
	}
	added := []string{}
	if seen.Exists {
		for _, d := range f.NewDisks(seen) {
			added = append(added, d.Name)
		}
	}
	steps := f.FSSteps(seen, remove, m.Rebalance.ValueBool(), m.dir())
	// The creation stanzas and the policy stay on the node every run.
	items := []protocol.Item{gpfsFile(m.dir()+"/mmcrfs.stanza", gpfs.StanzaFile(f.Disks, f.Pools))}
	if f.Policy != "" {
		items = append(items, gpfsFile(m.dir()+"/policy", f.Policy))
	}
	items = dedupeFiles(append(items, stepItems(steps)...))
	if !a.apply(ctx, m.owner(), items, diags) {
		return false
	}
	if seen, ok = readFS(ctx, a, f.Device, f.Policy != "", diags); !ok {
		return false
	}
	if d := f.FSDrift(seen); len(d) > 0 {
		diags.AddError("Change Not Verified", fmt.Sprintf("Host %s: after apply the file system still differs: %s", a.host, driftText(d)))
		return false
	}
	if m.MmcrfsCommand.IsUnknown() || m.MmcrfsCommand.IsNull() {
		m.MmcrfsCommand = stringList(f.MmcrfsArgv(m.dir() + "/mmcrfs.stanza"))
	}
	if len(added) > 0 {
		m.AddedDisks = stringList(added)
	} else if m.AddedDisks.IsUnknown() || m.AddedDisks.IsNull() {
		m.AddedDisks = stringList(nil)
	}
	m.setSubblocks(seen)
	m.ID = m.Device
	m.Drift = emptyDrift()
	return true
}

// setSubblocks reads the subblock figures from mmlsfs -Y (the data pools'
// fragment size is the "other pools" row when the system pool has its own
// block size).
func (m *gpfsFilesystemModel) setSubblocks(seen gpfs.FSSeen) {
	frag, ok := seen.Attrs["minFragmentSize/other pools"]
	if !ok {
		frag = seen.Attrs["minFragmentSize"]
	}
	m.SubblocksPerBlock = int64Attr(seen.Attrs["subblocksPerFullBlock"])
	m.SubblockBytes = int64Attr(frag)
}

// int64Attr is an mmlsfs number, null when absent or not a number.
func int64Attr(s string) types.Int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return types.Int64Null()
	}
	return types.Int64Value(n)
}

func removedDisks(ctx context.Context, prior, plan *gpfsFilesystemModel, diags *diag.Diagnostics) []string {
	before, ok1 := prior.fs(ctx, diags)
	after, ok2 := plan.fs(ctx, diags)
	if !ok1 || !ok2 {
		return nil
	}
	var out []string
	for _, n := range diskNames(before) {
		if !slices.Contains(diskNames(after), n) {
			out = append(out, n)
		}
	}
	return out
}
