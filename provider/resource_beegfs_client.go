package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

var (
	_ resource.Resource                   = &beegfsClientResource{}
	_ resource.ResourceWithConfigure      = &beegfsClientResource{}
	_ resource.ResourceWithModifyPlan     = &beegfsClientResource{}
	_ resource.ResourceWithValidateConfig = &beegfsClientResource{}
)

// NewBeegfsClientResource is the hpcstorage_beegfs_client resource.
func NewBeegfsClientResource() resource.Resource { return &beegfsClientResource{} }

// beegfsClientResource is beegfs-client and beegfs-helperd on one node.
type beegfsClientResource struct {
	nodes *nodeAccess
}

type beegfsClientModel struct {
	BeegfsNode
	BeegfsSecret
	MgmtdHost  types.String `tfsdk:"mgmtd_host"`
	MgmtdPort  types.Int64  `tfsdk:"mgmtd_port"`
	MountPoint types.String `tfsdk:"mount_point"`
	CacheType  types.String `tfsdk:"cache_type"`
	Version    types.Int64  `tfsdk:"beegfs_version"`
	Settings   types.Map    `tfsdk:"settings"`
	Services   types.List   `tfsdk:"services"`
}

func (r *beegfsClientResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_beegfs_client"
}

func (r *beegfsClientResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := beegfsServiceSchema("the client", map[string]schema.Attribute{
		"mgmtd_host": schema.StringAttribute{Required: true, MarkdownDescription: "Host name of the management service (`sysMgmtdHost`).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"mgmtd_port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
			MarkdownDescription: "Port of the management service.", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"mount_point": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(beegfs.DefaultMountPoint),
			MarkdownDescription: "Where the file system is mounted (listed in `/etc/beegfs/beegfs-mounts.conf`, not fstab)."},
		"cache_type": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("buffered"),
			MarkdownDescription: "`tuneFileCacheType`: " + backtickList(beegfs.CacheTypes) + ". R3: `native` uses the Linux page " +
				"cache, so re-reads (deep-learning epochs) are served from local memory.",
			Validators: []validator.String{stringvalidator.OneOf(beegfs.CacheTypes...)}},
		"beegfs_version": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(7),
			MarkdownDescription: "BeeGFS major version of the client packages, one of " + intList(beegfs.Versions) + ": `7` runs " +
				"beegfs-helperd beside the client; `8` has no helperd.",
			Validators: []validator.Int64{int64validator.OneOf(beegfs.Versions...)}},
		"settings": beegfsSettingsAttribute(beegfs.ClientTuning),
		"services": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "`beegfs-helperd`, `beegfs-client`."},
	}, true)
	resp.Schema = schema.Schema{
		MarkdownDescription: "The BeeGFS client (BeeGFS 7.x) on one node: `beegfs-client.conf` and `beegfs-helperd.conf` " +
			"(keys overlaid on the packaged files, R1 tuning `connMaxInternodeNum=24`, `connBufSize=720896`), " +
			"`beegfs-mounts.conf`, the connection authentication file, and the running, enabled beegfs-helperd and " +
			"beegfs-client units (the client unit builds the kernel module after kernel updates and mounts the file " +
			"system). Destroy stops the units and puts the files back. With `beegfs_version = 8` there is no helperd.",
		Attributes: attrs,
	}
}

func (r *beegfsClientResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes = d.Nodes
	}
}

func (r *beegfsClientResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	beegfsCreate[beegfsClientModel](ctx, r.nodes, req, resp)
}

func (r *beegfsClientResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	beegfsRead[beegfsClientModel](ctx, r.nodes, req, resp)
}

func (r *beegfsClientResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	beegfsUpdate[beegfsClientModel](ctx, r.nodes, req, resp)
}

func (r *beegfsClientResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	beegfsDelete[beegfsClientModel](ctx, r.nodes, req, resp)
}

func (r *beegfsClientResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	beegfsModifyPlan[beegfsClientModel](ctx, r.nodes, req, resp, nil)
}

func (m *beegfsClientModel) owner() string { return "beegfs-client" }

func (m *beegfsClientModel) known() bool {
	return !m.MgmtdHost.IsUnknown() && !m.MgmtdPort.IsUnknown() && !m.MountPoint.IsUnknown() && !m.CacheType.IsUnknown() && !m.Settings.IsUnknown() && !m.Version.IsUnknown()
}

func (m *beegfsClientModel) items(auth beegfs.Auth) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	items, err := beegfs.Client{MgmtdHost: m.MgmtdHost.ValueString(), MgmtdPort: intOr(m.MgmtdPort, beegfs.DefaultMgmtPort), MountPoint: stringOr(m.MountPoint, beegfs.DefaultMountPoint),
		CacheType: stringOr(m.CacheType, beegfs.CacheTypes[0]), Auth: auth, Settings: settings, Version: intOr(m.Version, 7)}.Items()
	return items, errorPath(err, "mount_point", "mgmtd_host", "mgmtd_port", "cache_type", "beegfs_version", "settings", "conn_auth_secret"), err
}

func (m *beegfsClientModel) itemPath(i int) path.Path {
	switch i {
	case 0:
		return path.Root("conn_auth_secret")
	case 1, 2:
		return path.Root("settings")
	case 3:
		return path.Root("mount_point")
	}
	return path.Root("host")
}

func intList(l []int64) string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = fmt.Sprintf("`%d`", v)
	}
	return strings.Join(out, ", ")
}

func (m *beegfsClientModel) fill() {
	m.Services = stringList([]string{"beegfs-helperd", "beegfs-client"})
}

func (r *beegfsClientResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	beegfsValidateConfig[beegfsClientModel](ctx, req, resp)
}
