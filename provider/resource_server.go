package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/day2"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/firmware"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

var (
	_ resource.Resource                   = (*serverResource)(nil)
	_ resource.ResourceWithConfigure      = (*serverResource)(nil)
	_ resource.ResourceWithImportState    = (*serverResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*serverResource)(nil)
	_ resource.ResourceWithValidateConfig = (*serverResource)(nil)
)

// Enums, defined once for validators and docs.
var (
	powerStates     = []string{"On", "Off"}
	bootEnabledVals = []string{"Disabled", "Once", "Continuous"}
	bootModes       = []string{"UEFI", "Legacy"}
	bootTargets     = []string{"None", "Pxe", "Hdd", "Cd", "Usb", "BiosSetup", "UefiHttp", "UefiShell", "UefiTarget", "Diags", "Utilities", "SDCard", "RemoteDrive"}
)

// The server's apply_timeout: its default and bounds.
const (
	defaultApplyTimeout = 30 * time.Minute
	minApplyTimeout     = 10 * time.Second
	maxApplyTimeout     = 2 * time.Hour
)

// applyTimeout is the validated apply_timeout (the default when unset).
func applyTimeout(v types.String) time.Duration {
	if d, err := time.ParseDuration(v.ValueString()); err == nil && d > 0 {
		return d
	}
	return defaultApplyTimeout
}

var imageURIRE = regexp.MustCompile(`^(?i)(https?|nfs|cifs|tftp)://\S+$`)

// NewServerResource manages one server through its BMC.
func NewServerResource() resource.Resource { return &serverResource{} }

type serverResource struct{ data *providerData }

type serverResourceModel struct {
	ID                 types.String        `tfsdk:"id"`
	Endpoint           types.String        `tfsdk:"endpoint"`
	SystemID           types.String        `tfsdk:"system_id"`
	PowerState         types.String        `tfsdk:"power_state"`
	BiosAttributes     types.Map           `tfsdk:"bios_attributes"`
	BiosPending        types.Map           `tfsdk:"bios_pending"`
	BootSourceOverride *bootOverrideModel  `tfsdk:"boot_source_override"`
	ApplyTimeout       types.String        `tfsdk:"apply_timeout"`
	Firmware           []firmwareModel     `tfsdk:"firmware"`
	FailureDomain      *failureDomainModel `tfsdk:"failure_domain"`
	MaintenancePending types.Bool          `tfsdk:"maintenance_pending"`
	Manufacturer       types.String        `tfsdk:"manufacturer"`
	Model              types.String        `tfsdk:"model"`
	SerialNumber       types.String        `tfsdk:"serial_number"`
	BiosVersion        types.String        `tfsdk:"bios_version"`
	CPUCount           types.Int64         `tfsdk:"cpu_count"`
	CoreCount          types.Int64         `tfsdk:"core_count"`
	NUMADomains        types.Int64         `tfsdk:"numa_domains"`
	MemoryGiB          types.Float64       `tfsdk:"memory_gib"`
	NICMACs            types.List          `tfsdk:"nic_macs"`
}

type firmwareModel struct {
	Component        types.String `tfsdk:"component"`
	Version          types.String `tfsdk:"version"`
	ImageURI         types.String `tfsdk:"image_uri"`
	TransferProtocol types.String `tfsdk:"transfer_protocol"`
	Models           types.List   `tfsdk:"models"`
}

type bootOverrideModel struct {
	Target  types.String `tfsdk:"target"`
	Enabled types.String `tfsdk:"enabled"`
	Mode    types.String `tfsdk:"mode"`
}

func (r *serverResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_server"
}

func (r *serverResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A server managed through its BMC (Redfish): power, BIOS attributes checked against the " +
			"BMC's own attribute registry at plan time, boot source override, and inventory. BIOS changes of one apply " +
			"cause at most one reboot of the server; the provider then waits until every value has landed. Destroying " +
			"the resource only forgets the server: it stays powered as it is and keeps its BIOS settings.",
		Attributes: map[string]schema.Attribute{
			// Required.
			"endpoint": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the BMC in the provider's `endpoints` map.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			// Optional.
			"system_id": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Id of the ComputerSystem (`System.Embedded.1` on iDRAC). Default: the only system of " +
					"the BMC; a BMC with several systems needs it (the provider never guesses).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"power_state": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Wanted power state: " + backtickList(powerStates) + ". Off is a graceful shutdown, forced " +
					"after half of `apply_timeout`. Unset: not managed, the observed state is reported.",
				Validators:    []validator.String{stringvalidator.OneOf(powerStates...)},
				PlanModifiers: keep,
			},
			"bios_attributes": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "BIOS attributes to enforce, by the BMC's attribute names (e.g. `SysProfile`, " +
					"`LogicalProc`, `SubNumaCluster` on iDRAC). Values are written as strings and sent with the registry's " +
					"type (integers and booleans included). Unknown names, wrong types and values the registry does not " +
					"allow fail the plan on that key. Only these keys are read back, so a change made by hand shows in the " +
					"next plan; other attributes are left alone.",
			},
			"boot_source_override": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Boot source override. A `Once` override is consumed by the next boot (the BMC then reports " +
					"`Disabled`); that is not drift, so the next plan shows no change and no later apply arms it again (a second, " +
					"unplanned boot from that target). To boot from it once more, change the override, or apply with " +
					"`-replace` on this resource (destroying it only forgets the server).",
				Attributes: map[string]schema.Attribute{
					"target": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Boot source: " + backtickList(bootTargets) + " (the BMC may offer fewer).",
						Validators:          []validator.String{stringvalidator.OneOf(bootTargets...)},
					},
					"enabled": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Override mode: " + backtickList(bootEnabledVals) + ".",
						Validators:          []validator.String{stringvalidator.OneOf(bootEnabledVals...)},
					},
					"mode": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Firmware boot mode: " + backtickList(bootModes) + ". Unset: left as the BMC has it.",
						Validators:          []validator.String{stringvalidator.OneOf(bootModes...)},
					},
				},
			},
			"apply_timeout": schema.StringAttribute{
				Optional: true, Computed: true,
				Default: stringdefault.StaticString(shortDuration(defaultApplyTimeout)),
				MarkdownDescription: fmt.Sprintf("How long to wait for a reboot to apply BIOS settings or for a power change, "+
					"as a Go duration (`45m`), from %s to %s. Default `%s`.", shortDuration(minApplyTimeout), shortDuration(maxApplyTimeout), shortDuration(defaultApplyTimeout)),
				Validators: []validator.String{durationValidator{min: minApplyTimeout, max: maxApplyTimeout}},
			},
			"firmware": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Firmware the server runs, per component, updated through the BMC's UpdateService " +
					"(SimpleUpdate with the image's URI). A component already at `version` is left alone, whatever the " +
					"image. Firmware that runs only after a reboot (the BIOS) is staged, then the server reboots once for " +
					"all of it and for a BIOS change of the same apply, inside its `failure_domain` sequence when it has " +
					"one. The version each component runs is read back, so a change made by hand shows in the next plan " +
					"(this reads the BMC's firmware inventory at every refresh).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"component": schema.StringAttribute{Required: true,
						MarkdownDescription: "`BIOS`, `BMC`, or a component's inventory id, name, software id or Dell FQDD " +
							"(`BIOS.Setup.1-1`).",
						Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
					"version": schema.StringAttribute{Required: true,
						MarkdownDescription: "The version the image carries, as the inventory reports it (`2.12.2`).",
						Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
					"image_uri": schema.StringAttribute{Required: true,
						MarkdownDescription: "Where the BMC fetches the image (HTTP, HTTPS, NFS, CIFS or TFTP URI).",
						Validators:          []validator.String{stringvalidator.RegexMatches(imageURIRE, "must be an http, https, nfs, cifs or tftp URI")}},
					"transfer_protocol": schema.StringAttribute{Optional: true,
						MarkdownDescription: "SimpleUpdate's `TransferProtocol`. Unset: taken from the URI's scheme."},
					"models": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "The system models the image is for (`PowerEdge R740`); the plan refuses an " +
							"image for another model than the server's."},
				}},
			},
			"failure_domain": failureDomainSchema(),
			// Computed.
			"maintenance_pending": schema.BoolAttribute{
				Computed: true,
				MarkdownDescription: "True when a maintenance sequence of this server's `failure_domain` stopped half-way " +
					"(a timeout, a killed run): the server still holds the domain's lock and may be out of service. The " +
					"plan then shows an update, and the apply resumes the sequence from where it stopped.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "`<endpoint>/<system_id>`, also the import id.", PlanModifiers: keep,
			},
			"bios_pending": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "BIOS values the BMC holds for the next reboot (any attribute, managed or not).",
			},
			"manufacturer":  schema.StringAttribute{Computed: true, MarkdownDescription: "Manufacturer.", PlanModifiers: keep},
			"model":         schema.StringAttribute{Computed: true, MarkdownDescription: "Model.", PlanModifiers: keep},
			"serial_number": schema.StringAttribute{Computed: true, MarkdownDescription: "Serial number (service tag).", PlanModifiers: keep},
			"bios_version":  schema.StringAttribute{Computed: true, MarkdownDescription: "BIOS version.", PlanModifiers: keep},
			"cpu_count":     schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU sockets populated.", PlanModifiers: keepInt},
			"core_count":    schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU cores in total.", PlanModifiers: keepInt},
			"numa_domains": schema.Int64Attribute{Computed: true, PlanModifiers: keepInt,
				MarkdownDescription: "NUMA domains, when the BMC publishes them (0 otherwise)."},
			"memory_gib": schema.Float64Attribute{Computed: true, MarkdownDescription: "Installed memory in GiB.",
				PlanModifiers: []planmodifier.Float64{float64planmodifier.UseStateForUnknown()}},
			"nic_macs": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "MAC addresses of the Ethernet interfaces, read at create and import.",
				PlanModifiers:       []planmodifier.List{listplanmodifier.UseStateForUnknown()}},
		},
	}
}

func (r *serverResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (r *serverResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan serverResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ep := r.data.endpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	id, err := ep.FindSystem(ctx, plan.SystemID.ValueString())
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("system_id"), "Cannot Find The Server", err)
		return
	}
	plan.SystemID = types.StringValue(id)
	plan.NICMACs = types.ListNull(types.StringType)
	plan.MaintenancePending = types.BoolValue(false)
	r.apply(ctx, ep, &plan, nil, false, false, resp.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		// Keep what was done in state so the next plan starts from the truth.
		r.read(ctx, ep, &plan, resp.Private, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	r.read(ctx, ep, &plan, resp.Private, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *serverResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state serverResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ep := r.data.endpoint(state.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	if !r.read(ctx, ep, &state, resp.Private, &resp.Diagnostics) {
		resp.State.RemoveResource(ctx)
		return
	}
	r.readPending(ctx, &state, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *serverResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state serverResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ep := r.data.endpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	plan.NICMACs = state.NICMACs
	plan.MaintenancePending = types.BoolValue(false)
	r.apply(ctx, ep, &plan, state.BootSourceOverride, true, state.MaintenancePending.ValueBool(), resp.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		// A stopped sequence keeps the domain's lock: say so in state.
		r.readPending(ctx, &plan, &resp.Diagnostics)
	}
	r.read(ctx, ep, &plan, resp.Private, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the server: it keeps running with its settings.
func (r *serverResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

func (r *serverResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ep, sys, err := splitImportID(req.ID, "<endpoint>/<system-id>, e.g. meta1-bmc/System.Embedded.1")
	if err != nil {
		addError(&resp.Diagnostics, path.Empty(), "Invalid Import ID", "Use <endpoint>/<system-id>; the endpoint is a name from the provider's endpoints map.", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("endpoint"), ep)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("system_id"), sys)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("apply_timeout"), shortDuration(defaultApplyTimeout))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("bios_attributes"), types.MapNull(types.StringType))...)
}

func (r *serverResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var attrs types.Map
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bios_attributes"), &attrs)...)
	for k := range attrs.Elements() {
		if strings.TrimSpace(k) == "" {
			resp.Diagnostics.AddAttributeError(path.Root("bios_attributes"), "Empty BIOS Attribute Name", "Remove the empty key.")
		}
	}
}

// ModifyPlan checks BIOS attributes against the BMC's registry, so a typo
// fails the plan instead of half an apply. It reads the BMC only when the
// attributes change, which keeps no-op plans cheap.
func (r *serverResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan serverResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Endpoint.IsUnknown() {
		return
	}
	// A misspelt endpoint name fails the plan, without any request.
	ep := r.data.planEndpoint(plan.Endpoint.ValueString(), path.Root("endpoint"), &resp.Diagnostics)
	if ep == nil {
		return
	}
	var state *serverResourceModel
	if !req.State.Raw.IsNull() {
		state = &serverResourceModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	sysID := ""
	if !plan.SystemID.IsUnknown() {
		sysID = plan.SystemID.ValueString()
	}
	r.planBios(ctx, ep, sysID, &plan, state, req.Private, resp)
	r.planBoot(ctx, ep, sysID, &plan, state, resp)
	planFirmware(ctx, ep, sysID, &plan, state, &resp.Diagnostics)
	if state != nil && !sameFirmware(plan.Firmware, state.Firmware) {
		// New firmware is what the BMC reports as the BIOS version.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("bios_version"), types.StringUnknown())...)
	}
	r.planMaintenance(ctx, &plan, state, resp)
}

// planMaintenance says in the plan what a change that reboots this
// member of a failure domain will do, and resumes a stopped sequence.
func (r *serverResource) planMaintenance(ctx context.Context, plan, state *serverResourceModel, resp *resource.ModifyPlanResponse) {
	f := plan.FailureDomain
	if f == nil {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("maintenance_pending"), types.BoolValue(false))...)
		return
	}
	if !f.known() {
		return
	}
	m := f.member()
	if state != nil && state.MaintenancePending.ValueBool() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("maintenance_pending"), types.BoolValue(false))...)
		resp.Diagnostics.AddAttributeWarning(path.Root("failure_domain"), fmt.Sprintf("%s Resumes Its Maintenance In %s", m.Node, m.Domain),
			"A maintenance sequence of this server stopped half-way and it still holds the domain's lock; this apply "+
				"resumes it:\n"+sequenceText(m, "apply what is left of the change (no reboot if the BMC already has the values)"))
		return
	}
	if state != nil && rebootPlanned(plan, state) && r.data != nil && r.data.Nodes != nil {
		// The domain's own check, read-only: a domain that can never lose
		// this member (a two-node GPFS cluster without tiebreaker disks, a
		// pool the other hosts cannot hold) fails the plan.
		err := day2.Precheck(ctx, nodeRunner{nodes: r.data.Nodes, owner: day2Owner(m.Domain)}, m)
		switch {
		case errors.Is(err, day2.ErrRefused):
			addError(&resp.Diagnostics, path.Root("failure_domain"), "Failure Domain Cannot Lose This Server",
				fmt.Sprintf("This change reboots %s, and its domain %q as built cannot keep its service without it.", m.Node, m.Domain), err)
			return
		case errors.Is(err, day2.ErrNoCluster):
			// Not formed yet, or stopped: the apply says so when it changes it.
		case err != nil:
			resp.Diagnostics.AddAttributeWarning(path.Root("failure_domain"), fmt.Sprintf("%s Cannot Leave Failure Domain %s Now", m.Node, m.Domain),
				fmt.Sprintf("The domain's check says %v. The apply waits (failure_domain.timeout) for it to pass before it takes %s out.", err, m.Node))
		}
	}
	if state != nil && rebootPlanned(plan, state) {
		// Terraform folds warnings with one summary into one: each member
		// gets its own, so the plan shows every server that goes.
		resp.Diagnostics.AddAttributeWarning(path.Root("failure_domain"), fmt.Sprintf("%s Reboots In Failure Domain %s", m.Node, m.Domain),
			sequenceText(m, "apply the BIOS and firmware changes and reboot "+m.Node+" through its BMC (once)"))
	}
	if state == nil || state.MaintenancePending.IsNull() || state.MaintenancePending.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("maintenance_pending"), types.BoolValue(false))...)
	}
}

// rebootPlanned: the plan changes BIOS values, which takes a reboot.
func rebootPlanned(plan, state *serverResourceModel) bool {
	if !sameFirmware(plan.Firmware, state.Firmware) {
		return true
	}
	if plan.BiosAttributes.IsNull() {
		return false
	}
	if plan.BiosAttributes.IsUnknown() {
		return true
	}
	return !plan.BiosAttributes.Equal(state.BiosAttributes)
}

// sameFirmware: the same components at the same versions (the state's
// versions are the running ones).
func sameFirmware(a, b []firmwareModel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Component.Equal(b[i].Component) || !a[i].Version.Equal(b[i].Version) {
			return false
		}
	}
	return true
}

// planFirmware refuses an image for another model than the server's
// (from the state, or read from the BMC for a new server).
func planFirmware(ctx context.Context, ep *redfish.Endpoint, sysID string, plan, state *serverResourceModel, diags *diag.Diagnostics) {
	if state != nil && sameFirmware(plan.Firmware, state.Firmware) {
		return
	}
	model := ""
	if state != nil {
		model = state.Model.ValueString()
	}
	for i, f := range plan.Firmware {
		if f.Models.IsNull() || f.Models.IsUnknown() {
			continue
		}
		if model == "" {
			id, err := ep.FindSystem(ctx, sysID)
			if err != nil {
				return // reported by apply
			}
			sys, err := ep.GetSystem(ctx, id)
			if err != nil {
				return
			}
			model = sys.Model
		}
		var models []string
		diags.Append(f.Models.ElementsAs(ctx, &models, false)...)
		img := firmware.Image{URI: f.ImageURI.ValueString(), Component: f.Component.ValueString(), Version: f.Version.ValueString(), Models: models}
		if err := firmware.CheckImageModel(img, model); err != nil {
			addError(diags, path.Root("firmware").AtListIndex(i).AtName("models"), "Firmware Image For Another Model",
				fmt.Sprintf("The image %s is not for this server.", f.ImageURI.ValueString()), err)
		}
	}
}

// readPending asks the domain whether this server holds its lock (a
// sequence that stopped half-way); a node that does not answer keeps
// what the state says, with a warning.
func (r *serverResource) readPending(ctx context.Context, m *serverResourceModel, diags *diag.Diagnostics) {
	f := m.FailureDomain
	if f == nil || !f.known() || r.data == nil || r.data.Nodes == nil {
		m.MaintenancePending = types.BoolValue(false)
		return
	}
	pending, err := day2.Pending(ctx, nodeRunner{nodes: r.data.Nodes, owner: day2Owner(f.Name.ValueString())}, f.member())
	if err != nil {
		diags.AddAttributeWarning(path.Root("failure_domain"), "Failure Domain Not Read",
			fmt.Sprintf("Whether a maintenance sequence of %s stopped half-way could not be read: %v", f.Node.ValueString(), err))
		if m.MaintenancePending.IsNull() || m.MaintenancePending.IsUnknown() {
			m.MaintenancePending = types.BoolValue(false)
		}
		return
	}
	m.MaintenancePending = types.BoolValue(pending)
}

// helpers

// planBios checks changed BIOS attributes against the registry.
func (r *serverResource) planBios(ctx context.Context, ep *redfish.Endpoint, sysID string, plan, state *serverResourceModel, priv privateState, resp *resource.ModifyPlanResponse) {
	if plan.BiosAttributes.IsNull() || plan.BiosAttributes.IsUnknown() {
		return
	}
	if state != nil {
		if state.BiosAttributes.Equal(plan.BiosAttributes) {
			return
		}
		// BIOS settings change what the host reports (sub-NUMA clustering
		// splits NUMA domains, mirroring hides memory): known after apply.
		for _, a := range []string{"numa_domains", "core_count"} {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(a), types.Int64Unknown())...)
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("memory_gib"), types.Float64Unknown())...)
	}
	want, ok := knownStringMap(plan.BiosAttributes)
	if !ok {
		return // unknown values: checked at apply
	}
	hint := readURIs(ctx, priv)
	reg, err := registryFor(ctx, ep, sysID, hint)
	switch {
	case errors.Is(err, redfish.ErrNoBios):
		addError(&resp.Diagnostics, path.Root("bios_attributes"), "Server Has No BIOS Resource",
			"This system publishes no Bios resource, so its BIOS cannot be managed through the BMC; remove bios_attributes "+
				"(the other settings of the server are still managed).", err)
		return
	case errors.Is(err, redfish.ErrNoRegistry):
		resp.Diagnostics.AddAttributeWarning(path.Root("bios_attributes"), "BIOS Attributes Not Checked At Plan Time",
			"No BIOS attribute registry could be found on the BMC, so names and values are checked against the current "+
				"BIOS at apply time, and by the BMC. Lookups: "+err.Error())
		return
	case err != nil:
		redfishError(&resp.Diagnostics, path.Root("bios_attributes"), "Cannot Read The BIOS Attribute Registry", err)
		return
	}
	if hint.Bios != "" && reg.URI != hint.Registry {
		// Remember where the registry is: the next plan reads it with one GET.
		hint.Registry = reg.URI
		raw, _ := json.Marshal(hint)
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, biosURIsKey, raw)...)
	}
	convertAll(reg, want, &resp.Diagnostics)
}

// planBoot checks a changed boot target against the ones the BMC offers.
func (r *serverResource) planBoot(ctx context.Context, ep *redfish.Endpoint, sysID string, plan, state *serverResourceModel, resp *resource.ModifyPlanResponse) {
	b := plan.BootSourceOverride
	if b == nil || b.Target.IsUnknown() {
		return
	}
	if state != nil && state.BootSourceOverride != nil && state.BootSourceOverride.Target.Equal(b.Target) {
		return
	}
	id, err := ep.FindSystem(ctx, sysID)
	if err != nil {
		return // reported by apply
	}
	sys, err := ep.GetSystem(ctx, id)
	if err != nil || len(sys.BootTargets) == 0 {
		return
	}
	if !slices.Contains(sys.BootTargets, b.Target.ValueString()) {
		addError(&resp.Diagnostics, path.Root("boot_source_override").AtName("target"), "Boot Target Not Offered",
			fmt.Sprintf("This BMC offers %s; choose one of them.", backtickList(sys.BootTargets)), nil)
	}
}

// registryFor finds the BIOS attribute registry of a system. With the
// Bios URI and registry name of an earlier read (hint) it goes straight to
// the registry (where it was found before, when known); otherwise, or when
// the hint leads nowhere, it reads the system and its Bios first.
func registryFor(ctx context.Context, ep *redfish.Endpoint, sysID string, hint biosURIs) (*redfish.Registry, error) {
	if hint.Bios != "" && hint.RegistryID != "" {
		reg, err := ep.BiosRegistry(ctx, &redfish.Bios{URI: hint.Bios, RegistryID: hint.RegistryID, RegistryURI: hint.Registry})
		if err == nil {
			return reg, nil
		}
	}
	id, err := ep.FindSystem(ctx, sysID)
	if err != nil {
		return nil, err
	}
	sys, err := ep.GetSystem(ctx, id)
	if err != nil {
		return nil, err
	}
	b, err := ep.GetBios(ctx, sys.BiosURI)
	if err != nil {
		return nil, err
	}
	b.RegistryURI = hint.Registry
	return ep.BiosRegistry(ctx, b)
}

// converter types a BIOS value: the registry, or the current BIOS values
// when the BMC has no registry.
type converter interface {
	Convert(name, value string) (any, error)
}

type likeCurrent struct{ b *redfish.Bios }

func (l likeCurrent) Convert(name, value string) (any, error) { return l.b.ConvertLike(name, value) }

// currentThenRegistry types a value like the attribute's current value (the
// plan already checked it against the registry), and reads the registry only
// for an attribute the BIOS does not report.
type currentThenRegistry struct {
	b   *redfish.Bios
	reg func() (*redfish.Registry, error)
}

func (c currentThenRegistry) Convert(name, value string) (any, error) {
	if _, ok := c.b.Current[name]; ok {
		return c.b.ConvertLike(name, value)
	}
	reg, err := c.reg()
	if err != nil {
		return c.b.ConvertLike(name, value)
	}
	return reg.Convert(name, value)
}

// convertAll types every wanted value, one diagnostic per bad key.
func convertAll(reg converter, want map[string]string, diags *diag.Diagnostics) map[string]any {
	out := map[string]any{}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := reg.Convert(k, want[k])
		if err != nil {
			summary := "Invalid BIOS Attribute Value"
			if errors.Is(err, redfish.ErrUnknownAttribute) || errors.Is(err, redfish.ErrReadOnly) {
				summary = "Unknown Or Read-Only BIOS Attribute"
			}
			addError(diags, path.Root("bios_attributes").AtMapKey(k), summary,
				"Use a writable attribute of the BMC's attribute registry with a value it allows.", err)
			continue
		}
		out[k] = v
	}
	return out
}

// roll runs work inside the server's failure domain sequence. A domain
// whose cluster does not run (not formed yet, or stopped everywhere) has
// no service to keep: the work runs alone, with a warning.
func (r *serverResource) roll(ctx context.Context, f *failureDomainModel, work func(context.Context) error, diags *diag.Diagnostics) error {
	err := day2.Roll(ctx, nodeRunner{nodes: r.data.Nodes, owner: day2Owner(f.Name.ValueString())}, f.member(),
		f.options(r.data), day2Turns, work)
	var se *day2.StepError
	if errors.As(err, &se) && se.Step == day2.StepLock && errors.Is(err, day2.ErrNoCluster) {
		diags.AddAttributeWarning(path.Root("failure_domain"), "Failure Domain Not Running",
			fmt.Sprintf("The %s cluster of domain %q does not run on %s, so %s serves nothing in it and was changed without "+
				"the maintenance sequence: %v", se.Member.Kind, se.Member.Domain, se.Member.Host, se.Member.Node, err))
		return work(ctx)
	}
	return err
}

// serverChanges is what an apply will change through the BMC before
// power and boot: typed BIOS values and firmware updates, and whether any
// of them takes the server out of service (a reboot).
type serverChanges struct {
	sys        *redfish.System
	b          *redfish.Bios
	bios       map[string]any
	firmware   []redfish.FirmwareUpdate
	disruptive bool
}

// changes reads the system, its BIOS and (with firmware) its inventory
// once, and types what plan asks for.
func (r *serverResource) changes(ctx context.Context, ep *redfish.Endpoint, plan *serverResourceModel, priv privateState, diags *diag.Diagnostics) (serverChanges, bool) {
	var ch serverChanges
	want, ok := knownStringMap(plan.BiosAttributes)
	if ok && len(want) > 0 {
		// One read of the system and its BIOS serves the typing of the
		// values, the difference and the reset.
		hint := readURIs(ctx, priv)
		sys, b, err := ep.SystemAndBios(ctx, plan.SystemID.ValueString(), hint.Bios, hint.Settings)
		if err != nil {
			redfishError(diags, path.Root("bios_attributes"), "Cannot Read The BIOS Settings", err)
			return ch, false
		}
		if b == nil {
			addError(diags, path.Root("bios_attributes"), "Server Has No BIOS Resource",
				"This system publishes no Bios resource; remove bios_attributes.", nil)
			return ch, false
		}
		var reg *redfish.Registry
		var regErr error
		conv := currentThenRegistry{b: b, reg: func() (*redfish.Registry, error) {
			if reg == nil && regErr == nil {
				b.RegistryURI = hint.Registry
				reg, regErr = ep.BiosRegistry(ctx, b)
			}
			return reg, regErr
		}}
		ch.bios = convertAll(conv, want, diags)
		if diags.HasError() {
			return ch, false
		}
		ch.sys, ch.b = sys, b
		ch.disruptive = len(b.Diff(ch.bios)) > 0
	}
	if len(plan.Firmware) == 0 {
		return ch, true
	}
	if ch.sys == nil {
		id, err := ep.FindSystem(ctx, plan.SystemID.ValueString())
		if err == nil {
			ch.sys, err = ep.GetSystem(ctx, id)
		}
		if err != nil {
			redfishError(diags, path.Root("firmware"), "Cannot Read The Server", err)
			return ch, false
		}
	}
	inv, err := ep.FirmwareInventory(ctx, ch.sys.URI)
	if err != nil {
		redfishError(diags, path.Root("firmware"), "Cannot Read The Firmware Inventory", err)
		return ch, false
	}
	for i, f := range plan.Firmware {
		u := redfish.FirmwareUpdate{Component: f.Component.ValueString(), Version: f.Version.ValueString(),
			ImageURI: f.ImageURI.ValueString(), TransferProtocol: f.TransferProtocol.ValueString()}
		if !f.Models.IsNull() && !f.Models.IsUnknown() {
			diags.Append(f.Models.ElementsAs(ctx, &u.Models, false)...)
		}
		c, err := firmware.Find(inv, u.Component)
		if err != nil {
			addError(diags, path.Root("firmware").AtListIndex(i).AtName("component"), "Unknown Firmware Component",
				"Name a component of the BMC's firmware inventory (data.hpcstorage_firmware_inventory lists them).", err)
			return ch, false
		}
		if firmware.Compare(c.Version, u.Version) == 0 {
			continue // already runs it: nothing to send
		}
		ch.firmware = append(ch.firmware, u)
		// The BMC restarts itself for its own firmware; anything else
		// runs after a reboot of the host.
		if !strings.EqualFold(c.Kind, "BMC") {
			ch.disruptive = true
		}
	}
	return ch, true
}

func knownStringMap(m types.Map) (map[string]string, bool) {
	out := map[string]string{}
	for k, v := range m.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return nil, false
		}
		out[k] = s.ValueString()
	}
	return out, true
}

// apply makes the server match plan: BIOS (one reboot at most), power,
// then the boot override so a Once override is left for the next boot.
// prior is the boot override in state (nil on create): an unchanged one is
// not set again, so a consumed Once override is not re-armed.
func (r *serverResource) apply(ctx context.Context, ep *redfish.Endpoint, plan *serverResourceModel, prior *bootOverrideModel, update, resume bool, priv privateState, diags *diag.Diagnostics) {
	// A server's first apply is day 1: it serves nothing yet. Adopted
	// servers (import) go through updates, and so through the sequence.
	creating := !update
	id := plan.SystemID.ValueString()
	w := r.data.waiter(applyTimeout(plan.ApplyTimeout))
	poweredTo := ""
	ch, ok := r.changes(ctx, ep, plan, priv, diags)
	if !ok {
		return
	}
	var fwErr, biosErr error
	work := func(ctx context.Context) error {
		staged, err := updateFirmware(ctx, ep, ch.sys, ch.firmware, w)
		if err != nil {
			fwErr = err
			return err
		}
		rebooted := false
		if len(ch.bios) > 0 {
			bc, err := ep.ApplyBiosFrom(ctx, ch.sys, ch.b, ch.bios, w)
			if err != nil {
				biosErr = err
				return err
			}
			poweredTo, rebooted = bc.PowerState, bc.Rebooted
		}
		if len(staged) == 0 {
			return nil
		}
		if rebooted {
			err = ep.WaitFirmware(ctx, ch.sys, staged, w)
		} else {
			err = ep.RestartForFirmware(ctx, ch.sys, staged, w)
			poweredTo = "On"
		}
		if err != nil {
			fwErr = err
		}
		return err
	}
	var err error
	switch f := plan.FailureDomain; {
	case f != nil && !creating && (ch.disruptive || resume):
		err = r.roll(ctx, f, work, diags)
	case len(ch.bios) > 0 || len(ch.firmware) > 0:
		err = work(ctx)
	}
	switch {
	case err == nil:
	case biosErr != nil && errors.Is(err, biosErr):
		redfishError(diags, path.Root("bios_attributes"), "BIOS Settings Not Applied", err)
		return
	case fwErr != nil && errors.Is(err, fwErr):
		redfishError(diags, path.Root("firmware"), "Firmware Not Updated", err)
		return
	default:
		stepError(diags, path.Root("failure_domain"), err)
		return
	}
	// SetPower does nothing when the server is already in that state; after
	// a BIOS change the state is known already.
	if ps := plan.PowerState; !ps.IsNull() && !ps.IsUnknown() && poweredTo != ps.ValueString() {
		if err := ep.SetPower(ctx, id, ps.ValueString(), w); err != nil {
			redfishError(diags, path.Root("power_state"), "Power State Not Reached", err)
			return
		}
	}
	if b := plan.BootSourceOverride; b != nil && !sameOverride(b, prior) {
		want := redfish.BootOverride{Target: b.Target.ValueString(), Enabled: b.Enabled.ValueString()}
		if !b.Mode.IsUnknown() && !b.Mode.IsNull() {
			want.Mode = b.Mode.ValueString()
		}
		if err := ep.SetBootOverrideFresh(ctx, id, want); err != nil {
			redfishError(diags, path.Root("boot_source_override"), "Boot Override Not Set", err)
			return
		}
	}
}

// sameOverride: b asks for what prior (the state) already records; a mode
// left to the BMC matches any.
func sameOverride(b, prior *bootOverrideModel) bool {
	return prior != nil && b.Target.Equal(prior.Target) && b.Enabled.Equal(prior.Enabled) &&
		(b.Mode.IsUnknown() || b.Mode.IsNull() || b.Mode.Equal(prior.Mode))
}

// privateState is the resource's private state (framework privatestate).
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// biosURIsKey remembers where the BIOS and its settings live, so the next
// refresh sends its three GETs at once.
const biosURIsKey = "bios_uris"

type biosURIs struct {
	Bios       string `json:"bios"`
	Settings   string `json:"settings"`
	RegistryID string `json:"registry_id,omitempty"`
	Registry   string `json:"registry,omitempty"` // where the registry was found
}

func readURIs(ctx context.Context, priv privateState) biosURIs {
	var uris biosURIs
	if priv == nil {
		return uris
	}
	if raw, d := priv.GetKey(ctx, biosURIsKey); !d.HasError() && len(raw) > 0 {
		_ = json.Unmarshal(raw, &uris)
	}
	return uris
}

// read refreshes m from the BMC (three GETs: system, BIOS, pending BIOS);
// false when the system is gone.
func (r *serverResource) read(ctx context.Context, ep *redfish.Endpoint, m *serverResourceModel, priv privateState, diags *diag.Diagnostics) bool {
	id := m.SystemID.ValueString()
	uris := readURIs(ctx, priv)
	sys, b, err := ep.SystemAndBios(ctx, id, uris.Bios, uris.Settings)
	if redfish.IsGone(err) && sys == nil {
		return false
	}
	if err != nil {
		redfishError(diags, path.Empty(), "Cannot Read The Server", err)
		return true
	}
	if b != nil {
		next := biosURIs{Bios: b.URI, Settings: b.SettingsURI, RegistryID: b.RegistryID,
			Registry: ep.CachedRegistryURI(b.URI, b.RegistryID)}
		if next.Registry == "" && next.RegistryID == uris.RegistryID {
			next.Registry = uris.Registry
		}
		if next != uris {
			raw, _ := json.Marshal(next)
			diags.Append(priv.SetKey(ctx, biosURIsKey, raw)...)
		}
	}
	m.ID = types.StringValue(m.Endpoint.ValueString() + "/" + id)
	m.PowerState = types.StringValue(sys.PowerState)
	m.Manufacturer = types.StringValue(sys.Manufacturer)
	m.Model = types.StringValue(sys.Model)
	m.SerialNumber = types.StringValue(sys.SerialNumber)
	m.BiosVersion = types.StringValue(sys.BiosVersion)
	// Counts missing from ProcessorSummary come from the Processors
	// collection, read again only when they may have changed (create,
	// import, a BIOS change), so a refresh stays at three GETs.
	if known := m.CoreCount.ValueInt64(); m.CoreCount.IsUnknown() || known == 0 || m.CPUCount.ValueInt64() == 0 {
		if err := ep.ProcessorCounts(ctx, sys); err != nil {
			redfishError(diags, path.Empty(), "Cannot Read The Processors", err)
			return true
		}
	} else if sys.CoreCount == 0 || sys.CPUCount == 0 {
		sys.CPUCount, sys.CoreCount = m.CPUCount.ValueInt64(), known
	}
	m.CPUCount = types.Int64Value(sys.CPUCount)
	m.CoreCount = types.Int64Value(sys.CoreCount)
	m.NUMADomains = types.Int64Value(sys.NUMADomains)
	m.MemoryGiB = types.Float64Value(sys.MemoryGiB)
	if m.ApplyTimeout.IsNull() || m.ApplyTimeout.IsUnknown() {
		m.ApplyTimeout = types.StringValue(shortDuration(defaultApplyTimeout))
	}
	if prev := m.BootSourceOverride; prev != nil {
		cur := &bootOverrideModel{Target: types.StringValue(sys.Boot.Target),
			Enabled: types.StringValue(sys.Boot.Enabled), Mode: types.StringValue(sys.Boot.Mode)}
		// A Once override that a boot consumed (the BMC reports Disabled)
		// is done, not drift: keep it as recorded.
		if prev.Enabled.ValueString() == "Once" && sys.Boot.Enabled == "Disabled" {
			cur.Target, cur.Enabled = prev.Target, prev.Enabled
		}
		m.BootSourceOverride = cur
	}
	if m.NICMACs.IsNull() || m.NICMACs.IsUnknown() {
		macs, err := ep.NICMACs(ctx, id)
		if err != nil {
			redfishError(diags, path.Root("nic_macs"), "Cannot Read The Network Interfaces", err)
			return true
		}
		lv, d := types.ListValueFrom(ctx, types.StringType, nonNil(macs))
		diags.Append(d...)
		m.NICMACs = lv
	}
	if len(m.Firmware) > 0 {
		// The running versions: a component changed by hand (or staged
		// but not yet run after a reboot) shows in the next plan.
		inv, err := ep.FirmwareInventory(ctx, sys.URI)
		if err != nil {
			redfishError(diags, path.Root("firmware"), "Cannot Read The Firmware Inventory", err)
			return true
		}
		for i := range m.Firmware {
			// The same version spelt otherwise (2.12.02) is no change.
			if c, err := firmware.Find(inv, m.Firmware[i].Component.ValueString()); err == nil &&
				firmware.Compare(c.Version, m.Firmware[i].Version.ValueString()) != 0 {
				m.Firmware[i].Version = types.StringValue(c.Version)
			}
		}
	}
	if b == nil {
		b = &redfish.Bios{}
	}
	pending := map[string]attr.Value{}
	for k, v := range b.Pending {
		pending[k] = types.StringValue(redfish.FormatValue(v))
	}
	m.BiosPending = types.MapValueMust(types.StringType, pending)
	if !m.BiosAttributes.IsNull() && !m.BiosAttributes.IsUnknown() {
		cur := map[string]attr.Value{}
		for k := range m.BiosAttributes.Elements() {
			if v, ok := b.Current[k]; ok {
				cur[k] = types.StringValue(redfish.FormatValue(v))
			}
		}
		m.BiosAttributes = types.MapValueMust(types.StringType, cur)
	}
	return true
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
