package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

var _ datasource.DataSourceWithConfigure = (*serverDataSource)(nil)

// NewServerDataSource reads a server's inventory and BIOS through its BMC.
func NewServerDataSource() datasource.DataSource { return &serverDataSource{} }

type serverDataSource struct{ data *providerData }

type serverDataModel struct {
	Endpoint       types.String  `tfsdk:"endpoint"`
	SystemID       types.String  `tfsdk:"system_id"`
	PowerState     types.String  `tfsdk:"power_state"`
	Manufacturer   types.String  `tfsdk:"manufacturer"`
	Model          types.String  `tfsdk:"model"`
	SerialNumber   types.String  `tfsdk:"serial_number"`
	BiosVersion    types.String  `tfsdk:"bios_version"`
	CPUCount       types.Int64   `tfsdk:"cpu_count"`
	CoreCount      types.Int64   `tfsdk:"core_count"`
	NUMADomains    types.Int64   `tfsdk:"numa_domains"`
	MemoryGiB      types.Float64 `tfsdk:"memory_gib"`
	NICMACs        []string      `tfsdk:"nic_macs"`
	BiosAttributes types.Map     `tfsdk:"bios_attributes"`
	BiosPending    types.Map     `tfsdk:"bios_pending"`
	BootTarget     types.String  `tfsdk:"boot_source_override_target"`
	BootEnabled    types.String  `tfsdk:"boot_source_override_enabled"`
}

func (d *serverDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_server"
}

func (d *serverDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a server through its BMC without managing it: inventory, power state, every BIOS " +
			"attribute with its current value, and the values pending for the next reboot.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the BMC in the provider's `endpoints` map."},
			"system_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Id of the ComputerSystem. Default: the only system of the BMC; a BMC with several " +
					"(a DGX's `DGX` and `HGX_Baseboard_0`) needs it."},
			"power_state":                  str("Power state."),
			"manufacturer":                 str("Manufacturer."),
			"model":                        str("Model."),
			"serial_number":                str("Serial number."),
			"bios_version":                 str("BIOS version."),
			"cpu_count":                    num("CPU sockets populated (ProcessorSummary, else the CPUs of the Processors collection)."),
			"core_count":                   num("CPU cores in total (ProcessorSummary, else the sum of the CPUs' TotalCores)."),
			"numa_domains":                 num("NUMA domains when published, else 0."),
			"memory_gib":                   schema.Float64Attribute{Computed: true, MarkdownDescription: "Installed memory in GiB."},
			"nic_macs":                     schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "MAC addresses of the Ethernet interfaces."},
			"bios_attributes":              schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Every BIOS attribute, as strings; empty when the system has no BIOS resource."},
			"bios_pending":                 schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Values waiting for the next reboot."},
			"boot_source_override_target":  str("Boot source override target."),
			"boot_source_override_enabled": str("Boot source override mode (`Disabled`, `Once`, `Continuous`)."),
		},
	}
}

func (d *serverDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (d *serverDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m serverDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ep, sys := d.data.readSystem(ctx, m.Endpoint.ValueString(), m.SystemID.ValueString(), &resp.Diagnostics)
	if sys == nil {
		return
	}
	id := sys.ID
	if err := ep.ProcessorCounts(ctx, sys); err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot Read The Processors", err)
		return
	}
	macs, err := ep.NICMACs(ctx, id)
	if err != nil {
		redfishError(&resp.Diagnostics, path.Empty(), "Cannot Read The Network Interfaces", err)
		return
	}
	m.SystemID = types.StringValue(id)
	m.PowerState = types.StringValue(sys.PowerState)
	m.Manufacturer = types.StringValue(sys.Manufacturer)
	m.Model = types.StringValue(sys.Model)
	m.SerialNumber = types.StringValue(sys.SerialNumber)
	m.BiosVersion = types.StringValue(sys.BiosVersion)
	m.CPUCount = types.Int64Value(sys.CPUCount)
	m.CoreCount = types.Int64Value(sys.CoreCount)
	m.NUMADomains = types.Int64Value(sys.NUMADomains)
	m.MemoryGiB = types.Float64Value(sys.MemoryGiB)
	m.NICMACs = nonNil(macs)
	m.BootTarget = types.StringValue(sys.Boot.Target)
	m.BootEnabled = types.StringValue(sys.Boot.Enabled)
	cur, pending := map[string]attr.Value{}, map[string]attr.Value{}
	if sys.BiosURI != "" {
		b, err := ep.GetBios(ctx, sys.BiosURI)
		if err != nil && !redfish.IsGone(err) {
			redfishError(&resp.Diagnostics, path.Empty(), "Cannot Read The BIOS Settings", err)
			return
		}
		if b != nil {
			for k, v := range b.Current {
				cur[k] = types.StringValue(redfish.FormatValue(v))
			}
			for k, v := range b.Pending {
				pending[k] = types.StringValue(redfish.FormatValue(v))
			}
		}
	}
	m.BiosAttributes = types.MapValueMust(types.StringType, cur)
	m.BiosPending = types.MapValueMust(types.StringType, pending)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
