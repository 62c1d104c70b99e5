package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/layout"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

var (
	_ resource.Resource                     = (*diskGroupResource)(nil)
	_ resource.ResourceWithConfigure        = (*diskGroupResource)(nil)
	_ resource.ResourceWithImportState      = (*diskGroupResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*diskGroupResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*diskGroupResource)(nil)
	_ resource.ResourceWithConfigValidators = (*diskGroupResource)(nil)
)

// NewDiskGroupResource manages a disk group (Swordfish StoragePool).
func NewDiskGroupResource() resource.Resource { return &diskGroupResource{} }

type diskGroupResource struct{ data *providerData }

type diskGroupModel struct {
	ID            types.String `tfsdk:"id"`
	Endpoint      types.String `tfsdk:"endpoint"`
	StorageID     types.String `tfsdk:"storage_id"`
	Name          types.String `tfsdk:"name"`
	RAIDLevel     types.String `tfsdk:"raid_level"`
	DriveIDs      types.List   `tfsdk:"drive_ids"`
	DriveCount    types.Int64  `tfsdk:"drive_count"`
	MediaType     types.String `tfsdk:"media_type"`
	CapacityBytes types.Int64  `tfsdk:"capacity_bytes"`
}

func (r *diskGroupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_disk_group"
}

func (r *diskGroupResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	var rules []string
	for _, l := range layout.Levels {
		rules = append(rules, fmt.Sprintf("`%s` %s", l, layout.DriveCountRule(l)))
	}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A linear disk group of an array (a Swordfish StoragePool): a RAID level over a set of " +
			"drives. Changing the drives or the level cannot be done in place: the plan shows the group replaced, " +
			"which destroys its volumes first. Destroy is refused by the array while volumes remain. A group of the same name " +
			"already on the array (left by an interrupted apply) is adopted when it has the configured RAID level and drives; " +
			"any other fails the plan with the `terraform import` command that takes it over.\n\n" +
			"On an E-Series endpoint (`api = \"santricity\"`) it is a volume group, or with `raid_level = \"DDP\"` a Dynamic " +
			"Disk Pool; `RAID10` is SANtricity's raid1 over 4 or more drives and reads back as `RAID10`, `RAID1` is exactly 2 " +
			"drives. Drive ids are `<tray>.<slot>` (`99.0`), names follow SANtricity's label rule, and the drive counts are " +
			"E-Series' own (checked at plan). `capacity_bytes` of a DDP is the array's figure once it exists; at plan a DDP " +
			"is taken to keep two drives of reconstruction reserve and store 8+2 stripes.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the array in the provider's `endpoints` map."},
			"storage_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: storageIDDoc,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Disk group name (letters, digits, `_`, `.`, `-`; at most 32). On an E-Series array " +
					"(a volume group or pool): " + eseriesNameDoc + ".",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 32),
					stringvalidator.RegexMatches(validName, "letters, digits, _ . - only")}},
			"raid_level": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "RAID level; drive counts on a Redfish array: " + strings.Join(rules, "; ") + ". On an " +
					"E-Series array: " + eseriesCountDoc + "; `DDP` (a Dynamic Disk Pool) is E-Series only and refused at plan " +
					"on a Redfish array.",
				Validators: []validator.String{stringvalidator.OneOf(groupLevels()...)}},
			"drive_ids": schema.ListAttribute{Optional: true, Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Member drives by id (`0.12`), e.g. from `data.hpcstorage_array_layout`. Either this or `drive_count`.",
				Validators:          []validator.List{listvalidator.UniqueValues(), listvalidator.SizeAtLeast(1)},
				PlanModifiers:       []planmodifier.List{listplanmodifier.UseStateForUnknown(), listplanmodifier.RequiresReplace()}},
			"drive_count": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Let the provider pick this many free drives of `media_type`, the lowest bays first. " +
					"Use it for one group per array; for several, plan them with `data.hpcstorage_array_layout`.",
				Validators:    []validator.Int64{int64validator.AtLeast(1)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()}},
			"media_type": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				MarkdownDescription: "Media type of the drives `drive_count` picks (`HDD`, `SSD`).",
				Validators:          []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("drive_count"))}},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<endpoint>/<storage_id>/<pool id>`, also the import id " +
				"(on E-Series `<endpoint>/1/<volume group ref or name>`).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"capacity_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Usable capacity.",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}},
		},
	}
}

func (r *diskGroupResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (r *diskGroupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan diskGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		r.createOnArray(ctx, plan, resp)
		return
	}
	ep, sid := arrayOf(ctx, r.data, plan.Endpoint, plan.StorageID, &resp.Diagnostics)
	if ep == nil {
		return
	}
	plan.StorageID = types.StringValue(sid)
	// An earlier run may have created the group and stopped before saving it.
	if existing, err := ep.ReadPool(ctx, sid, plan.Name.ValueString()); err == nil {
		if r.checkExisting(ctx, ep, sid, plan, existing, &resp.Diagnostics) {
			adoptedWarning(&resp.Diagnostics, "Existing Disk Group Adopted", "Disk group "+existing.Name,
				plan.Endpoint.ValueString()+"/"+sid+"/"+existing.ID)
			r.fill(ctx, &plan, existing, &resp.Diagnostics)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}
		return
	} else if !redfish.IsGone(err) {
		redfishError(&resp.Diagnostics, path.Root("name"), "Cannot Look For An Existing Disk Group", err)
		return
	}
	var ids []string
	if !plan.DriveIDs.IsUnknown() && !plan.DriveIDs.IsNull() {
		resp.Diagnostics.Append(plan.DriveIDs.ElementsAs(ctx, &ids, false)...)
	} else {
		drives, err := ep.Drives(ctx, sid)
		if err != nil {
			redfishError(&resp.Diagnostics, path.Empty(), "Cannot List The Drives", err)
			return
		}
		ids = pickFree(drives, int(plan.DriveCount.ValueInt64()), plan.MediaType.ValueString())
		if len(ids) < int(plan.DriveCount.ValueInt64()) {
			addError(&resp.Diagnostics, path.Root("drive_count"), "Not Enough Free Drives",
				fmt.Sprintf("Only %d free drives of media type %q; lower drive_count or free drives.", len(ids), plan.MediaType.ValueString()), nil)
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	p, err := ep.CreatePool(ctx, sid, plan.Name.ValueString(), plan.RAIDLevel.ValueString(), ids)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("drive_ids"), "Disk Group Not Created", err)
		return
	}
	r.fill(ctx, &plan, p, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *diskGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state diskGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(state.Endpoint.ValueString()) {
		r.readOnArray(ctx, state, resp)
		return
	}
	ep := r.data.endpoint(state.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	p, err := ep.ReadPool(ctx, state.StorageID.ValueString(), poolIDOf(state))
	if redfish.IsGone(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot Read The Disk Group", err)
		return
	}
	r.fill(ctx, &state, p, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update has nothing to do: every attribute that can change replaces.
func (r *diskGroupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan diskGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *diskGroupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state diskGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(state.Endpoint.ValueString()) {
		if a, _ := r.data.arrayFor(ctx, state.Endpoint.ValueString(), state.StorageID, &resp.Diagnostics); a != nil {
			if err := a.DeleteGroup(ctx, poolIDOf(state)); err != nil && !arrays.IsGone(err) {
				redfishError(&resp.Diagnostics, path.Empty(), "Disk Group Not Deleted", err)
			}
		}
		return
	}
	ep := r.data.endpoint(state.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	uri := redfish.PoolsURI(state.StorageID.ValueString()) + "/" + poolIDOf(state)
	if err := ep.DeleteURI(ctx, uri); err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Disk Group Not Deleted", err)
	}
}

func (r *diskGroupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ep, sid, pid, err := splitStorageImportID(req.ID, "StoragePools")
	if err != nil {
		addError(&resp.Diagnostics, path.Empty(), "Invalid Import ID",
			"Use <endpoint>/<storage-id>/<disk-group-id>, e.g. me4084-1/controller_a/dg01, or with the storage's full "+
				"@odata.id, e.g. bmc1/redfish/v1/Systems/1/Storage/X/StoragePools/dg01.", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("endpoint"), ep)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("storage_id"), sid)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), ep+"/"+sid+"/"+pid)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), pid)...)
}

func (r *diskGroupResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("drive_ids"), path.MatchRoot("drive_count")),
	}
}

// ValidateConfig applies the RAID drive-count rule before anything is sent.
func (r *diskGroupResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m diskGroupModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.RAIDLevel.IsUnknown() || m.RAIDLevel.IsNull() {
		return
	}
	// Only a configured provider knows the endpoint's API; E-Series counts
	// differ (RAID6 up to 30 drives) and are checked at plan by ModifyPlan.
	if r.data == nil || m.Endpoint.IsUnknown() || r.data.speaksSantricity(m.Endpoint.ValueString()) {
		return
	}
	level, err := layout.ParseLevel(m.RAIDLevel.ValueString())
	if err != nil {
		return // the OneOf validator reports it
	}
	n, at := -1, path.Root("drive_ids")
	switch {
	case !m.DriveIDs.IsNull() && !m.DriveIDs.IsUnknown():
		n = len(m.DriveIDs.Elements())
		for _, e := range m.DriveIDs.Elements() {
			if e.IsUnknown() {
				n = -1
			}
		}
	case !m.DriveCount.IsNull() && !m.DriveCount.IsUnknown():
		n, at = int(m.DriveCount.ValueInt64()), path.Root("drive_count")
	}
	if n < 0 {
		return
	}
	if err := layout.CheckDriveCount(level, n); err != nil {
		addError(&resp.Diagnostics, at, "Wrong Drive Count For The RAID Level", "Give the number of drives the RAID level needs.", err)
	}
}

// ModifyPlan checks a create against the array: a group of the same name
// must be the one configured (apply adopts it) and the drives must exist, be
// free (not in a group, not spares) and share a media type, or (drive_count)
// be there in number. It records the capacity the group will have for the
// volumes of the same plan.
func (r *diskGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	if !req.State.Raw.IsNull() {
		var state diskGroupModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		markReplaced(ctx, resp.Private, poolIDOf(state), &resp.Diagnostics)
		return
	}
	replaced := replacedID(ctx, req.Private, &resp.Diagnostics)
	var plan diskGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Endpoint.IsUnknown() {
		return
	}
	if r.data.Deferred[plan.Endpoint.ValueString()] {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		r.planOnArray(ctx, plan, replaced, resp)
		return
	}
	if plan.RAIDLevel.ValueString() == arrays.DDP {
		addError(&resp.Diagnostics, path.Root("raid_level"), "RAID Level Not Offered",
			fmt.Sprintf("DDP (Dynamic Disk Pools) is an E-Series level; %s is a Redfish array (one of %s).",
				plan.Endpoint.ValueString(), strings.Join(layout.LevelStrings(), ", ")), nil)
		return
	}
	ep := r.data.planEndpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	sid := ""
	if !plan.StorageID.IsUnknown() {
		sid = plan.StorageID.ValueString()
	}
	sid, err := ep.FindStorage(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("storage_id"), "Cannot Find The Array", err)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("storage_id"), sid)...)
	var existing *redfish.StoragePool
	if !plan.Name.IsUnknown() {
		existing, err = ep.ReadPool(ctx, sid, plan.Name.ValueString())
		switch {
		case redfish.IsGone(err):
			existing = nil
		case err != nil:
			redfishError(&resp.Diagnostics, path.Root("name"), "Cannot Look For An Existing Disk Group", err)
			return
		case existing.ID == replaced:
			// The group this plan replaces: destroyed before the create.
		case !r.checkExisting(ctx, ep, sid, plan, existing, &resp.Diagnostics):
			return
		default:
			adoptedWarning(&resp.Diagnostics, "Existing Disk Group Will Be Adopted", "Disk group "+existing.Name,
				plan.Endpoint.ValueString()+"/"+sid+"/"+existing.ID)
		}
	}
	byCount := !plan.DriveCount.IsNull() && !plan.DriveCount.IsUnknown()
	if !byCount && (plan.DriveIDs.IsUnknown() || plan.DriveIDs.IsNull()) {
		return
	}
	drives, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("drive_ids"), "Cannot List The Drives", err)
		return
	}
	level, lerr := layout.ParseLevel(plan.RAIDLevel.ValueString())
	if byCount {
		// drive_count: apply picks the lowest free drives of the media type.
		n := int(plan.DriveCount.ValueInt64())
		ids := pickFree(drives, n, plan.MediaType.ValueString())
		switch {
		case existing != nil: // adopted, or replaced (its drives are freed first)
		case len(ids) < n:
			addError(&resp.Diagnostics, path.Root("drive_count"), "Not Enough Free Drives",
				fmt.Sprintf("%s has %d free drives of media type %q, the group needs %d; lower drive_count or free drives.",
					plan.Endpoint.ValueString(), len(ids), plan.MediaType.ValueString(), n), nil)
		case lerr == nil && !plan.Name.IsUnknown():
			r.recordPlanned(plan, sid, level, drives, ids)
		}
		return
	}
	var ids []string
	resp.Diagnostics.Append(plan.DriveIDs.ElementsAs(ctx, &ids, true)...)
	if resp.Diagnostics.HasError() {
		return
	}
	byID := map[string]redfish.Drive{}
	for _, d := range drives {
		byID[d.ID] = d
	}
	media := ""
	for i, id := range ids {
		at := path.Root("drive_ids").AtListIndex(i)
		d, ok := byID[id]
		switch {
		case !ok:
			addError(&resp.Diagnostics, at, "Unknown Drive", fmt.Sprintf("Drive %q is not on %s; use an id from data.hpcstorage_drives.", id, plan.Endpoint.ValueString()), nil)
		// A drive of the same-named group apply adopts is fine.
		case d.PoolURI != "" && (existing == nil || d.PoolURI != existing.URI):
			addError(&resp.Diagnostics, at, "Drive Already In A Disk Group", fmt.Sprintf("Drive %q belongs to %s; choose a free drive.", id, d.PoolURI), nil)
		case d.HotspareType != "None":
			addError(&resp.Diagnostics, at, "Drive Is A Spare", fmt.Sprintf("Drive %q is a %s spare; remove it from hpcstorage_spare_drives first.", id, d.HotspareType), nil)
		case media != "" && d.MediaType != media:
			addError(&resp.Diagnostics, at, "Mixed Media Types", fmt.Sprintf("Drive %q is %s while the others are %s; a disk group takes one media type.", id, d.MediaType, media), nil)
		default:
			media = d.MediaType
		}
		owner := "disk group " + plan.Name.ValueString()
		if other, ok := r.data.DriveClaims.claim(plan.Endpoint.ValueString(), sid, id, owner); !ok {
			addError(&resp.Diagnostics, at, "Drive Planned Twice", fmt.Sprintf("Drive %q is also planned for %s; a drive can serve one group or be a spare.", id, other), nil)
		}
	}
	if !resp.Diagnostics.HasError() && existing == nil && lerr == nil && !plan.Name.IsUnknown() {
		r.recordPlanned(plan, sid, level, drives, ids)
	}
}

// checkExisting tells whether the group found under the configured name is
// the configured one (same RAID level and drives, or as many drives of the
// media type); if not it reports the error with the import command.
func (r *diskGroupResource) checkExisting(ctx context.Context, ep *redfish.Endpoint, sid string, plan diskGroupModel, p *redfish.StoragePool, diags *diag.Diagnostics) bool {
	var why []string
	at := path.Root("name") // when several attributes differ
	differs := func(attr, msg string) {
		why = append(why, msg)
		if len(why) == 1 {
			at = path.Root(attr)
		} else {
			at = path.Root("name")
		}
	}
	if !plan.RAIDLevel.IsUnknown() && p.RAIDLevel != plan.RAIDLevel.ValueString() {
		differs("raid_level", fmt.Sprintf("it is %s, not %s", p.RAIDLevel, plan.RAIDLevel.ValueString()))
	}
	switch {
	case !plan.DriveIDs.IsNull() && !plan.DriveIDs.IsUnknown():
		var ids []string
		diags.Append(plan.DriveIDs.ElementsAs(ctx, &ids, true)...)
		if !sameMembers(ids, p.DriveIDs) {
			differs("drive_ids", fmt.Sprintf("its drives are %s, not %s", strings.Join(sorted(p.DriveIDs), ", "), strings.Join(sorted(ids), ", ")))
		}
	case !plan.DriveCount.IsNull() && !plan.DriveCount.IsUnknown():
		if n := int(plan.DriveCount.ValueInt64()); len(p.DriveIDs) != n {
			differs("drive_count", fmt.Sprintf("it has %d drives, not %d", len(p.DriveIDs), n))
		}
		if media := plan.MediaType.ValueString(); media != "" {
			drives, err := ep.CachedDrives(ctx, sid)
			if err != nil {
				redfishError(diags, path.Root("media_type"), "Cannot List The Drives", err)
				return false
			}
			for _, d := range drives {
				if slices.Contains(p.DriveIDs, d.ID) && !strings.EqualFold(d.MediaType, media) {
					differs("media_type", fmt.Sprintf("drive %s is %s, not %s", d.ID, d.MediaType, media))
					break
				}
			}
		}
	}
	if len(why) == 0 {
		return true
	}
	existsError(diags, at, "Disk Group Already Exists", fmt.Sprintf("Disk group %q (%s)", p.Name, p.URI), strings.Join(why, "; "),
		"hpcstorage_disk_group", plan.Endpoint.ValueString()+"/"+sid+"/"+p.ID)
	return false
}

// recordPlanned notes the capacity the group will offer (the RAID level over
// its smallest drive), an upper bound of what the array reports.
func (r *diskGroupResource) recordPlanned(plan diskGroupModel, sid string, level layout.RAIDLevel, drives []redfish.Drive, ids []string) {
	size := map[string]int64{}
	for _, d := range drives {
		size[d.ID] = d.CapacityBytes
	}
	sizes := make([]int64, 0, len(ids))
	for _, id := range ids {
		if size[id] <= 0 {
			return
		}
		sizes = append(sizes, size[id])
	}
	if len(sizes) == 0 {
		return
	}
	r.data.PlannedGroups.put(plan.Endpoint.ValueString(), sid, plan.Name.ValueString(), layout.UsableBytes(level, sizes),
		fmt.Sprintf("%s over %d drives of at least %d bytes", level, len(sizes), slices.Min(sizes)))
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// helpers

var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func poolIDOf(m diskGroupModel) string {
	if id := m.ID.ValueString(); id != "" {
		return id[strings.LastIndex(id, "/")+1:]
	}
	return m.Name.ValueString()
}

func (r *diskGroupResource) fill(ctx context.Context, m *diskGroupModel, p *redfish.StoragePool, diags *diag.Diagnostics) {
	m.ID = types.StringValue(m.Endpoint.ValueString() + "/" + m.StorageID.ValueString() + "/" + p.ID)
	m.Name = types.StringValue(p.Name)
	m.RAIDLevel = types.StringValue(p.RAIDLevel)
	m.CapacityBytes = types.Int64Value(p.AllocatedBytes)
	// The array lists members in its own order: keep the configured order
	// when the members are the same, so only a real change shows.
	var prior []string
	if !m.DriveIDs.IsNull() && !m.DriveIDs.IsUnknown() {
		diags.Append(m.DriveIDs.ElementsAs(ctx, &prior, false)...)
	}
	if sameMembers(prior, p.DriveIDs) {
		return
	}
	lv, d := types.ListValueFrom(ctx, types.StringType, nonNil(p.DriveIDs))
	diags.Append(d...)
	m.DriveIDs = lv
}

func sameMembers(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// arrayOf resolves the endpoint and storage id of an array resource.
func arrayOf(ctx context.Context, data *providerData, endpoint, storageID types.String, diags *diag.Diagnostics) (*redfish.Endpoint, string) {
	ep := data.endpoint(endpoint.ValueString(), path.Root("endpoint"), diags)
	if ep == nil {
		return nil, ""
	}
	sid := ""
	if !storageID.IsUnknown() {
		sid = storageID.ValueString()
	}
	sid, err := ep.FindStorage(ctx, sid)
	if err != nil {
		redfishError(diags, path.Root("storage_id"), "Cannot Find The Array", err)
		return nil, ""
	}
	return ep, sid
}

// pickFree returns the first n free drives of media type (any when empty),
// in bay order.
func pickFree(drives []redfish.Drive, n int, media string) []string {
	var out []string
	for _, d := range drives {
		if len(out) == n {
			break
		}
		if d.PoolURI == "" && d.HotspareType == "None" && (media == "" || strings.EqualFold(d.MediaType, media)) {
			out = append(out, d.ID)
		}
	}
	return out
}

// Through internal/arrays: E-Series endpoints (a volume group or DDP pool).
// The same rules as above, with the array's own levels and drive counts.

func (r *diskGroupResource) createOnArray(ctx context.Context, plan diskGroupModel, resp *resource.CreateResponse) {
	a, sid := r.data.arrayFor(ctx, plan.Endpoint.ValueString(), plan.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	plan.StorageID = types.StringValue(sid)
	drives, err := a.Drives(ctx)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot List The Drives", err)
		return
	}
	// An earlier run may have created the group and stopped before saving it.
	if g, err := a.ReadGroup(ctx, plan.Name.ValueString()); err == nil {
		if r.checkExistingOnArray(ctx, sid, plan, g, drives, &resp.Diagnostics) {
			adoptedWarning(&resp.Diagnostics, "Existing Disk Group Adopted", "Disk group "+g.Name, plan.Endpoint.ValueString()+"/"+sid+"/"+g.ID)
			r.fillFromArray(ctx, &plan, g, &resp.Diagnostics)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}
		return
	} else if !arrays.IsGone(err) {
		redfishError(&resp.Diagnostics, path.Root("name"), "Cannot Look For An Existing Disk Group", err)
		return
	}
	var ids []string
	if !plan.DriveIDs.IsUnknown() && !plan.DriveIDs.IsNull() {
		resp.Diagnostics.Append(plan.DriveIDs.ElementsAs(ctx, &ids, false)...)
	} else {
		n := int(plan.DriveCount.ValueInt64())
		if ids = pickFreeDrives(drives, n, plan.MediaType.ValueString()); len(ids) < n {
			addError(&resp.Diagnostics, path.Root("drive_count"), "Not Enough Free Drives",
				fmt.Sprintf("Only %d free drives of media type %q; lower drive_count or free drives.", len(ids), plan.MediaType.ValueString()), nil)
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	// The client looks the name up again before it posts, and after a lost
	// answer: a group made meanwhile comes back Adopted.
	g, err := a.CreateGroup(ctx, plan.Name.ValueString(), plan.RAIDLevel.ValueString(), ids)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("drive_ids"), "Disk Group Not Created", err)
		return
	}
	if g.Adopted {
		adoptedWarning(&resp.Diagnostics, "Existing Disk Group Adopted", "Disk group "+g.Name, plan.Endpoint.ValueString()+"/"+sid+"/"+g.ID)
	}
	r.fillFromArray(ctx, &plan, g, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *diskGroupResource) readOnArray(ctx context.Context, state diskGroupModel, resp *resource.ReadResponse) {
	a, sid := r.data.arrayFor(ctx, state.Endpoint.ValueString(), state.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	g, err := a.ReadGroup(ctx, poolIDOf(state))
	if arrays.IsGone(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot Read The Disk Group", err)
		return
	}
	state.StorageID = types.StringValue(sid)
	r.fillFromArray(ctx, &state, g, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// planOnArray is ModifyPlan's create check on an E-Series endpoint: the
// name SANtricity takes, a level and drive count the array offers, a
// same-named group that is the configured one, drives that are on the
// array, free and of one media type.
func (r *diskGroupResource) planOnArray(ctx context.Context, plan diskGroupModel, replaced string, resp *resource.ModifyPlanResponse) {
	checkESeriesName(path.Root("name"), plan.Name, &resp.Diagnostics)
	a, sid := r.data.arrayFor(ctx, plan.Endpoint.ValueString(), plan.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("storage_id"), sid)...)
	level := plan.RAIDLevel.ValueString()
	if !plan.RAIDLevel.IsUnknown() {
		if err := arrays.CheckLevel(a, level); err != nil {
			addError(&resp.Diagnostics, path.Root("raid_level"), "RAID Level Not Offered", "Choose a level the array offers.", err)
			return
		}
	}
	drives, err := a.Drives(ctx)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("drive_ids"), "Cannot List The Drives", err)
		return
	}
	var existing *arrays.Group
	if !plan.Name.IsUnknown() {
		g, err := a.ReadGroup(ctx, plan.Name.ValueString())
		switch {
		case arrays.IsGone(err):
		case err != nil:
			redfishError(&resp.Diagnostics, path.Root("name"), "Cannot Look For An Existing Disk Group", err)
			return
		case g.ID == replaced:
			existing = g // replaced: destroyed (its drives freed) before the create
		case !r.checkExistingOnArray(ctx, sid, plan, g, drives, &resp.Diagnostics):
			return
		default:
			existing = g
			adoptedWarning(&resp.Diagnostics, "Existing Disk Group Will Be Adopted", "Disk group "+g.Name, plan.Endpoint.ValueString()+"/"+sid+"/"+g.ID)
		}
	}
	var ids []string
	at := path.Root("drive_ids")
	switch {
	case !plan.DriveCount.IsNull() && !plan.DriveCount.IsUnknown():
		at = path.Root("drive_count")
		n := int(plan.DriveCount.ValueInt64())
		ids = pickFreeDrives(drives, n, plan.MediaType.ValueString())
		if existing == nil && len(ids) < n {
			addError(&resp.Diagnostics, at, "Not Enough Free Drives",
				fmt.Sprintf("%s has %d free drives of media type %q, the group needs %d; lower drive_count or free drives.",
					plan.Endpoint.ValueString(), len(ids), plan.MediaType.ValueString(), n), nil)
			return
		}
	case plan.DriveIDs.IsUnknown() || plan.DriveIDs.IsNull():
		return
	default:
		resp.Diagnostics.Append(plan.DriveIDs.ElementsAs(ctx, &ids, true)...)
	}
	if !plan.RAIDLevel.IsUnknown() {
		if err := a.CheckGroup(level, len(ids)); err != nil {
			addError(&resp.Diagnostics, at, "Wrong Drive Count For The RAID Level", "Give the number of drives the RAID level needs on this array.", err)
			return
		}
	}
	if at.Equal(path.Root("drive_ids")) {
		r.planDrivesOnArray(ctx, plan, sid, drives, ids, existing, resp)
	}
	if resp.Diagnostics.HasError() || existing != nil || plan.Name.IsUnknown() || plan.RAIDLevel.IsUnknown() {
		return
	}
	size := map[string]int64{}
	for _, d := range drives {
		size[d.ID] = d.CapacityBytes
	}
	sizes := make([]int64, 0, len(ids))
	for _, id := range ids {
		sizes = append(sizes, size[id])
	}
	if len(sizes) > 0 && slices.Min(sizes) > 0 {
		r.data.PlannedGroups.put(plan.Endpoint.ValueString(), sid, plan.Name.ValueString(), a.GroupCapacity(level, sizes),
			fmt.Sprintf("%s over %d drives of at least %d bytes", level, len(sizes), slices.Min(sizes)))
	}
}

func (r *diskGroupResource) planDrivesOnArray(_ context.Context, plan diskGroupModel, sid string, drives []arrays.Drive, ids []string, existing *arrays.Group, resp *resource.ModifyPlanResponse) {
	byID := map[string]arrays.Drive{}
	for _, d := range drives {
		byID[d.ID] = d
	}
	media := ""
	for i, id := range ids {
		at := path.Root("drive_ids").AtListIndex(i)
		d, ok := byID[id]
		switch {
		case !ok:
			addError(&resp.Diagnostics, at, "Unknown Drive", fmt.Sprintf("Drive %q is not on %s; use an id from data.hpcstorage_drives "+
				"(tray.slot on E-Series, e.g. 99.0).", id, plan.Endpoint.ValueString()), nil)
		case d.GroupID != "" && (existing == nil || d.GroupID != existing.ID):
			addError(&resp.Diagnostics, at, "Drive Already In A Disk Group", fmt.Sprintf("Drive %q belongs to volume group %s; choose a free drive.", id, d.GroupID), nil)
		case d.Spare:
			addError(&resp.Diagnostics, at, "Drive Is A Spare", fmt.Sprintf("Drive %q is a hot spare; remove it from hpcstorage_spare_drives first.", id), nil)
		case media != "" && d.MediaType != media:
			addError(&resp.Diagnostics, at, "Mixed Media Types", fmt.Sprintf("Drive %q is %s while the others are %s; a disk group takes one media type.", id, d.MediaType, media), nil)
		default:
			media = d.MediaType
		}
		if other, ok := r.data.DriveClaims.claim(plan.Endpoint.ValueString(), sid, id, "disk group "+plan.Name.ValueString()); !ok {
			addError(&resp.Diagnostics, at, "Drive Planned Twice", fmt.Sprintf("Drive %q is also planned for %s; a drive can serve one group or be a spare.", id, other), nil)
		}
	}
}

// checkExistingOnArray is checkExisting for a group read through
// internal/arrays.
func (r *diskGroupResource) checkExistingOnArray(ctx context.Context, sid string, plan diskGroupModel, g *arrays.Group, drives []arrays.Drive, diags *diag.Diagnostics) bool {
	var why []string
	at := path.Root("name")
	differs := func(attr, msg string) {
		why = append(why, msg)
		at = path.Root(attr)
		if len(why) > 1 {
			at = path.Root("name")
		}
	}
	if !plan.RAIDLevel.IsUnknown() && g.RAIDLevel != plan.RAIDLevel.ValueString() {
		differs("raid_level", fmt.Sprintf("it is %s, not %s", g.RAIDLevel, plan.RAIDLevel.ValueString()))
	}
	switch {
	case !plan.DriveIDs.IsNull() && !plan.DriveIDs.IsUnknown():
		var ids []string
		diags.Append(plan.DriveIDs.ElementsAs(ctx, &ids, true)...)
		if !sameMembers(ids, g.DriveIDs) {
			differs("drive_ids", fmt.Sprintf("its drives are %s, not %s", strings.Join(sorted(g.DriveIDs), ", "), strings.Join(sorted(ids), ", ")))
		}
	case !plan.DriveCount.IsNull() && !plan.DriveCount.IsUnknown():
		if n := int(plan.DriveCount.ValueInt64()); len(g.DriveIDs) != n {
			differs("drive_count", fmt.Sprintf("it has %d drives, not %d", len(g.DriveIDs), n))
		}
		if media := plan.MediaType.ValueString(); media != "" {
			for _, d := range drives {
				if slices.Contains(g.DriveIDs, d.ID) && !strings.EqualFold(d.MediaType, media) {
					differs("media_type", fmt.Sprintf("drive %s is %s, not %s", d.ID, d.MediaType, media))
					break
				}
			}
		}
	}
	if len(why) == 0 {
		return true
	}
	existsError(diags, at, "Disk Group Already Exists", fmt.Sprintf("Volume group %q (%s)", g.Name, g.ID), strings.Join(why, "; "),
		"hpcstorage_disk_group", plan.Endpoint.ValueString()+"/"+sid+"/"+g.ID)
	return false
}

func (r *diskGroupResource) fillFromArray(ctx context.Context, m *diskGroupModel, g *arrays.Group, diags *diag.Diagnostics) {
	m.ID = types.StringValue(m.Endpoint.ValueString() + "/" + m.StorageID.ValueString() + "/" + g.ID)
	m.Name = types.StringValue(g.Name)
	m.RAIDLevel = types.StringValue(g.RAIDLevel)
	m.CapacityBytes = types.Int64Value(g.CapacityBytes)
	var prior []string
	if !m.DriveIDs.IsNull() && !m.DriveIDs.IsUnknown() {
		diags.Append(m.DriveIDs.ElementsAs(ctx, &prior, false)...)
	}
	if sameMembers(prior, g.DriveIDs) {
		return
	}
	lv, d := types.ListValueFrom(ctx, types.StringType, nonNil(g.DriveIDs))
	diags.Append(d...)
	m.DriveIDs = lv
}
