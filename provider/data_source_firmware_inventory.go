package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/firmware"
)

var (
	_ datasource.DataSourceWithConfigure      = (*firmwareInventoryDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*firmwareInventoryDataSource)(nil)
)

// NewFirmwareInventoryDataSource reads a server's firmware through its BMC
// and checks it against floors.
func NewFirmwareInventoryDataSource() datasource.DataSource { return &firmwareInventoryDataSource{} }

type firmwareInventoryDataSource struct{ data *providerData }

type firmwareInventoryModel struct {
	Endpoint   types.String `tfsdk:"endpoint"`
	SystemID   types.String `tfsdk:"system_id"`
	Floors     types.List   `tfsdk:"floors"`
	Model      types.String `tfsdk:"model"`
	Components types.List   `tfsdk:"components"`
}

type firmwareFloorModel struct {
	Component  types.String `tfsdk:"component"`
	MinVersion types.String `tfsdk:"min_version"`
	Reason     types.String `tfsdk:"reason"`
}

var firmwareComponentTypes = map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "kind": types.StringType, "version": types.StringType,
	"pending_version": types.StringType, "updateable": types.BoolType, "software_id": types.StringType,
}

func (d *firmwareInventoryDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firmware_inventory"
}

func (d *firmwareInventoryDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	kinds := fmt.Sprintf("`%s` or `%s`", firmware.KindBIOS, firmware.KindBMC)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the firmware a server runs from its BMC's `UpdateService` `FirmwareInventory`, and checks it " +
			"against firmware floors: a component below its floor fails the plan, naming the component, both versions and the " +
			"reason. iDRAC's `Previous-` entries are left out and its `Available-` ones (a package staged for the next reset) " +
			"show as `pending_version`; a BIOS update runs only after the server's next reset, so until then `version` is the old one.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the BMC in the provider's `endpoints` map."},
			"system_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Id of the ComputerSystem whose firmware counts (entries related only to other systems of a " +
					"multi-node BMC are left out). Default: the only system of the BMC."},
			"floors": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "Lowest acceptable versions, checked when the data source is read (at plan). Versions compare " +
					"numerically part by part, so Dell's `4.40.00.00` equals `4.40.0.0` and `2.12.2` is above `2.9.10`. The R2 paper " +
					"(NSS 7.4-HA) asks for a BIOS that supports Cascade Lake before the CPUs move to it; it gives no version, so " +
					"take `min_version` from the server model's BIOS release notes.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"component": schema.StringAttribute{Required: true,
						MarkdownDescription: "The component: " + kinds + " on every vendor, or an inventory `id`, `name`, `software_id` " +
							"or Dell FQDD (`BIOS.Setup.1-1`). It must name exactly one component."},
					"min_version": schema.StringAttribute{Required: true, MarkdownDescription: "Lowest acceptable version."},
					"reason":      schema.StringAttribute{Optional: true, MarkdownDescription: "Why; repeated in the error."},
				}}},
			"model": str("Model of the system (what firmware images must be built for)."),
			"components": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The firmware running, in inventory order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":              str("Inventory id (iDRAC's carries the version: `Installed-159-2.10.2__BIOS.Setup.1-1`)."),
					"name":            str("Name."),
					"kind":            str(kinds + " for the system firmware and the BMC, else empty."),
					"version":         str("Version running."),
					"pending_version": str("Version staged to run after the next reset, when the BMC shows one; else empty."),
					"updateable":      schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the BMC can update it."},
					"software_id":     str("Software id (iDRAC's component id, `159` for the BIOS)."),
				}}},
		},
	}
}

func (d *firmwareInventoryDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (d *firmwareInventoryDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var floors types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("floors"), &floors)...)
	fs, ok := floorModels(ctx, floors, &resp.Diagnostics)
	if !ok {
		return
	}
	for i, f := range fs {
		if f.Component.IsUnknown() || f.MinVersion.IsUnknown() {
			continue
		}
		if err := floorOf(f).Validate(); err != nil {
			addError(&resp.Diagnostics, path.Root("floors").AtListIndex(i), "Invalid Firmware Floor", "Give a component and a version.", err)
		}
	}
}

func (d *firmwareInventoryDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m firmwareInventoryModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ep, sys := d.data.readSystem(ctx, m.Endpoint.ValueString(), m.SystemID.ValueString(), &resp.Diagnostics)
	if sys == nil {
		return
	}
	id := sys.ID
	inv, err := ep.FirmwareInventory(ctx, sys.URI)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Root("endpoint"), "Cannot Read The Firmware Inventory", err)
		return
	}
	fs, ok := floorModels(ctx, m.Floors, &resp.Diagnostics)
	if !ok {
		return
	}
	for i, f := range fs {
		if err := firmware.CheckFloors(inv, []firmware.Floor{floorOf(f)}); err != nil {
			addError(&resp.Diagnostics, path.Root("floors").AtListIndex(i), "Firmware Below Its Floor",
				fmt.Sprintf("%s (%s) does not meet this floor: update the component (and reset the server for a BIOS) first.", m.Endpoint.ValueString(), sys.Model), err)
		}
	}
	m.SystemID = types.StringValue(id)
	m.Model = types.StringValue(sys.Model)
	var dd diag.Diagnostics
	m.Components, dd = firmwareComponentList(inv)
	resp.Diagnostics.Append(dd...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// floorModels reads the floors list; ok is false when it is unknown or
// does not decode.
func floorModels(ctx context.Context, l types.List, diags *diag.Diagnostics) ([]firmwareFloorModel, bool) {
	if l.IsNull() || l.IsUnknown() {
		return nil, !l.IsUnknown()
	}
	var fs []firmwareFloorModel
	diags.Append(l.ElementsAs(ctx, &fs, false)...)
	return fs, !diags.HasError()
}

func floorOf(f firmwareFloorModel) firmware.Floor {
	return firmware.Floor{Component: f.Component.ValueString(), Min: f.MinVersion.ValueString(), Why: f.Reason.ValueString()}
}

// firmwareComponentList is the components attribute's value.
func firmwareComponentList(inv []firmware.Component) (types.List, diag.Diagnostics) {
	elems := make([]attr.Value, 0, len(inv))
	var diags diag.Diagnostics
	for _, c := range inv {
		o, dd := types.ObjectValue(firmwareComponentTypes, map[string]attr.Value{
			"id": types.StringValue(c.ID), "name": types.StringValue(c.Name), "kind": types.StringValue(c.Kind),
			"version": types.StringValue(c.Version), "pending_version": types.StringValue(c.Pending),
			"updateable": types.BoolValue(c.Updateable), "software_id": types.StringValue(c.SoftwareID),
		})
		diags.Append(dd...)
		elems = append(elems, o)
	}
	l, dd := types.ListValue(types.ObjectType{AttrTypes: firmwareComponentTypes}, elems)
	diags.Append(dd...)
	return l, diags
}
