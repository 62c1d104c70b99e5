package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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
	_ resource.Resource                   = &beegfsStorageResource{}
	_ resource.ResourceWithConfigure      = &beegfsStorageResource{}
	_ resource.ResourceWithModifyPlan     = &beegfsStorageResource{}
	_ resource.ResourceWithValidateConfig = &beegfsStorageResource{}
)

// NewBeegfsStorageResource is the hpcstorage_beegfs_storage resource.
func NewBeegfsStorageResource() resource.Resource { return &beegfsStorageResource{} }

// beegfsStorageResource is the beegfs-storage instance of one server.
type beegfsStorageResource struct {
	nodes *nodeAccess
}

type beegfsStorageModel struct {
	BeegfsNode
	BeegfsSecret
	MgmtdHost types.String `tfsdk:"mgmtd_host"`
	MgmtdPort types.Int64  `tfsdk:"mgmtd_port"`
	NodeID    types.Int64  `tfsdk:"node_id"`
	Port      types.Int64  `tfsdk:"port"`
	NumaZone  types.Int64  `tfsdk:"numa_zone"`
	Targets   types.List   `tfsdk:"targets"`
	Settings  types.Map    `tfsdk:"settings"`
	Service   types.String `tfsdk:"service"`
}

type storageTargetModel struct {
	ID        types.Int64  `tfsdk:"id"`
	Directory types.String `tfsdk:"directory"`
	Pool      types.Int64  `tfsdk:"pool"`
}

func (r *beegfsStorageResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_beegfs_storage"
}

func (r *beegfsStorageResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := beegfsServiceSchema("beegfs-storage", map[string]schema.Attribute{
		"mgmtd_host": schema.StringAttribute{Required: true, MarkdownDescription: "Host name of the management service (`sysMgmtdHost`).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"mgmtd_port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
			MarkdownDescription: "Port of the management service.", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"node_id": schema.Int64Attribute{Required: true, MarkdownDescription: "Numeric node ID of this storage server, unique among storage servers.",
			Validators: []validator.Int64{int64validator.Between(1, 65535)}},
		"port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultStorPort),
			MarkdownDescription: "TCP and UDP port (`connStoragePortTCP/UDP`).", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"numa_zone": schema.Int64Attribute{Optional: true, MarkdownDescription: "`tuneBindToNumaZone` (R1: 0); unset leaves it unbound.",
			Validators: []validator.Int64{int64validator.Between(0, 63)}},
		"targets": schema.ListNestedAttribute{Required: true,
			MarkdownDescription: "Storage targets served by this instance, in `storeStorageDirectory` order. R1: 16 per server " +
				"(4 arrays x 8 volumes over 2 servers). Each is initialised once (`beegfs-setup-storage`), guarded by its `targetNumID`.",
			Validators: []validator.List{listvalidator.SizeBetween(1, 256)},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id": schema.Int64Attribute{Required: true, MarkdownDescription: "Numeric target ID, unique in the file system.",
					Validators: []validator.Int64{int64validator.Between(1, 65535)}},
				"directory": schema.StringAttribute{Required: true, MarkdownDescription: "Chunk directory on the mounted target (e.g. `/data/st01/storage`)."},
				"pool": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1),
					MarkdownDescription: "Storage pool ID (1 is the default pool).", Validators: []validator.Int64{int64validator.Between(1, 65535)}},
			}},
		},
		"settings": beegfsSettingsAttribute(beegfs.StorageTuning),
		"service":  schema.StringAttribute{Computed: true, MarkdownDescription: "The systemd unit, `beegfs-storage`."},
	}, true)
	resp.Schema = schema.Schema{
		MarkdownDescription: "The BeeGFS storage service (beegfs-storage, BeeGFS 7.x) of one server with its targets: " +
			"config (`/etc/beegfs/beegfs-storage.conf`, keys overlaid on the packaged file, R1 tuning), connection " +
			"authentication file, one-time target setup and the running, enabled unit. Duplicate target IDs, in one " +
			"resource or across the configuration, fail the plan. Destroy stops the unit and puts the config back; " +
			"chunks on the targets are kept.",
		Attributes: attrs,
	}
}

func (r *beegfsStorageResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes = d.Nodes
	}
}

func (r *beegfsStorageResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	beegfsCreate[beegfsStorageModel](ctx, r.nodes, req, resp)
}

func (r *beegfsStorageResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	beegfsRead[beegfsStorageModel](ctx, r.nodes, req, resp)
}

func (r *beegfsStorageResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	beegfsUpdate[beegfsStorageModel](ctx, r.nodes, req, resp)
}

func (r *beegfsStorageResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	beegfsDelete[beegfsStorageModel](ctx, r.nodes, req, resp)
}

// ModifyPlan also refuses a target or node ID another storage resource of
// the same file system uses in this configuration.
func (r *beegfsStorageResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	beegfsModifyPlan[beegfsStorageModel](ctx, r.nodes, req, resp, func(m *beegfsStorageModel) map[string]string {
		ids := []string{fmt.Sprintf("storage node_id %d", m.NodeID.ValueInt64())}
		tg, _ := m.targets()
		for _, t := range tg {
			ids = append(ids, fmt.Sprintf("storage target id %d", t.ID.ValueInt64()))
		}
		return r.nodes.claimIDs(m.MgmtdHost.ValueString(), "hpcstorage_beegfs_storage on "+m.Host.ValueString(), ids)
	})
}

func (m *beegfsStorageModel) owner() string { return "beegfs-storage" }

// targets converts the list; ok is false while it or a value is unknown.
func (m *beegfsStorageModel) targets() ([]storageTargetModel, bool) {
	var out []storageTargetModel
	if m.Targets.IsUnknown() || m.Targets.IsNull() {
		return nil, false
	}
	if d := m.Targets.ElementsAs(context.Background(), &out, false); d.HasError() {
		return nil, false
	}
	return out, true
}

func (m *beegfsStorageModel) known() bool {
	tg, ok := m.targets()
	if m.MgmtdHost.IsUnknown() || m.MgmtdPort.IsUnknown() || m.NodeID.IsUnknown() || m.Port.IsUnknown() || m.NumaZone.IsUnknown() ||
		m.Settings.IsUnknown() || !ok {
		return false
	}
	for _, t := range tg {
		if t.ID.IsUnknown() || t.Directory.IsUnknown() || t.Pool.IsUnknown() {
			return false
		}
	}
	return true
}

func (m *beegfsStorageModel) items(auth beegfs.Auth) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	s := beegfs.Storage{MgmtdHost: m.MgmtdHost.ValueString(), MgmtdPort: intOr(m.MgmtdPort, beegfs.DefaultMgmtPort), NodeID: int(m.NodeID.ValueInt64()),
		Port: intOr(m.Port, beegfs.DefaultStorPort), Auth: auth, Settings: settings}
	if !m.NumaZone.IsNull() {
		z := int(m.NumaZone.ValueInt64())
		s.NumaZone = &z
	}
	tg, _ := m.targets()
	for _, t := range tg {
		s.Targets = append(s.Targets, beegfs.StorageTarget{ID: int(t.ID.ValueInt64()), Directory: t.Directory.ValueString(), Pool: intOr(t.Pool, 1)})
	}
	items, err := s.Items()
	return items, errorPath(err, "targets", "mgmtd_host", "mgmtd_port", "node_id", "port", "settings", "conn_auth_secret"), err
}

// itemPath: auth file, config, one setup per target, the service.
func (m *beegfsStorageModel) itemPath(i int) path.Path {
	switch {
	case i == 0:
		return path.Root("conn_auth_secret")
	case i == 1:
		return path.Root("settings")
	case i-2 < len(m.Targets.Elements()):
		return path.Root("targets").AtListIndex(i - 2)
	}
	return path.Root("host")
}

func (m *beegfsStorageModel) fill() { m.Service = types.StringValue("beegfs-storage") }

func (r *beegfsStorageResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	beegfsValidateConfig[beegfsStorageModel](ctx, req, resp)
}
