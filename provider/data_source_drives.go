package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

var _ datasource.DataSourceWithConfigure = (*drivesDataSource)(nil)

// NewDrivesDataSource lists the drives of an array.
func NewDrivesDataSource() datasource.DataSource { return &drivesDataSource{} }

type drivesDataSource struct{ data *providerData }

type drivesModel struct {
	Endpoint  types.String `tfsdk:"endpoint"`
	StorageID types.String `tfsdk:"storage_id"`
	// Built by driveList, not by the framework's reflection: the
	// reflection compiles a regular expression per field per drive, and
	// was a tenth of the provider's CPU in a no-op plan of R1 (four
	// arrays of up to 84 drives, read at every plan).
	Drives types.List `tfsdk:"drives"`
}

type driveStateModel struct {
	ID            string `tfsdk:"id"`
	MediaType     string `tfsdk:"media_type"`
	CapacityBytes int64  `tfsdk:"capacity_bytes"`
	Enclosure     int64  `tfsdk:"enclosure"`
	Drawer        int64  `tfsdk:"drawer"`
	Slot          int64  `tfsdk:"slot"`
	HotspareType  string `tfsdk:"hotspare_type"`
	DiskGroup     string `tfsdk:"disk_group"`
	Model         string `tfsdk:"model"`
	SerialNumber  string `tfsdk:"serial_number"`
}

var driveAttrTypes = map[string]attr.Type{
	"id": types.StringType, "media_type": types.StringType, "capacity_bytes": types.Int64Type,
	"enclosure": types.Int64Type, "drawer": types.Int64Type, "slot": types.Int64Type,
	"hotspare_type": types.StringType, "disk_group": types.StringType, "model": types.StringType,
	"serial_number": types.StringType,
}

// driveList is the drives attribute's value.
func driveList(ds []driveStateModel) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make([]attr.Value, 0, len(ds))
	for _, d := range ds {
		o, dd := types.ObjectValue(driveAttrTypes, map[string]attr.Value{
			"id": types.StringValue(d.ID), "media_type": types.StringValue(d.MediaType),
			"capacity_bytes": types.Int64Value(d.CapacityBytes), "enclosure": types.Int64Value(d.Enclosure),
			"drawer": types.Int64Value(d.Drawer), "slot": types.Int64Value(d.Slot),
			"hotspare_type": types.StringValue(d.HotspareType), "disk_group": types.StringValue(d.DiskGroup),
			"model": types.StringValue(d.Model), "serial_number": types.StringValue(d.SerialNumber),
		})
		diags.Append(dd...)
		elems = append(elems, o)
	}
	l, dd := types.ListValue(types.ObjectType{AttrTypes: driveAttrTypes}, elems)
	diags.Append(dd...)
	return l, diags
}

func (d *drivesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_drives"
}

func (d *drivesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The drives of an array (or of a server's storage controller) in bay order, with where they " +
			"sit and what uses them; feed them to `data.hpcstorage_array_layout`. Empty bays are left out. A member of a " +
			"drive's document that cannot be read is a warning naming the drive, not an error.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the array in the provider's `endpoints` map."},
			"storage_id": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: storageIDDoc +
				" Of several, when only one holds drives (a server's other controllers empty), that one is read, with a warning."},
			"drives": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Drives, by enclosure then slot.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":             str("Drive id: `<enclosure>.<slot>` (`0.12`); on E-Series `<tray>.<slot>` (`99.0`)."),
					"media_type":     str("`HDD`, `SSD` ..."),
					"capacity_bytes": num("Raw capacity."),
					"enclosure":      num("Enclosure number."),
					"drawer":         num("Drawer within the enclosure (0 without drawers)."),
					"slot":           num("Bay number."),
					"hotspare_type":  str("`None` or `Global` ..."),
					"disk_group":     str("Disk group (pool id; on E-Series the volume group ref) the drive belongs to, empty when free."),
					"model":          str("Drive model."),
					"serial_number":  str("Serial number."),
				}}},
		},
	}
}

func (d *drivesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (d *drivesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m drivesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.data.speaksSantricity(m.Endpoint.ValueString()) {
		d.readArray(ctx, m, resp)
		return
	}
	ep, sid := d.storageOf(ctx, m, &resp.Diagnostics)
	if ep == nil {
		return
	}
	drives, err := ep.CachedDrives(ctx, sid)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot List The Drives", err)
		return
	}
	m.StorageID = types.StringValue(sid)
	list := make([]driveStateModel, 0, len(drives))
	for _, dr := range drives {
		for _, w := range dr.Warnings {
			resp.Diagnostics.AddWarning("Drive Partly Read", fmt.Sprintf("Drive %s (%s): %s.", dr.ID, dr.URI, w))
		}
		group := ""
		if dr.PoolURI != "" {
			group = dr.PoolURI[lastSlash(dr.PoolURI)+1:]
		}
		list = append(list, driveStateModel{ID: dr.ID, MediaType: dr.MediaType, CapacityBytes: dr.CapacityBytes,
			Enclosure: int64(dr.Enclosure), Drawer: int64(dr.Drawer), Slot: int64(dr.Slot), HotspareType: dr.HotspareType,
			DiskGroup: group, Model: dr.Model, SerialNumber: dr.SerialNumber})
	}
	var diags diag.Diagnostics
	m.Drives, diags = driveList(list)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// storageOf is arrayOf, except that without storage_id on an endpoint
// with several storage services of which only one holds drives (a server
// whose other controllers are empty), it takes that one and says so.
func (d *drivesDataSource) storageOf(ctx context.Context, m drivesModel, diags *diag.Diagnostics) (*redfish.Endpoint, string) {
	if !m.StorageID.IsNull() {
		return arrayOf(ctx, d.data, m.Endpoint, m.StorageID, diags)
	}
	ep := d.data.endpoint(m.Endpoint.ValueString(), path.Root("endpoint"), diags)
	if ep == nil {
		return nil, ""
	}
	sid, err := ep.FindStorage(ctx, "")
	var choice *redfish.StorageChoiceError
	if errors.As(err, &choice) {
		var full []string
		for _, id := range choice.IDs {
			drives, derr := ep.CachedDrives(ctx, id)
			if derr != nil {
				redfishError(diags, path.Root("storage_id"), "Cannot List The Drives", fmt.Errorf("looking for the storage service with drives: %w", derr))
				return nil, ""
			}
			if len(drives) > 0 {
				full = append(full, id)
			}
		}
		if len(full) == 1 {
			diags.AddAttributeWarning(path.Root("storage_id"), "Storage Service Chosen By Its Drives",
				fmt.Sprintf("%s has %d storage services (%s) and only %s holds drives, so its drives are listed. "+
					"Set storage_id to it to say so and silence this warning.", choice.Endpoint, len(choice.IDs), strings.Join(choice.IDs, ", "), full[0]))
			return ep, full[0]
		}
		if len(full) > 1 {
			err = fmt.Errorf("%w (%d of them hold drives: %s)", err, len(full), strings.Join(full, ", "))
		}
	}
	if err != nil {
		redfishError(diags, path.Root("storage_id"), "Cannot Find The Array", err)
		return nil, ""
	}
	return ep, sid
}

// readArray lists an E-Series array's drives: ids are tray.slot, a hot
// spare is "Global" (SANtricity's spares are all global), disk_group the
// volume group's ref.
func (d *drivesDataSource) readArray(ctx context.Context, m drivesModel, resp *datasource.ReadResponse) {
	a, sid := d.data.arrayFor(ctx, m.Endpoint.ValueString(), m.StorageID, &resp.Diagnostics)
	if a == nil {
		return
	}
	drives, err := a.Drives(ctx)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot List The Drives", err)
		return
	}
	m.StorageID = types.StringValue(sid)
	list := make([]driveStateModel, 0, len(drives))
	for _, dr := range drives {
		spare := "None"
		if dr.Spare {
			spare = "Global"
		}
		list = append(list, driveStateModel{ID: dr.ID, MediaType: dr.MediaType, CapacityBytes: dr.CapacityBytes,
			Enclosure: int64(dr.Enclosure), Drawer: int64(dr.Drawer), Slot: int64(dr.Slot), HotspareType: spare,
			DiskGroup: dr.GroupID, Model: dr.Model, SerialNumber: dr.Serial})
	}
	var diags diag.Diagnostics
	m.Drives, diags = driveList(list)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// storageIDDoc says which storage ids every storage_id attribute accepts.
const storageIDDoc = "Storage resource: its plain id under `/redfish/v1/Storage` (`controller_a` on a Swordfish array), " +
	"or its full `@odata.id` wherever it lives (`/redfish/v1/Systems/1/Storage/RAID.Integrated.1-1` on a server). " +
	"Default: the only Storage of the endpoint, under `/redfish/v1/Storage` or, when there is none there, under " +
	"`/redfish/v1/Systems/<id>/Storage` (given as its full `@odata.id`); with several, the error lists them."

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
