package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

var (
	_ resource.Resource                   = &beegfsManagementResource{}
	_ resource.ResourceWithConfigure      = &beegfsManagementResource{}
	_ resource.ResourceWithModifyPlan     = &beegfsManagementResource{}
	_ resource.ResourceWithValidateConfig = &beegfsManagementResource{}
)

// NewBeegfsManagementResource is the hpcstorage_beegfs_management resource.
func NewBeegfsManagementResource() resource.Resource { return &beegfsManagementResource{} }

// beegfsManagementResource is beegfs-mgmtd on one node.
type beegfsManagementResource struct {
	nodes *nodeAccess
}

type beegfsManagementModel struct {
	BeegfsNode
	BeegfsSecret
	Directory types.String `tfsdk:"directory"`
	Port      types.Int64  `tfsdk:"port"`
	Settings  types.Map    `tfsdk:"settings"`
	Service   types.String `tfsdk:"service"`
}

func (r *beegfsManagementResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_beegfs_management"
}

func (r *beegfsManagementResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := beegfsServiceSchema("beegfs-mgmtd", map[string]schema.Attribute{
		"directory": schema.StringAttribute{Required: true,
			MarkdownDescription: "Management store, on a mounted target. R1 keeps it in a `mgmtd` folder of metadata target 1 " +
				"(e.g. `/data/mdt01/mgmtd`). Initialised once (`beegfs-setup-mgmtd`), guarded by its `format.conf`."},
		"port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
			MarkdownDescription: "TCP and UDP port (`connMgmtdPortTCP/UDP`).", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"settings": beegfsSettingsAttribute(map[string]string{"sysTargetOfflineTimeoutSecs": "900"}),
		"service":  schema.StringAttribute{Computed: true, MarkdownDescription: "The systemd unit, `beegfs-mgmtd`."},
	}, true)
	resp.Schema = schema.Schema{
		MarkdownDescription: "The BeeGFS management service (beegfs-mgmtd, BeeGFS 7.x) on one node: its config " +
			"(`/etc/beegfs/beegfs-mgmtd.conf`, keys overlaid on the packaged file), connection authentication file, the " +
			"one-time store setup and the running, enabled unit. R1 runs it on the metadata servers as an HA pair; " +
			"this resource configures it on one node (HA is out of scope). Destroy stops and disables the unit and puts " +
			"the config back; the store is kept.\n\nBeeGFS 8 replaces this with a TOML config and `beegfs-mgmtd --init` " +
			"(not rendered yet).",
		Attributes: attrs,
	}
}

func (r *beegfsManagementResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes = d.Nodes
	}
}

func (r *beegfsManagementResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	beegfsCreate[beegfsManagementModel](ctx, r.nodes, req, resp)
}

func (r *beegfsManagementResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	beegfsRead[beegfsManagementModel](ctx, r.nodes, req, resp)
}

func (r *beegfsManagementResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	beegfsUpdate[beegfsManagementModel](ctx, r.nodes, req, resp)
}

func (r *beegfsManagementResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	beegfsDelete[beegfsManagementModel](ctx, r.nodes, req, resp)
}

func (r *beegfsManagementResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	beegfsModifyPlan[beegfsManagementModel](ctx, r.nodes, req, resp, nil)
}

func (m *beegfsManagementModel) owner() string { return "beegfs-mgmtd" }

func (m *beegfsManagementModel) known() bool {
	return !m.Directory.IsUnknown() && !m.Port.IsUnknown() && !m.Settings.IsUnknown()
}

func (m *beegfsManagementModel) items(auth beegfs.Auth) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	items, err := beegfs.Management{Directory: m.Directory.ValueString(), Port: intOr(m.Port, beegfs.DefaultMgmtPort), Auth: auth, Settings: settings}.Items()
	return items, errorPath(err, "directory", "port", "settings", "conn_auth_secret"), err
}

func (m *beegfsManagementModel) itemPath(i int) path.Path {
	switch i {
	case 0:
		return path.Root("conn_auth_secret")
	case 1:
		return path.Root("settings")
	}
	return path.Root("directory")
}

func (m *beegfsManagementModel) fill() { m.Service = types.StringValue("beegfs-mgmtd") }

func (r *beegfsManagementResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	beegfsValidateConfig[beegfsManagementModel](ctx, req, resp)
}
