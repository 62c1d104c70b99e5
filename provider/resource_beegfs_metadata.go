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
	_ resource.Resource                   = &beegfsMetadataResource{}
	_ resource.ResourceWithConfigure      = &beegfsMetadataResource{}
	_ resource.ResourceWithModifyPlan     = &beegfsMetadataResource{}
	_ resource.ResourceWithValidateConfig = &beegfsMetadataResource{}
)

// NewBeegfsMetadataResource is the hpcstorage_beegfs_metadata resource.
func NewBeegfsMetadataResource() resource.Resource { return &beegfsMetadataResource{} }

// beegfsMetadataResource is the beegfs-meta instances of one server.
type beegfsMetadataResource struct {
	nodes *nodeAccess
}

type beegfsMetadataModel struct {
	BeegfsNode
	BeegfsSecret
	MgmtdHost types.String `tfsdk:"mgmtd_host"`
	MgmtdPort types.Int64  `tfsdk:"mgmtd_port"`
	Instances types.List   `tfsdk:"instances"`
	Settings  types.Map    `tfsdk:"settings"`
	Services  types.List   `tfsdk:"services"`
}

type metaInstanceModel struct {
	Name      types.String `tfsdk:"name"`
	Directory types.String `tfsdk:"directory"`
	NodeID    types.Int64  `tfsdk:"node_id"`
	Port      types.Int64  `tfsdk:"port"`
	NumaZone  types.Int64  `tfsdk:"numa_zone"`
}

func (r *beegfsMetadataResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_beegfs_metadata"
}

func (r *beegfsMetadataResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := beegfsServiceSchema("the metadata instances", map[string]schema.Attribute{
		"mgmtd_host": schema.StringAttribute{Required: true, MarkdownDescription: "Host name of the management service (`sysMgmtdHost`).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"mgmtd_port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
			MarkdownDescription: "Port of the management service.", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"instances": schema.ListNestedAttribute{Required: true,
			MarkdownDescription: "One beegfs-meta instance per metadata target, each a `beegfs-meta@<name>` unit with its own " +
				"config `/etc/beegfs/<name>.d/beegfs-meta.conf`, port and NUMA zone. R1: 6 per server, named " +
				"`metaA-numa0-1` (server A, NUMA zone 0, first instance) ... `metaB-numa1-3`.",
			Validators: []validator.List{listvalidator.SizeBetween(1, 64)},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "Instance name (1-32 of `a-z A-Z 0-9 _ -`)."},
				"directory": schema.StringAttribute{Required: true, MarkdownDescription: "Metadata directory on the instance's " +
					"mounted target (e.g. `/data/mdt01/meta`). Initialised once (`beegfs-setup-meta`), guarded by `nodeNumID`."},
				"node_id": schema.Int64Attribute{Required: true, MarkdownDescription: "Numeric node ID, unique in the file system.",
					Validators: []validator.Int64{int64validator.Between(1, 65535)}},
				"port": schema.Int64Attribute{Required: true, MarkdownDescription: "TCP and UDP port of this instance (`connMetaPortTCP/UDP`), unique on the server.",
					Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
				"numa_zone": schema.Int64Attribute{Optional: true, MarkdownDescription: "NUMA zone the daemon binds its threads " +
					"and memory to (`tuneBindToNumaZone`); unset leaves it unbound.", Validators: []validator.Int64{int64validator.Between(0, 63)}},
			}},
		},
		"settings": beegfsSettingsAttribute(beegfs.MetaTuning),
		"services": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The systemd units, one per instance."},
	}, true)
	resp.Schema = schema.Schema{
		MarkdownDescription: "BeeGFS metadata service instances (beegfs-meta, BeeGFS 7.x multi-mode) on one server: per " +
			"instance its config, one-time setup and running, enabled template unit, plus the connection authentication " +
			"file. Destroy stops and disables the units and removes the configs; metadata on the targets is kept.",
		Attributes: attrs,
	}
}

func (r *beegfsMetadataResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes = d.Nodes
	}
}

func (r *beegfsMetadataResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	beegfsCreate[beegfsMetadataModel](ctx, r.nodes, req, resp)
}

func (r *beegfsMetadataResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	beegfsRead[beegfsMetadataModel](ctx, r.nodes, req, resp)
}

func (r *beegfsMetadataResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	beegfsUpdate[beegfsMetadataModel](ctx, r.nodes, req, resp)
}

func (r *beegfsMetadataResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	beegfsDelete[beegfsMetadataModel](ctx, r.nodes, req, resp)
}

// ModifyPlan also refuses a node ID used by another metadata resource of
// the same file system in this configuration.
func (r *beegfsMetadataResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	beegfsModifyPlan[beegfsMetadataModel](ctx, r.nodes, req, resp, func(m *beegfsMetadataModel) map[string]string {
		var ids []string
		ins, _ := m.instances()
		for _, in := range ins {
			ids = append(ids, fmt.Sprintf("metadata node_id %d", in.NodeID.ValueInt64()))
		}
		return r.nodes.claimIDs(m.MgmtdHost.ValueString(), "hpcstorage_beegfs_metadata on "+m.Host.ValueString(), ids)
	})
}

func (m *beegfsMetadataModel) owner() string { return "beegfs-meta" }

// instances converts the list; ok is false while it or a value is unknown.
func (m *beegfsMetadataModel) instances() ([]metaInstanceModel, bool) {
	var out []metaInstanceModel
	if m.Instances.IsUnknown() || m.Instances.IsNull() {
		return nil, false
	}
	if d := m.Instances.ElementsAs(context.Background(), &out, false); d.HasError() {
		return nil, false
	}
	return out, true
}

func (m *beegfsMetadataModel) known() bool {
	ins, ok := m.instances()
	if m.MgmtdHost.IsUnknown() || m.MgmtdPort.IsUnknown() || m.Settings.IsUnknown() || !ok {
		return false
	}
	for _, in := range ins {
		if in.Name.IsUnknown() || in.Directory.IsUnknown() || in.NodeID.IsUnknown() || in.Port.IsUnknown() || in.NumaZone.IsUnknown() {
			return false
		}
	}
	return true
}

func (m *beegfsMetadataModel) spec(auth beegfs.Auth) beegfs.Metadata {
	settings, _ := settingsMap(m.Settings)
	md := beegfs.Metadata{MgmtdHost: m.MgmtdHost.ValueString(), MgmtdPort: intOr(m.MgmtdPort, beegfs.DefaultMgmtPort), Auth: auth, Settings: settings}
	ins, _ := m.instances()
	for _, in := range ins {
		mi := beegfs.MetaInstance{Name: in.Name.ValueString(), Directory: in.Directory.ValueString(), NodeID: int(in.NodeID.ValueInt64()),
			Port: int(in.Port.ValueInt64())}
		if !in.NumaZone.IsNull() {
			z := int(in.NumaZone.ValueInt64())
			mi.NumaZone = &z
		}
		md.Instances = append(md.Instances, mi)
	}
	return md
}

func (m *beegfsMetadataModel) items(auth beegfs.Auth) ([]protocol.Item, path.Path, error) {
	items, err := m.spec(auth).Items()
	return items, errorPath(err, "instances", "mgmtd_host", "mgmtd_port", "settings", "conn_auth_secret"), err
}

// itemPath: item 0 is the auth file, then three items per instance.
func (m *beegfsMetadataModel) itemPath(i int) path.Path {
	if i == 0 {
		return path.Root("conn_auth_secret")
	}
	return path.Root("instances").AtListIndex((i - 1) / 3)
}

func (m *beegfsMetadataModel) fill() {
	var units []string
	ins, _ := m.instances()
	for _, in := range ins {
		units = append(units, "beegfs-meta@"+in.Name.ValueString())
	}
	m.Services = stringList(units)
}

func (r *beegfsMetadataResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	beegfsValidateConfig[beegfsMetadataModel](ctx, req, resp)
}
