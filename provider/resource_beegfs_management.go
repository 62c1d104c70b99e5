package provider

import (
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

// NewBeegfsManagementResource is the hpcstorage_beegfs_management resource:
// beegfs-mgmtd on one node.
func NewBeegfsManagementResource() resource.Resource {
	return &nodeService[beegfsManagementModel, *beegfsManagementModel]{name: "_beegfs_management", kind: beegfsKind, schema: beegfsManagementSchema}
}

type beegfsManagementModel struct {
	NodeService
	BeegfsSecret
	Directory types.String `tfsdk:"directory"`
	Port      types.Int64  `tfsdk:"port"`
	Settings  types.Map    `tfsdk:"settings"`
	Service   types.String `tfsdk:"service"`
}

func beegfsManagementSchema() schema.Schema {
	attrs := beegfsServiceSchema("beegfs-mgmtd", map[string]schema.Attribute{
		"directory": schema.StringAttribute{Required: true,
			MarkdownDescription: "Management store, on a mounted target. R1 keeps it in a `mgmtd` folder of metadata target 1 " +
				"(e.g. `/data/mdt01/mgmtd`). Initialised once (`beegfs-setup-mgmtd`), guarded by its `format.conf`."},
		"port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
			MarkdownDescription: "TCP and UDP port (`connMgmtdPortTCP/UDP`).", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"settings": beegfsSettingsAttribute(map[string]string{"sysTargetOfflineTimeoutSecs": "900"}),
		"service":  schema.StringAttribute{Computed: true, MarkdownDescription: "The systemd unit, `beegfs-mgmtd`."},
	}, true)
	return schema.Schema{
		MarkdownDescription: "The BeeGFS management service (beegfs-mgmtd, BeeGFS 7.x) on one node: its config " +
			"(`/etc/beegfs/beegfs-mgmtd.conf`, keys overlaid on the packaged file), connection authentication file, the " +
			"one-time store setup and the running, enabled unit. R1 runs it on the metadata servers as an HA pair; " +
			"this resource configures it on one node (HA is out of scope). Destroy stops and disables the unit and puts " +
			"the config back; the store is kept.\n\nBeeGFS 8 replaces this with a TOML config and `beegfs-mgmtd --init` " +
			"(not rendered yet).",
		Attributes: attrs,
	}
}

func (m *beegfsManagementModel) owner() string { return "beegfs-mgmtd" }

func (m *beegfsManagementModel) known() bool {
	return !m.Directory.IsUnknown() && !m.Port.IsUnknown() && !m.Settings.IsUnknown()
}

func (m *beegfsManagementModel) items(auth secretInput) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	items, err := beegfs.Management{Directory: m.Directory.ValueString(), Port: intOr(m.Port, beegfs.DefaultMgmtPort), Auth: beegfs.Auth(auth), Settings: settings}.Items()
	return items, errorPath(err, "directory", "port", "settings", "conn_auth_secret"), err
}

func (m *beegfsManagementModel) itemPath(i int, _ string) path.Path {
	switch i {
	case 0:
		return path.Root("conn_auth_secret")
	case 1:
		return path.Root("settings")
	}
	return path.Root("directory")
}

func (m *beegfsManagementModel) fill() { m.Service = types.StringValue("beegfs-mgmtd") }
