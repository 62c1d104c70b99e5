package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
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

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

var (
	_ resource.Resource                = (*spareDrivesResource)(nil)
	_ resource.ResourceWithConfigure   = (*spareDrivesResource)(nil)
	_ resource.ResourceWithImportState = (*spareDrivesResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*spareDrivesResource)(nil)
)

// NewSpareDrivesResource manages the global spares of an array.
func NewSpareDrivesResource() resource.Resource { return &spareDrivesResource{} }

type spareDrivesResource struct{ data *providerData }

type spareDrivesModel struct {
	ID        types.String `tfsdk:"id"`
	Endpoint  types.String `tfsdk:"endpoint"`
	StorageID types.String `tfsdk:"storage_id"`
	DriveIDs  types.Set    `tfsdk:"drive_ids"`
}

func (r *spareDrivesResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_spare_drives"
}

func (r *spareDrivesResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The global spare drives of an array: the array rebuilds a failed member of any disk group " +
			"onto one of them. Use one resource per array, e.g. with `spare_drive_ids` of `data.hpcstorage_array_layout`. " +
			"Destroy turns them back into plain free drives. On create, configured drives that are already global spares " +
			"are adopted; a global spare the configuration does not list fails the plan with the `terraform import` command. " +
			"On an E-Series endpoint the drives are SANtricity hot spares (`<tray>.<slot>`), which are global by nature; a " +
			"spare that has taken a failed drive's place belongs to that volume group and drops out of `drive_ids` (the " +
			"next plan shows it, to pick a new spare). DDP pools keep their own reconstruction capacity and need no spares. " +
			"Import id `<endpoint>/1`.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the array in the provider's `endpoints` map.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"storage_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Id of the Storage resource. Default: the only one of the endpoint.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}},
			"drive_ids": schema.SetAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Drives to keep as global spares. A drive in a disk group cannot be one (plan error).",
				Validators:          []validator.Set{setvalidator.SizeAtLeast(1)}},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<endpoint>/<storage_id>`, also the import id.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		},
	}
}

func (r *spareDrivesResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (r *spareDrivesResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan spareDrivesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		r.applyOnArray(ctx, plan, nil, true, &resp.State, &resp.Diagnostics)
		return
	}
	ep, sid := arrayOf(ctx, r.data, plan.Endpoint, plan.StorageID, &resp.Diagnostics)
	if ep == nil {
		return
	}
	plan.StorageID = types.StringValue(sid)
	plan.ID = types.StringValue(plan.Endpoint.ValueString() + "/" + sid)
	want := setStrings(ctx, plan.DriveIDs, &resp.Diagnostics)
	// Spares an earlier run set before it stopped are adopted; others are
	// not this configuration's to take.
	drives, err := ep.Drives(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot List The Drives", err)
		return
	}
	if !checkExistingSpares(plan, sid, drives, want, false, &resp.Diagnostics) {
		return
	}
	r.sync(ctx, ep, sid, nil, want, &resp.Diagnostics)
	r.readInto(ctx, ep, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *spareDrivesResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state spareDrivesModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(state.Endpoint.ValueString()) {
		if a, sid := r.data.arrayFor(ctx, state.Endpoint.ValueString(), state.StorageID, &resp.Diagnostics); a != nil {
			state.StorageID = types.StringValue(sid)
			r.readFromArray(ctx, a, &state, &resp.Diagnostics)
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		}
		return
	}
	ep := r.data.endpoint(state.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	r.readInto(ctx, ep, &state, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *spareDrivesResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state spareDrivesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		plan.StorageID, plan.ID = state.StorageID, state.ID
		r.applyOnArray(ctx, plan, setStrings(ctx, state.DriveIDs, &resp.Diagnostics), false, &resp.State, &resp.Diagnostics)
		return
	}
	ep := r.data.endpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	sid := state.StorageID.ValueString()
	plan.StorageID, plan.ID = state.StorageID, state.ID
	r.sync(ctx, ep, sid, setStrings(ctx, state.DriveIDs, &resp.Diagnostics), setStrings(ctx, plan.DriveIDs, &resp.Diagnostics), &resp.Diagnostics)
	r.readInto(ctx, ep, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *spareDrivesResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state spareDrivesModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data.speaksSantricity(state.Endpoint.ValueString()) {
		if a, _ := r.data.arrayFor(ctx, state.Endpoint.ValueString(), state.StorageID, &resp.Diagnostics); a != nil {
			r.syncOnArray(ctx, a, setStrings(ctx, state.DriveIDs, &resp.Diagnostics), nil, &resp.Diagnostics)
		}
		return
	}
	ep := r.data.endpoint(state.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	r.sync(ctx, ep, state.StorageID.ValueString(), setStrings(ctx, state.DriveIDs, &resp.Diagnostics), nil, &resp.Diagnostics)
}

// ImportState takes <endpoint>/<storage-id> and adopts every global spare.
func (r *spareDrivesResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ep, sid, err := splitImportID(req.ID, "<endpoint>/<storage-id>, e.g. me4084-1/controller_a")
	if err != nil {
		addError(&resp.Diagnostics, path.Empty(), "Invalid Import ID", "Use <endpoint>/<storage-id>.", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("endpoint"), ep)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("storage_id"), sid)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("drive_ids"), types.SetNull(types.StringType))...)
}

// ModifyPlan refuses drives that are not on the array or sit in a disk group.
func (r *spareDrivesResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan spareDrivesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Endpoint.IsUnknown() || plan.DriveIDs.IsUnknown() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state spareDrivesModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if state.DriveIDs.Equal(plan.DriveIDs) {
			return
		}
	}
	if r.data.Deferred[plan.Endpoint.ValueString()] {
		return
	}
	if r.data.speaksSantricity(plan.Endpoint.ValueString()) {
		r.planOnArray(ctx, plan, req.State.Raw.IsNull(), resp)
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
	drives, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("drive_ids"), "Cannot List The Drives", err)
		return
	}
	if req.State.Raw.IsNull() && !checkExistingSpares(plan, sid, drives, setStrings(ctx, plan.DriveIDs, &resp.Diagnostics), true, &resp.Diagnostics) {
		return
	}
	byID := map[string]redfish.Drive{}
	for _, d := range drives {
		byID[d.ID] = d
	}
	for _, id := range setStrings(ctx, plan.DriveIDs, &resp.Diagnostics) {
		at := path.Root("drive_ids").AtSetValue(types.StringValue(id))
		if d, ok := byID[id]; !ok {
			addError(&resp.Diagnostics, at, "Unknown Drive", fmt.Sprintf("Drive %q is not on %s.", id, plan.Endpoint.ValueString()), nil)
		} else if d.PoolURI != "" {
			addError(&resp.Diagnostics, at, "Drive In A Disk Group", fmt.Sprintf("Drive %q belongs to %s and cannot be a spare.", id, d.PoolURI), nil)
		}
		if other, ok := r.data.DriveClaims.claim(plan.Endpoint.ValueString(), sid, id, "the global spares"); !ok {
			addError(&resp.Diagnostics, at, "Drive Planned Twice", fmt.Sprintf("Drive %q is also planned for %s; a drive can serve one group or be a spare.", id, other), nil)
		}
	}
}

// helpers

// checkExistingSpares looks, on create, at the global spares already set on
// the array: the configured ones are adopted (with a warning); any other
// means the array's spares are managed elsewhere, reported with the import
// command of this resource.
func checkExistingSpares(plan spareDrivesModel, sid string, drives []redfish.Drive, want []string, planning bool, diags *diag.Diagnostics) bool {
	var adopted, foreign []string
	for _, d := range drives {
		if d.HotspareType != "Global" {
			continue
		}
		if slices.Contains(want, d.ID) {
			adopted = append(adopted, d.ID)
		} else {
			foreign = append(foreign, d.ID)
		}
	}
	importID := plan.Endpoint.ValueString() + "/" + sid
	if len(foreign) > 0 {
		existsError(diags, path.Root("drive_ids"), "Global Spares Already Set", fmt.Sprintf("The global spare set of %s", importID),
			fmt.Sprintf("it holds %s, which drive_ids does not list", strings.Join(foreign, ", ")), "hpcstorage_spare_drives", importID)
		return false
	}
	if len(adopted) > 0 {
		summary := "Existing Global Spares Adopted"
		if planning {
			summary = "Existing Global Spares Will Be Adopted"
		}
		adoptedWarning(diags, summary, "Global spare(s) "+strings.Join(adopted, ", "), importID)
	}
	return true
}

func setStrings(ctx context.Context, s types.Set, diags *diag.Diagnostics) []string {
	var out []string
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	diags.Append(s.ElementsAs(ctx, &out, false)...)
	sort.Strings(out)
	return out
}

// sync makes exactly want (of the drives in from or want) global spares.
func (r *spareDrivesResource) sync(ctx context.Context, ep *redfish.Endpoint, sid string, from, want []string, diags *diag.Diagnostics) {
	wanted := map[string]bool{}
	for _, id := range want {
		wanted[id] = true
	}
	for _, id := range from {
		if wanted[id] {
			continue
		}
		d, err := ep.GetDrive(ctx, sid, id)
		if redfish.IsGone(err) {
			continue
		}
		if err == nil {
			err = ep.SetHotspare(ctx, d, "None")
		}
		if err != nil {
			redfishError(diags, path.Root("drive_ids"), "Spare Not Released", err)
			return
		}
	}
	for _, id := range want {
		d, err := ep.GetDrive(ctx, sid, id)
		if err == nil {
			err = ep.SetHotspare(ctx, d, "Global")
		}
		if err != nil {
			redfishError(diags, path.Root("drive_ids"), "Spare Not Set", err)
			return
		}
	}
}

// readInto keeps the managed drives that are still global spares (all of
// them after an import).
func (r *spareDrivesResource) readInto(ctx context.Context, ep *redfish.Endpoint, m *spareDrivesModel, diags *diag.Diagnostics) {
	drives, err := ep.CachedDrives(ctx, m.StorageID.ValueString())
	if err != nil {
		redfishError(diags, path.Empty(), "Cannot List The Drives", err)
		return
	}
	managed := map[string]bool{}
	all := m.DriveIDs.IsNull()
	for _, id := range setStrings(ctx, m.DriveIDs, diags) {
		managed[id] = true
	}
	var vals []attr.Value
	for _, d := range drives {
		if d.HotspareType == "Global" && (all || managed[d.ID]) {
			vals = append(vals, types.StringValue(d.ID))
		}
	}
	m.DriveIDs = types.SetValueMust(types.StringType, vals)
}

// Through internal/arrays: E-Series endpoints, whose hot spares are global
// too (SANtricity has no dedicated spares). A spare that took over a failed
// drive's place belongs to that volume group and leaves this set.

// applyOnArray makes exactly plan's drives the spares (of from or the
// configured ones), after adopting or refusing the spares already set on a
// create.
func (r *spareDrivesResource) applyOnArray(ctx context.Context, plan spareDrivesModel, from []string, create bool, st *tfsdk.State, diags *diag.Diagnostics) {
	a, sid := r.data.arrayFor(ctx, plan.Endpoint.ValueString(), plan.StorageID, diags)
	if a == nil {
		return
	}
	plan.StorageID = types.StringValue(sid)
	plan.ID = types.StringValue(plan.Endpoint.ValueString() + "/" + sid)
	want := setStrings(ctx, plan.DriveIDs, diags)
	if create {
		drives, err := a.Drives(ctx)
		if err != nil {
			redfishError(diags, path.Empty(), "Cannot List The Drives", err)
			return
		}
		if !checkExistingSpares(plan, sid, asRedfishDrives(drives), want, false, diags) {
			return
		}
	}
	r.syncOnArray(ctx, a, from, want, diags)
	r.readFromArray(ctx, a, &plan, diags)
	diags.Append(st.Set(ctx, &plan)...)
}

func (r *spareDrivesResource) syncOnArray(ctx context.Context, a arrays.Array, from, want []string, diags *diag.Diagnostics) {
	var release []string
	for _, id := range from {
		if !slices.Contains(want, id) {
			release = append(release, id)
		}
	}
	if len(release) > 0 {
		if err := a.SetSpares(ctx, release, false); err != nil && !arrays.IsGone(err) {
			redfishError(diags, path.Root("drive_ids"), "Spare Not Released", err)
			return
		}
	}
	if len(want) > 0 {
		if err := a.SetSpares(ctx, want, true); err != nil {
			redfishError(diags, path.Root("drive_ids"), "Spare Not Set", err)
		}
	}
}

func (r *spareDrivesResource) readFromArray(ctx context.Context, a arrays.Array, m *spareDrivesModel, diags *diag.Diagnostics) {
	drives, err := a.Drives(ctx)
	if err != nil {
		redfishError(diags, path.Empty(), "Cannot List The Drives", err)
		return
	}
	managed := map[string]bool{}
	all := m.DriveIDs.IsNull()
	for _, id := range setStrings(ctx, m.DriveIDs, diags) {
		managed[id] = true
	}
	vals := []attr.Value{}
	for _, d := range drives {
		if d.Spare && d.GroupID == "" && (all || managed[d.ID]) {
			vals = append(vals, types.StringValue(d.ID))
		}
	}
	m.DriveIDs = types.SetValueMust(types.StringType, vals)
}

func (r *spareDrivesResource) planOnArray(ctx context.Context, plan spareDrivesModel, create bool, resp *resource.ModifyPlanResponse) {
	a, sid := r.data.arrayFor(ctx, plan.Endpoint.ValueString(), plan.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	drives, err := a.Drives(ctx)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("drive_ids"), "Cannot List The Drives", err)
		return
	}
	want := setStrings(ctx, plan.DriveIDs, &resp.Diagnostics)
	if create && !checkExistingSpares(plan, sid, asRedfishDrives(drives), want, true, &resp.Diagnostics) {
		return
	}
	byID := map[string]arrays.Drive{}
	for _, d := range drives {
		byID[d.ID] = d
	}
	for _, id := range want {
		at := path.Root("drive_ids").AtSetValue(types.StringValue(id))
		if d, ok := byID[id]; !ok {
			addError(&resp.Diagnostics, at, "Unknown Drive", fmt.Sprintf("Drive %q is not on %s (E-Series drives are tray.slot, e.g. 99.23).", id, plan.Endpoint.ValueString()), nil)
		} else if d.GroupID != "" {
			addError(&resp.Diagnostics, at, "Drive In A Disk Group", fmt.Sprintf("Drive %q belongs to volume group %s and cannot be a spare.", id, d.GroupID), nil)
		}
		if other, ok := r.data.DriveClaims.claim(plan.Endpoint.ValueString(), sid, id, "the global spares"); !ok {
			addError(&resp.Diagnostics, at, "Drive Planned Twice", fmt.Sprintf("Drive %q is also planned for %s; a drive can serve one group or be a spare.", id, other), nil)
		}
	}
}

// asRedfishDrives gives checkExistingSpares the spare state it reads: a
// free E-Series hot spare is a global spare.
func asRedfishDrives(ds []arrays.Drive) []redfish.Drive {
	out := make([]redfish.Drive, len(ds))
	for i, d := range ds {
		out[i] = redfish.Drive{ID: d.ID, HotspareType: "None"}
		if d.Spare && d.GroupID == "" {
			out[i].HotspareType = "Global"
		}
	}
	return out
}
