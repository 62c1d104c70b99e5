package provider

import (
	"context"
	"fmt"
	pathpkg "path"
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
			"which destroys its volumes first. Destroy is refused by the array while volumes remain.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the array in the provider's `endpoints` map."},
			"storage_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: storageIDDoc,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Disk group name (letters, digits, `_`, `.`, `-`; at most 32).",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 32),
					stringvalidator.RegexMatches(validName, "letters, digits, _ . - only")}},
			"raid_level": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "RAID level; drive counts: " + strings.Join(rules, "; ") + ".",
				Validators:          []validator.String{stringvalidator.OneOf(layout.LevelStrings()...)}},
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
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<endpoint>/<storage_id>/<pool id>`, also the import id.",
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
	ep, sid := arrayOf(ctx, r.data, plan.Endpoint, plan.StorageID, &resp.Diagnostics)
	if ep == nil {
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
	plan.StorageID = types.StringValue(sid)
	r.fill(ctx, &plan, p, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *diskGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state diskGroupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
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

// ModifyPlan checks the named drives against the array on create: they
// must exist, be free (not in a group, not spares) and share a media type.
func (r *diskGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() || r.data == nil {
		return
	}
	var plan diskGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Endpoint.IsUnknown() {
		return
	}
	ep := r.data.planEndpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil || plan.DriveIDs.IsUnknown() || plan.DriveIDs.IsNull() {
		return
	}
	var ids []string
	resp.Diagnostics.Append(plan.DriveIDs.ElementsAs(ctx, &ids, true)...)
	if resp.Diagnostics.HasError() {
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
	drives, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("drive_ids"), "Cannot List The Drives", err)
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
		// A drive of the group this plan replaces (same name) is fine.
		case d.PoolURI != "" && pathpkg.Base(d.PoolURI) != plan.Name.ValueString():
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
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("storage_id"), sid)...)
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
