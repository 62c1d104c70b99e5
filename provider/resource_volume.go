package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

var (
	_ resource.Resource                   = (*volumeResource)(nil)
	_ resource.ResourceWithConfigure      = (*volumeResource)(nil)
	_ resource.ResourceWithImportState    = (*volumeResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*volumeResource)(nil)
	_ resource.ResourceWithValidateConfig = (*volumeResource)(nil)
)

// segmentSizes are the strip (segment) sizes of PowerVault ME linear groups.
var segmentSizes = []int64{64 << 10, 128 << 10, 256 << 10, 512 << 10}

// allocationUnit is the granularity arrays round volume sizes down to
// (4 MiB on PowerVault ME).
const allocationUnit = 4 << 20

// NewVolumeResource manages a volume and its host mappings.
func NewVolumeResource() resource.Resource { return &volumeResource{} }

type volumeResource struct{ data *providerData }

type volumeModel struct {
	ID                 types.String `tfsdk:"id"`
	Endpoint           types.String `tfsdk:"endpoint"`
	StorageID          types.String `tfsdk:"storage_id"`
	DiskGroup          types.String `tfsdk:"disk_group"`
	Name               types.String `tfsdk:"name"`
	CapacityBytes      types.Int64  `tfsdk:"capacity_bytes"`
	SegmentSizeBytes   types.Int64  `tfsdk:"segment_size_bytes"`
	HostMappings       types.List   `tfsdk:"host_mappings"` // of hostMapType; unknown until apply when built from computed values
	WWN                types.String `tfsdk:"wwn"`
	OptimumIOSizeBytes types.Int64  `tfsdk:"optimum_io_size_bytes"`
	RAIDLevel          types.String `tfsdk:"raid_level"`
}

type hostMapModel struct {
	Host types.String `tfsdk:"host"`
	LUN  types.Int64  `tfsdk:"lun"`
}

// hostMapType is the element type of host_mappings.
var hostMapType = types.ObjectType{AttrTypes: map[string]attr.Type{"host": types.StringType, "lun": types.Int64Type}}

func (r *volumeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

func (r *volumeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	seg := make([]string, len(segmentSizes))
	for i, s := range segmentSizes {
		seg[i] = fmt.Sprintf("`%d` (%d KiB)", s, s>>10)
	}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A volume carved from a disk group, mapped to hosts with a LUN. Its `wwn` is how a node " +
			"finds the block device (`/dev/disk/by-id/wwn-0x<wwn>`). Volumes grow in place; a smaller " +
			"`capacity_bytes` is refused at plan time. Destroy unmaps the volume, then deletes it and its data. A volume of " +
			"the same name already on the array (left by an interrupted apply) is adopted when it is in the configured disk " +
			"group with the configured size and segment size (where set), and its mappings converge; any other fails with " +
			"the `terraform import` command that takes it over.\n\n" +
			"On an E-Series endpoint (`api = \"santricity\"`) a volume is mapped once, to a host or to a host group, under " +
			"one LUN: every entry of `host_mappings` must carry the same `lun` (plan error otherwise), and several hosts " +
			"share a host group holding exactly them (an existing one, or one the provider creates as `hpcs_<hosts>`, " +
			"kept afterwards). The hosts are SANtricity host objects with their host type and initiator ports, defined on " +
			"the array beforehand. New names take at most 30 letters, digits, `_`, `#`, `-`. E-Series volumes only grow: " +
			"a smaller `capacity_bytes`, also after a volume was grown by hand, fails the plan. `optimum_io_size_bytes` of " +
			"a DDP volume counts 8 data pieces per stripe. Import ids are `<endpoint>/1/<volume ref or name>`.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the array in the provider's `endpoints` map."},
			"storage_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: storageIDDoc,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}},
			"disk_group": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the disk group holding the volume (`hpcstorage_disk_group.<x>.name`). `\"\"` for " +
					"a volume imported from a controller without disk groups (a RAID controller in a server)."},
			"name": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace(), newNameCheck{}},
				MarkdownDescription: "Volume name. A volume the provider creates is named with letters, digits, `_`, `.`, `-` " +
					"(at most 32); a volume read or imported keeps the name its controller gave it (`Virtual Disk 1`).",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"capacity_bytes": schema.Int64Attribute{Optional: true, Computed: true, PlanModifiers: keepInt,
				MarkdownDescription: fmt.Sprintf("Size. Unset: all the space left in the disk group at create. Rounded down "+
					"to the array's allocation unit (%d MiB). Can grow in place; shrinking is refused.", allocationUnit>>20),
				Validators: []validator.Int64{int64validator.AtLeast(allocationUnit)}},
			"segment_size_bytes": schema.Int64Attribute{Optional: true, Computed: true,
				MarkdownDescription: "Segment (strip) size per drive: " + strings.Join(seg, ", ") + ". Default: the array's (512 KiB).",
				Validators:          []validator.Int64{int64validator.OneOf(segmentSizes...)},
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown(), int64planmodifier.RequiresReplace()}},
			"host_mappings": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "Hosts (as the array names its initiator groups: the servers it is cabled to) that see the volume, each with a LUN.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"host": schema.StringAttribute{Required: true, MarkdownDescription: "Host name."},
					"lun": schema.Int64Attribute{Required: true, MarkdownDescription: "Logical unit number, 0-1023.",
						Validators: []validator.Int64{int64validator.Between(0, 1023)}},
				}}},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<endpoint>/<storage_id>/<volume id>`, also the import id.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"wwn": schema.StringAttribute{Computed: true, MarkdownDescription: "World wide name (NAA, lower-case hex).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"optimum_io_size_bytes": schema.Int64Attribute{Computed: true, PlanModifiers: keepInt,
				MarkdownDescription: "Full-stripe size (segment size times data drives): align file systems to it."},
			"raid_level": schema.StringAttribute{Computed: true, MarkdownDescription: "RAID level, from the disk group.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		},
	}
}

func (r *volumeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	mappings, ok := appliedMappings(ctx, plan.HostMappings, &resp.Diagnostics)
	if !ok {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		r.createOnArray(ctx, plan, mappings, resp)
		return
	}
	ep, sid := arrayOf(ctx, r.data, plan.Endpoint, plan.StorageID, &resp.Diagnostics)
	if ep == nil {
		return
	}
	plan.StorageID = types.StringValue(sid)
	pool, err := ep.ReadPool(ctx, sid, plan.DiskGroup.ValueString())
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("disk_group"), "Cannot Find The Disk Group", err)
		return
	}
	want := int64(0)
	if !plan.CapacityBytes.IsUnknown() && !plan.CapacityBytes.IsNull() {
		want = plan.CapacityBytes.ValueInt64()
	}
	// An earlier run may have created the volume (and some of its mappings)
	// and stopped before saving it: adopt it, then converge its mappings.
	var current []redfish.Mapping
	v, _, err := ep.ReadVolume(ctx, sid, plan.Name.ValueString())
	switch {
	case err == nil:
		if !checkExistingVolume(plan, sid, pool, v, &resp.Diagnostics) {
			return
		}
		adoptedWarning(&resp.Diagnostics, "Existing Volume Adopted", "Volume "+v.Name, plan.Endpoint.ValueString()+"/"+sid+"/"+v.ID)
		if current, err = ep.Mappings(ctx, sid, v.URI); err != nil {
			redfishError(&resp.Diagnostics, path.Root("host_mappings"), "Cannot Read The Host Mappings", err)
			return
		}
	case !redfish.IsGone(err):
		redfishError(&resp.Diagnostics, path.Root("name"), "Cannot Look For An Existing Volume", err)
		return
	default:
		v, err = ep.CreateVolume(ctx, sid, pool.ID, plan.Name.ValueString(), want, plan.SegmentSizeBytes.ValueInt64())
		if err != nil {
			redfishError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Not Created", err)
			return
		}
	}
	r.syncMappings(ctx, ep, sid, v, current, mappings, &resp.Diagnostics)
	r.readInto(ctx, ep, &plan, want, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state volumeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(state.Endpoint.ValueString()) {
		a, _ := r.data.arrayFor(ctx, state.Endpoint.ValueString(), state.StorageID, &resp.Diagnostics)
		if a == nil {
			return
		}
		if !r.readFromArray(ctx, a, &state, state.CapacityBytes.ValueInt64(), &resp.Diagnostics) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	ep := r.data.endpoint(state.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	if !r.readInto(ctx, ep, &state, state.CapacityBytes.ValueInt64(), &resp.Diagnostics) {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	mappings, ok := appliedMappings(ctx, plan.HostMappings, &resp.Diagnostics)
	if !ok {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		r.updateOnArray(ctx, plan, state, mappings, resp)
		return
	}
	ep := r.data.endpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	sid := state.StorageID.ValueString()
	v, err := ep.GetVolume(ctx, redfish.VolumesURI(sid)+"/"+volumeIDOf(state))
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot Read The Volume", err)
		return
	}
	want := plan.CapacityBytes.ValueInt64()
	if want/allocationUnit*allocationUnit > v.CapacityBytes {
		if err := ep.ResizeVolume(ctx, v, want); err != nil {
			redfishError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Not Grown", err)
			return
		}
	}
	current, err := ep.Mappings(ctx, sid, v.URI)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("host_mappings"), "Cannot Read The Host Mappings", err)
		return
	}
	r.syncMappings(ctx, ep, sid, v, current, mappings, &resp.Diagnostics)
	plan.StorageID = state.StorageID
	plan.ID = state.ID
	r.readInto(ctx, ep, &plan, want, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state volumeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(state.Endpoint.ValueString()) {
		// SANtricity drops a volume's mapping with it.
		if a, _ := r.data.arrayFor(ctx, state.Endpoint.ValueString(), state.StorageID, &resp.Diagnostics); a != nil {
			if err := a.DeleteVolume(ctx, volumeIDOf(state)); err != nil {
				redfishError(&resp.Diagnostics, path.Empty(), "Volume Not Deleted", err)
			}
		}
		return
	}
	ep := r.data.endpoint(state.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	sid := state.StorageID.ValueString()
	uri := redfish.VolumesURI(sid) + "/" + volumeIDOf(state)
	ms, err := ep.Mappings(ctx, sid, uri)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("host_mappings"), "Cannot Read The Host Mappings", err)
		return
	}
	for _, m := range ms {
		if err := ep.Unmap(ctx, m); err != nil {
			redfishError(&resp.Diagnostics, path.Root("host_mappings"), "Volume Not Unmapped", err)
			return
		}
	}
	if err := ep.DeleteURI(ctx, uri); err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Volume Not Deleted", err)
	}
}

func (r *volumeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ep, sid, vid, err := splitStorageImportID(req.ID, "Volumes")
	if err != nil {
		addError(&resp.Diagnostics, path.Empty(), "Invalid Import ID",
			"Use <endpoint>/<storage-id>/<volume-id>, e.g. me4084-1/controller_a/st01, or for storage under a system "+
				"<endpoint>/<volume @odata.id>, e.g. bmc1/redfish/v1/Systems/1/Storage/RAID.Integrated.1-1/Volumes/Disk.Virtual.0.", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("endpoint"), ep)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("storage_id"), sid)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), ep+"/"+sid+"/"+vid)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), vid)...)
}

// ValidateConfig refuses a host mapped twice or a LUN used twice.
func (r *volumeResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m volumeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Inside a module every input is unknown at validate time, and a list
	// built from computed values is unknown until apply: Terraform
	// validates again once it is known (at the plan it makes during apply).
	mappings, known := hostMappings(ctx, m.HostMappings, &resp.Diagnostics)
	if !known {
		return
	}
	hosts := map[string]int{}
	for i, hm := range mappings {
		if hm.Host.IsUnknown() {
			continue
		}
		if j, dup := hosts[hm.Host.ValueString()]; dup {
			addError(&resp.Diagnostics, path.Root("host_mappings").AtListIndex(i).AtName("host"), "Host Mapped Twice",
				fmt.Sprintf("Host %q is also in host_mappings[%d]; a volume has one LUN per host.", hm.Host.ValueString(), j), nil)
		}
		hosts[hm.Host.ValueString()] = i
	}
}

// ModifyPlan refuses shrinking, sizes the disk group cannot hold, hosts the
// array does not know and LUNs another volume uses on that host.
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Endpoint.IsUnknown() {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		r.planOnArray(ctx, req, plan, resp)
		return
	}
	ep := r.data.planEndpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	var state *volumeModel
	if !req.State.Raw.IsNull() {
		state = &volumeModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	sid := ""
	if !plan.StorageID.IsUnknown() {
		sid = plan.StorageID.ValueString()
	}
	if state != nil {
		markReplaced(ctx, resp.Private, volumeIDOf(*state), &resp.Diagnostics)
	} else {
		// A volume of the same name is adopted at apply if it is the one
		// configured; its space is then already taken, so no size check.
		replaced := replacedID(ctx, req.Private, &resp.Diagnostics)
		existing, ok := r.planExisting(ctx, ep, sid, plan, replaced, &resp.Diagnostics)
		if !ok {
			return
		}
		if existing != nil {
			self := plan
			self.ID = types.StringValue("/" + existing.ID)
			r.planMappings(ctx, ep, sid, &self, nil, resp)
			return
		}
	}
	r.planCapacity(ctx, ep, sid, &plan, state, resp)
	r.planMappings(ctx, ep, sid, &plan, state, resp)
}

// helpers

func (r *volumeResource) planCapacity(ctx context.Context, ep *redfish.Endpoint, sid string, plan, state *volumeModel, resp *resource.ModifyPlanResponse) {
	if plan.CapacityBytes.IsUnknown() || plan.CapacityBytes.IsNull() || plan.DiskGroup.IsUnknown() {
		return
	}
	want, have := plan.CapacityBytes.ValueInt64(), int64(0)
	if state != nil {
		have = state.CapacityBytes.ValueInt64()
		if want < have {
			addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volumes Cannot Shrink",
				fmt.Sprintf("The volume holds %d bytes; set capacity_bytes to at least that, or replace the volume (its data is lost).", have), nil)
			return
		}
		if want == have {
			return
		}
	}
	sid, err := ep.FindStorage(ctx, sid)
	if err != nil {
		return // reported at apply
	}
	pool, err := ep.ReadPool(ctx, sid, plan.DiskGroup.ValueString())
	if redfish.IsGone(err) {
		// Created in this same plan: its drives and level bound its size.
		g, ok := r.data.PlannedGroups.get(plan.Endpoint.ValueString(), sid, plan.DiskGroup.ValueString())
		if !ok {
			return
		}
		total := r.data.PlannedGroups.addVolume(plan.Endpoint.ValueString(), sid, plan.DiskGroup.ValueString(), plan.Name.ValueString(), want)
		switch {
		case want > g.usable:
			addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Larger Than The Disk Group",
				fmt.Sprintf("Disk group %s, created by this plan as %s, holds at most %d bytes; the volume asks for %d. "+
					"Lower capacity_bytes or leave it unset to take all the space of the group.", plan.DiskGroup.ValueString(), g.how, g.usable, want), nil)
		case total > g.usable:
			addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volumes Larger Than The Disk Group",
				fmt.Sprintf("Disk group %s, created by this plan as %s, holds at most %d bytes; with this volume (%d bytes) "+
					"its volumes planned so far take %d. Lower capacity_bytes.", plan.DiskGroup.ValueString(), g.how, g.usable, want, total), nil)
		}
		return
	}
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("disk_group"), "Cannot Read The Disk Group", err)
		return
	}
	free := pool.AllocatedBytes - pool.ConsumedBytes
	if want-have > free {
		addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Larger Than The Disk Group",
			fmt.Sprintf("Disk group %s has %d bytes free, the volume needs %d more; lower capacity_bytes or leave it unset to take all the space left.",
				pool.Name, free, want-have), nil)
	}
}

// planMappings checks the mappings it knows. Unknown ones (built from values
// known only after apply) stay unknown in the plan; Terraform plans again
// during apply with the final value, and they are checked then.
func (r *volumeResource) planMappings(ctx context.Context, ep *redfish.Endpoint, sid string, plan, state *volumeModel, resp *resource.ModifyPlanResponse) {
	mappings, known := hostMappings(ctx, plan.HostMappings, &resp.Diagnostics)
	if !known || len(mappings) == 0 || (state != nil && state.HostMappings.Equal(plan.HostMappings)) {
		return
	}
	sid, err := ep.FindStorage(ctx, sid)
	if err != nil {
		return // reported at apply
	}
	hosts, err := ep.Hosts(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("host_mappings"), "Cannot List The Array's Hosts", err)
		return
	}
	inUse, err := ep.LUNsInUse(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("host_mappings"), "Cannot Read The Host Mappings", err)
		return
	}
	self := redfish.VolumesURI(sid) + "/" + volumeIDOf(*plan)
	if state != nil {
		self = redfish.VolumesURI(sid) + "/" + volumeIDOf(*state)
	}
	for i, hm := range mappings {
		if hm.Host.IsUnknown() || hm.LUN.IsUnknown() {
			continue
		}
		host, lun := hm.Host.ValueString(), hm.LUN.ValueInt64()
		if len(hosts) > 0 && !slices.Contains(hosts, host) {
			addError(&resp.Diagnostics, path.Root("host_mappings").AtListIndex(i).AtName("host"), "Unknown Host",
				fmt.Sprintf("The array knows the hosts %s; %q is not one of them.", backtickList(hosts), host), nil)
			continue
		}
		if other, used := inUse[host][lun]; used && other != self {
			addError(&resp.Diagnostics, path.Root("host_mappings").AtListIndex(i).AtName("lun"), "LUN Already Used",
				fmt.Sprintf("LUN %d on host %s already exposes %s; pick a free LUN.", lun, host, other), nil)
			continue
		}
		// Two volumes of this plan on one LUN of one host.
		key := fmt.Sprintf("lun:%s:%d", host, lun)
		if other, ok := r.data.DriveClaims.claim(plan.Endpoint.ValueString(), sid, key, "volume "+plan.Name.ValueString()); !ok {
			addError(&resp.Diagnostics, path.Root("host_mappings").AtListIndex(i).AtName("lun"), "LUN Planned Twice",
				fmt.Sprintf("LUN %d on host %s is also planned for %s; pick another LUN.", lun, host, other), nil)
		}
	}
}

// newNameCheck holds names the provider gives at create (a new volume, or
// one that replaces it) to what arrays accept; a name read from the array
// is left as it is.
type newNameCheck struct{}

func (newNameCheck) Description(context.Context) string {
	return "a new name uses letters, digits, _ . - only, at most 32"
}

func (c newNameCheck) MarkdownDescription(ctx context.Context) string { return c.Description(ctx) }

func (newNameCheck) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	v := req.PlanValue
	if v.IsNull() || v.IsUnknown() || (!req.StateValue.IsNull() && req.StateValue.Equal(v)) {
		return
	}
	if n := v.ValueString(); len(n) > 32 || !validName.MatchString(n) {
		addError(&resp.Diagnostics, req.Path, "Invalid Name For A New Object",
			"A name the provider creates uses letters, digits, _ . - only, at most 32 characters (names with spaces "+
				"are kept only on objects read or imported from the array).", fmt.Errorf("got %q", n))
	}
}

// splitStorageImportID reads <endpoint>/<storage-id>/<object-id>, where the
// storage id may be a full @odata.id (/redfish/v1/Systems/1/Storage/X, given
// with one slash or two), optionally followed by /<collection>.
func splitStorageImportID(id, collection string) (ep, sid, obj string, err error) {
	ep, rest, ok := strings.Cut(id, "/")
	i := strings.LastIndex(rest, "/")
	if !ok || ep == "" || i <= 0 || i == len(rest)-1 {
		return "", "", "", fmt.Errorf("got %q", id)
	}
	sid, obj = strings.TrimSuffix(rest[:i], "/"+collection), rest[i+1:]
	if strings.HasPrefix(sid, "redfish/v1/") {
		sid = "/" + sid
	}
	if strings.Trim(sid, "/") == "" || strings.Contains(sid, "//") {
		return "", "", "", fmt.Errorf("got %q", id)
	}
	return ep, sid, obj, nil
}

// planExisting looks, on create, for a volume of the configured name: nil
// when there is none (or it is the one this plan replaces); false when there
// is one that differs (reported).
func (r *volumeResource) planExisting(ctx context.Context, ep *redfish.Endpoint, sid string, plan volumeModel, replaced string, diags *diag.Diagnostics) (*redfish.Volume, bool) {
	if plan.Name.IsUnknown() || plan.DiskGroup.IsUnknown() {
		return nil, true
	}
	sid, err := ep.FindStorage(ctx, sid)
	if err != nil {
		return nil, true // reported at apply
	}
	v, _, err := ep.ReadVolume(ctx, sid, plan.Name.ValueString())
	if redfish.IsGone(err) || (err == nil && v.ID == replaced) {
		return nil, true
	}
	if err != nil {
		redfishError(diags, path.Root("name"), "Cannot Look For An Existing Volume", err)
		return nil, false
	}
	pool, err := ep.ReadPool(ctx, sid, plan.DiskGroup.ValueString())
	if err != nil && !redfish.IsGone(err) {
		redfishError(diags, path.Root("disk_group"), "Cannot Read The Disk Group", err)
		return nil, false
	}
	if err != nil {
		pool = nil
	}
	if !checkExistingVolume(plan, sid, pool, v, diags) {
		return nil, false
	}
	adoptedWarning(diags, "Existing Volume Will Be Adopted", "Volume "+v.Name, plan.Endpoint.ValueString()+"/"+sid+"/"+v.ID)
	return v, true
}

// checkExistingVolume tells whether v, found under the configured name, is
// the configured volume: in the configured disk group (pool, nil when the
// group does not exist), of the configured size and segment size where they
// are set. If not it reports the error with the import command.
func checkExistingVolume(plan volumeModel, sid string, pool *redfish.StoragePool, v *redfish.Volume, diags *diag.Diagnostics) bool {
	var why []string
	at := path.Root("name")
	if pool == nil || v.PoolID != pool.ID {
		why = append(why, fmt.Sprintf("it is in disk group %q, not %q", v.PoolID, plan.DiskGroup.ValueString()))
		at = path.Root("disk_group")
	}
	if want := plan.CapacityBytes; !want.IsUnknown() && !want.IsNull() {
		if w := want.ValueInt64(); w < v.CapacityBytes || w-v.CapacityBytes >= allocationUnit {
			why = append(why, fmt.Sprintf("it holds %d bytes, not %d", v.CapacityBytes, w))
			at = path.Root("capacity_bytes")
		}
	}
	if seg := plan.SegmentSizeBytes; !seg.IsUnknown() && !seg.IsNull() && seg.ValueInt64() != v.StripSizeBytes {
		why = append(why, fmt.Sprintf("its segment size is %d bytes, not %d", v.StripSizeBytes, seg.ValueInt64()))
		at = path.Root("segment_size_bytes")
	}
	if len(why) == 0 {
		return true
	}
	if len(why) > 1 {
		at = path.Root("name")
	}
	existsError(diags, at, "Volume Already Exists", fmt.Sprintf("Volume %q (%s)", v.Name, v.URI), strings.Join(why, "; "),
		"hpcstorage_volume", plan.Endpoint.ValueString()+"/"+sid+"/"+v.ID)
	return false
}

func volumeIDOf(m volumeModel) string {
	if id := m.ID.ValueString(); id != "" {
		return id[strings.LastIndex(id, "/")+1:]
	}
	return m.Name.ValueString()
}

// readInto refreshes m; false when the volume is gone. A size the array
// rounded down from the requested one keeps the requested value.
func (r *volumeResource) readInto(ctx context.Context, ep *redfish.Endpoint, m *volumeModel, requested int64, diags *diag.Diagnostics) bool {
	sid := m.StorageID.ValueString()
	v, ms, err := ep.ReadVolume(ctx, sid, volumeIDOf(*m))
	if redfish.IsGone(err) {
		return false
	}
	if err != nil {
		redfishError(diags, path.Empty(), "Cannot Read The Volume", err)
		return true
	}
	for _, w := range v.Warnings {
		diags.AddWarning("Volume Partly Read", fmt.Sprintf("Volume %s (%s): %s.", v.ID, v.URI, w))
	}
	m.ID = types.StringValue(m.Endpoint.ValueString() + "/" + sid + "/" + v.ID)
	m.Name = types.StringValue(v.Name)
	size := v.CapacityBytes
	if requested > 0 && requested >= size && requested-size < allocationUnit {
		size = requested
	}
	m.CapacityBytes = types.Int64Value(size)
	m.SegmentSizeBytes = types.Int64Value(v.StripSizeBytes)
	m.OptimumIOSizeBytes = types.Int64Value(v.OptimumIOSizeBytes)
	m.RAIDLevel = types.StringValue(v.RAIDType)
	m.WWN = types.StringValue(v.WWN)
	if m.DiskGroup.IsNull() || m.DiskGroup.IsUnknown() {
		// Imported: the configuration names the disk group, and arrays
		// give pools ids that are not their names (ME4: 00c0ff...), so
		// record the name, or the next plan would replace the volume.
		m.DiskGroup = types.StringValue(v.PoolID)
		if v.PoolID != "" {
			if p, err := ep.ReadPool(ctx, sid, v.PoolID); err == nil && p.Name != "" {
				m.DiskGroup = types.StringValue(p.Name)
			}
		}
	}
	if len(ms) == 0 && m.HostMappings.IsNull() {
		return true
	}
	// The order of the configuration (known here: state, or plan at apply);
	// an unknown list would just take the array's order.
	var cfg []hostMapModel
	if !m.HostMappings.IsUnknown() {
		cfg, _ = hostMappings(ctx, m.HostMappings, diags)
	}
	l, d := types.ListValueFrom(ctx, hostMapType, orderMappings(cfg, ms))
	diags.Append(d...)
	if !d.HasError() {
		m.HostMappings = l
	}
	return true
}

// hostMappings converts host_mappings where it is known; known is false
// while the list is unknown (or cannot be converted, reported in diags).
// Null is no mappings. Terraform itself refuses an element unknown as a
// whole; should one come, it gets an unknown host and LUN, so indexes still
// match the configuration.
func hostMappings(ctx context.Context, l types.List, diags *diag.Diagnostics) (out []hostMapModel, known bool) {
	if l.IsUnknown() {
		return nil, false
	}
	if l.IsNull() {
		return nil, true
	}
	var objs []types.Object
	d := l.ElementsAs(ctx, &objs, false)
	diags.Append(d...)
	if d.HasError() {
		return nil, false
	}
	out = make([]hostMapModel, len(objs))
	for i, o := range objs {
		if o.IsUnknown() || o.IsNull() {
			out[i] = hostMapModel{Host: types.StringUnknown(), LUN: types.Int64Unknown()}
			continue
		}
		d := o.As(ctx, &out[i], basetypes.ObjectAsOptions{})
		diags.Append(d...)
		if d.HasError() {
			return nil, false
		}
	}
	return out, true
}

// appliedMappings is host_mappings at apply, where Terraform has resolved
// every value; anything still unknown is refused rather than mapped.
func appliedMappings(ctx context.Context, l types.List, diags *diag.Diagnostics) ([]hostMapModel, bool) {
	var d diag.Diagnostics
	ms, known := hostMappings(ctx, l, &d)
	if known {
		for i, m := range ms {
			if m.Host.IsUnknown() || m.LUN.IsUnknown() {
				addError(&d, path.Root("host_mappings").AtListIndex(i), "Host Mapping Unknown At Apply",
					"Terraform gave no final value for this host mapping; this is a bug, please report it.", nil)
			}
		}
	} else if !d.HasError() {
		addError(&d, path.Root("host_mappings"), "Host Mappings Unknown At Apply",
			"Terraform gave no final value for host_mappings; this is a bug, please report it.", nil)
	}
	diags.Append(d...)
	return ms, !d.HasError()
}

// orderMappings lists the observed mappings in the order of the
// configuration, the unknown ones after, so only real changes show.
func orderMappings(cfg []hostMapModel, got []redfish.Mapping) []hostMapModel {
	out := []hostMapModel{}
	used := make([]bool, len(got))
	for _, c := range cfg {
		for i, g := range got {
			if !used[i] && g.Host == c.Host.ValueString() {
				used[i] = true
				out = append(out, hostMapModel{Host: types.StringValue(g.Host), LUN: types.Int64Value(g.LUN)})
				break
			}
		}
	}
	for i, g := range got {
		if !used[i] {
			out = append(out, hostMapModel{Host: types.StringValue(g.Host), LUN: types.Int64Value(g.LUN)})
		}
	}
	return out
}

// syncMappings unmaps what is not wanted (or has another LUN), then maps
// what is missing.
func (r *volumeResource) syncMappings(ctx context.Context, ep *redfish.Endpoint, sid string, v *redfish.Volume, current []redfish.Mapping, want []hostMapModel, diags *diag.Diagnostics) {
	wanted := map[string]int64{}
	for _, w := range want {
		wanted[w.Host.ValueString()] = w.LUN.ValueInt64()
	}
	have := map[string]bool{}
	for _, m := range current {
		if lun, ok := wanted[m.Host]; ok && lun == m.LUN {
			have[m.Host] = true
			continue
		}
		if err := ep.Unmap(ctx, m); err != nil {
			redfishError(diags, path.Root("host_mappings"), "Volume Not Unmapped", err)
			return
		}
	}
	for i, w := range want {
		if have[w.Host.ValueString()] {
			continue
		}
		err := ep.Map(ctx, sid, v, w.Host.ValueString(), w.LUN.ValueInt64())
		if errors.Is(err, redfish.ErrExists) {
			addError(diags, path.Root("host_mappings").AtListIndex(i), "Host Mapping Already Exists",
				"The array holds a storage group of the name this mapping takes, mapping something else. It belongs to no "+
					"volume of this configuration: delete or rename it on the array, then apply again.", err)
			return
		}
		if err != nil {
			redfishError(diags, path.Root("host_mappings").AtListIndex(i), "Volume Not Mapped", err)
			return
		}
	}
}

// Through internal/arrays: E-Series endpoints. SANtricity maps a volume
// once, to a host or a host group, under one LUN: host_mappings must give
// every host the same LUN, and several hosts share a host group (found, or
// made as hpcs_<hosts>). Volumes only grow; capacity unset takes the free
// capacity of the group.

func (r *volumeResource) createOnArray(ctx context.Context, plan volumeModel, mappings []hostMapModel, resp *resource.CreateResponse) {
	a, sid := r.data.arrayFor(ctx, plan.Endpoint.ValueString(), plan.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	plan.StorageID = types.StringValue(sid)
	g, err := a.ReadGroup(ctx, plan.DiskGroup.ValueString())
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("disk_group"), "Cannot Find The Disk Group", err)
		return
	}
	want := int64(0)
	if !plan.CapacityBytes.IsUnknown() && !plan.CapacityBytes.IsNull() {
		want = plan.CapacityBytes.ValueInt64()
	}
	importID := func(v *arrays.Volume) string { return plan.Endpoint.ValueString() + "/" + sid + "/" + v.ID }
	v, _, err := a.ReadVolume(ctx, plan.Name.ValueString())
	switch {
	case err == nil:
		if !checkExistingOnArray(plan, sid, g, v, &resp.Diagnostics) {
			return
		}
		adoptedWarning(&resp.Diagnostics, "Existing Volume Adopted", "Volume "+v.Name, importID(v))
	case !arrays.IsGone(err):
		redfishError(&resp.Diagnostics, path.Root("name"), "Cannot Look For An Existing Volume", err)
		return
	default:
		v, err = a.CreateVolume(ctx, arrays.VolumeSpec{Name: plan.Name.ValueString(), GroupID: g.ID, CapacityBytes: want,
			SegmentBytes: plan.SegmentSizeBytes.ValueInt64()})
		var mismatch *santricity.MismatchError
		if errors.As(err, &mismatch) {
			// Made by someone else between the look-up and the create.
			addError(&resp.Diagnostics, path.Root("name"), "Volume Already Exists", "Another volume of this name appeared on "+
				"the array during the apply; look at it, then import it or rename this one.", err)
			return
		}
		if err != nil {
			redfishError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Not Created", err)
			return
		}
		if v.Adopted {
			adoptedWarning(&resp.Diagnostics, "Existing Volume Adopted", "Volume "+v.Name, importID(v))
		}
	}
	r.mapOnArray(ctx, a, v.ID, mappings, &resp.Diagnostics)
	r.readFromArray(ctx, a, &plan, want, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *volumeResource) updateOnArray(ctx context.Context, plan, state volumeModel, mappings []hostMapModel, resp *resource.UpdateResponse) {
	a, _ := r.data.arrayFor(ctx, state.Endpoint.ValueString(), state.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	id := volumeIDOf(state)
	want := plan.CapacityBytes.ValueInt64()
	if want > state.CapacityBytes.ValueInt64() {
		if err := a.ResizeVolume(ctx, id, want); err != nil {
			redfishError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Not Grown", err)
			return
		}
	}
	r.mapOnArray(ctx, a, id, mappings, &resp.Diagnostics)
	plan.StorageID, plan.ID = state.StorageID, state.ID
	r.readFromArray(ctx, a, &plan, want, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// mapOnArray makes exactly the configured hosts see the volume (all under
// the one LUN the plan checked).
func (r *volumeResource) mapOnArray(ctx context.Context, a arrays.Array, id string, mappings []hostMapModel, diags *diag.Diagnostics) {
	if diags.HasError() {
		return
	}
	hosts, lun := make([]string, len(mappings)), int64(0)
	for i, m := range mappings {
		hosts[i], lun = m.Host.ValueString(), m.LUN.ValueInt64()
	}
	if err := a.SetMappings(ctx, id, hosts, lun); err != nil {
		redfishError(diags, path.Root("host_mappings"), "Volume Not Mapped", err)
	}
}

// readFromArray is readInto for a volume read through internal/arrays.
func (r *volumeResource) readFromArray(ctx context.Context, a arrays.Array, m *volumeModel, requested int64, diags *diag.Diagnostics) bool {
	sid := m.StorageID.ValueString()
	v, ms, err := a.ReadVolume(ctx, volumeIDOf(*m))
	if arrays.IsGone(err) {
		return false
	}
	if err != nil {
		redfishError(diags, path.Empty(), "Cannot Read The Volume", err)
		return true
	}
	m.ID = types.StringValue(m.Endpoint.ValueString() + "/" + sid + "/" + v.ID)
	m.Name = types.StringValue(v.Name)
	size := v.CapacityBytes
	if requested > 0 && requested >= size && requested-size < allocationUnit {
		size = requested
	}
	m.CapacityBytes = types.Int64Value(size)
	m.SegmentSizeBytes = types.Int64Value(v.SegmentBytes)
	m.WWN = types.StringValue(v.WWN)
	m.RAIDLevel = types.StringValue("")
	m.OptimumIOSizeBytes = types.Int64Value(v.SegmentBytes)
	if g, err := a.ReadGroup(ctx, v.GroupID); err == nil {
		m.RAIDLevel = types.StringValue(g.RAIDLevel)
		m.OptimumIOSizeBytes = types.Int64Value(v.SegmentBytes * dataDrives(g.RAIDLevel, len(g.DriveIDs)))
		if m.DiskGroup.IsNull() || m.DiskGroup.IsUnknown() {
			m.DiskGroup = types.StringValue(g.Name) // imported
		}
	} else if !arrays.IsGone(err) {
		redfishError(diags, path.Root("disk_group"), "Cannot Read The Disk Group", err)
	}
	if len(ms) == 0 && m.HostMappings.IsNull() {
		return true
	}
	var cfg []hostMapModel
	if !m.HostMappings.IsUnknown() {
		cfg, _ = hostMappings(ctx, m.HostMappings, diags)
	}
	got := make([]redfish.Mapping, len(ms))
	for i, x := range ms {
		got[i] = redfish.Mapping{Host: x.Host, LUN: x.LUN}
	}
	l, d := types.ListValueFrom(ctx, hostMapType, orderMappings(cfg, got))
	diags.Append(d...)
	if !d.HasError() {
		m.HostMappings = l
	}
	return true
}

// dataDrives is how many drives of a group hold data in a full stripe.
func dataDrives(level string, n int) int64 {
	switch level {
	case "RAID1":
		return 1
	case "RAID10":
		return int64(n / 2)
	case "RAID5":
		return int64(n - 1)
	case "RAID6":
		return int64(n - 2)
	case arrays.DDP:
		return 8 // DDP stripes are 8 data + 2 parity pieces
	}
	return int64(max(n, 1))
}

// planOnArray is ModifyPlan on an E-Series endpoint: the name rule, one
// LUN for all hosts, no shrinking, the size against the group (existing or
// planned), known hosts, and a same-named volume that is the configured
// one (adopted at apply).
func (r *volumeResource) planOnArray(ctx context.Context, req resource.ModifyPlanRequest, plan volumeModel, resp *resource.ModifyPlanResponse) {
	if r.data.Deferred[plan.Endpoint.ValueString()] {
		return
	}
	var state *volumeModel
	if !req.State.Raw.IsNull() {
		state = &volumeModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
		markReplaced(ctx, resp.Private, volumeIDOf(*state), &resp.Diagnostics)
	}
	if state == nil || !state.Name.Equal(plan.Name) {
		checkESeriesName(path.Root("name"), plan.Name, &resp.Diagnostics)
	}
	mappings, known := hostMappings(ctx, plan.HostMappings, &resp.Diagnostics)
	for i := 1; known && i < len(mappings); i++ {
		if !mappings[i].LUN.IsUnknown() && !mappings[0].LUN.IsUnknown() && !mappings[i].LUN.Equal(mappings[0].LUN) {
			addError(&resp.Diagnostics, path.Root("host_mappings").AtListIndex(i).AtName("lun"), "One LUN Per Volume On E-Series",
				fmt.Sprintf("An E-Series array maps a volume once, to a host or a host group, under one LUN: give host %s LUN %d like %s.",
					mappings[i].Host.ValueString(), mappings[0].LUN.ValueInt64(), mappings[0].Host.ValueString()), nil)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	a, sid := r.data.arrayFor(ctx, plan.Endpoint.ValueString(), plan.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	if state == nil {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("storage_id"), sid)...)
		if !plan.Name.IsUnknown() && !plan.DiskGroup.IsUnknown() {
			v, _, err := a.ReadVolume(ctx, plan.Name.ValueString())
			switch {
			case err == nil && v.ID != replacedID(ctx, req.Private, &resp.Diagnostics):
				g, gerr := a.ReadGroup(ctx, plan.DiskGroup.ValueString())
				if gerr != nil {
					g = nil
				}
				if !checkExistingOnArray(plan, sid, g, v, &resp.Diagnostics) {
					return
				}
				adoptedWarning(&resp.Diagnostics, "Existing Volume Will Be Adopted", "Volume "+v.Name, plan.Endpoint.ValueString()+"/"+sid+"/"+v.ID)
				r.planHostsOnArray(ctx, a, mappings, resp)
				return
			case err != nil && !arrays.IsGone(err):
				redfishError(&resp.Diagnostics, path.Root("name"), "Cannot Look For An Existing Volume", err)
				return
			}
		}
	}
	r.planCapacityOnArray(ctx, a, sid, plan, state, resp)
	if state == nil || !state.HostMappings.Equal(plan.HostMappings) {
		r.planHostsOnArray(ctx, a, mappings, resp)
	}
}

func (r *volumeResource) planCapacityOnArray(ctx context.Context, a arrays.Array, sid string, plan volumeModel, state *volumeModel, resp *resource.ModifyPlanResponse) {
	if plan.CapacityBytes.IsUnknown() || plan.CapacityBytes.IsNull() || plan.DiskGroup.IsUnknown() {
		return
	}
	want, have := plan.CapacityBytes.ValueInt64(), int64(0)
	if state != nil {
		have = state.CapacityBytes.ValueInt64()
		if want < have {
			addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volumes Cannot Shrink",
				fmt.Sprintf("E-Series volumes only grow: the volume holds %d bytes; set capacity_bytes to at least that, or "+
					"replace the volume (its data is lost).", have), nil)
			return
		}
		if want == have {
			return
		}
	}
	g, err := a.ReadGroup(ctx, plan.DiskGroup.ValueString())
	if arrays.IsGone(err) {
		planned, ok := r.data.PlannedGroups.get(plan.Endpoint.ValueString(), sid, plan.DiskGroup.ValueString())
		if !ok {
			return
		}
		total := r.data.PlannedGroups.addVolume(plan.Endpoint.ValueString(), sid, plan.DiskGroup.ValueString(), plan.Name.ValueString(), want)
		switch {
		case want > planned.usable:
			addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Larger Than The Disk Group",
				fmt.Sprintf("Disk group %s, created by this plan as %s, holds at most %d bytes; the volume asks for %d. "+
					"Lower capacity_bytes or leave it unset to take all the space of the group.", plan.DiskGroup.ValueString(), planned.how, planned.usable, want), nil)
		case total > planned.usable:
			addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volumes Larger Than The Disk Group",
				fmt.Sprintf("Disk group %s, created by this plan as %s, holds at most %d bytes; with this volume (%d bytes) "+
					"its volumes planned so far take %d. Lower capacity_bytes.", plan.DiskGroup.ValueString(), planned.how, planned.usable, want, total), nil)
		}
		return
	}
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("disk_group"), "Cannot Read The Disk Group", err)
		return
	}
	if free := g.CapacityBytes - g.ConsumedBytes; want-have > free {
		addError(&resp.Diagnostics, path.Root("capacity_bytes"), "Volume Larger Than The Disk Group",
			fmt.Sprintf("Disk group %s has %d bytes free, the volume needs %d more; lower capacity_bytes or leave it unset to take all the space left.",
				g.Name, free, want-have), nil)
	}
}

func (r *volumeResource) planHostsOnArray(ctx context.Context, a arrays.Array, mappings []hostMapModel, resp *resource.ModifyPlanResponse) {
	if len(mappings) == 0 {
		return
	}
	hosts, err := a.Hosts(ctx)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("host_mappings"), "Cannot List The Array's Hosts", err)
		return
	}
	for i, hm := range mappings {
		if !hm.Host.IsUnknown() && !slices.Contains(hosts, hm.Host.ValueString()) {
			addError(&resp.Diagnostics, path.Root("host_mappings").AtListIndex(i).AtName("host"), "Unknown Host",
				fmt.Sprintf("The array knows the hosts %s; %q is not one of them (define it with its initiator ports first).",
					backtickList(hosts), hm.Host.ValueString()), nil)
		}
	}
}

// checkExistingOnArray is checkExistingVolume for a volume read through
// internal/arrays (g nil: the configured group does not exist).
func checkExistingOnArray(plan volumeModel, sid string, g *arrays.Group, v *arrays.Volume, diags *diag.Diagnostics) bool {
	var why []string
	at := path.Root("name")
	if g == nil || v.GroupID != g.ID {
		why = append(why, fmt.Sprintf("it is in volume group %q, not %q", v.GroupID, plan.DiskGroup.ValueString()))
		at = path.Root("disk_group")
	}
	if want := plan.CapacityBytes; !want.IsUnknown() && !want.IsNull() {
		if w := want.ValueInt64(); w < v.CapacityBytes || w-v.CapacityBytes >= allocationUnit {
			why = append(why, fmt.Sprintf("it holds %d bytes, not %d", v.CapacityBytes, w))
			at = path.Root("capacity_bytes")
		}
	}
	if seg := plan.SegmentSizeBytes; !seg.IsUnknown() && !seg.IsNull() && seg.ValueInt64() != v.SegmentBytes {
		why = append(why, fmt.Sprintf("its segment size is %d bytes, not %d", v.SegmentBytes, seg.ValueInt64()))
		at = path.Root("segment_size_bytes")
	}
	if len(why) == 0 {
		return true
	}
	if len(why) > 1 {
		at = path.Root("name")
	}
	existsError(diags, at, "Volume Already Exists", fmt.Sprintf("Volume %q (%s)", v.Name, v.ID), strings.Join(why, "; "),
		"hpcstorage_volume", plan.Endpoint.ValueString()+"/"+sid+"/"+v.ID)
	return false
}
