package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

// NewBeegfsStorageResource is the hpcstorage_beegfs_storage resource:
// the beegfs-storage instance of one server.
func NewBeegfsStorageResource() resource.Resource {
	return &beegfsVersioned[beegfsStorageModel, *beegfsStorageModel]{&nodeService[beegfsStorageModel, *beegfsStorageModel]{name: "_beegfs_storage",
		kind: beegfsKind, schema: beegfsStorageSchema, claim: claimStorageIDs}}
}

type beegfsStorageModel struct {
	NodeService
	BeegfsSecret
	BeegfsMgmtd
	Version  types.String `tfsdk:"version"`
	NodeID   types.Int64  `tfsdk:"node_id"`
	Port     types.Int64  `tfsdk:"port"`
	NumaZone types.Int64  `tfsdk:"numa_zone"`
	Targets  types.List   `tfsdk:"targets"`
	Settings types.Map    `tfsdk:"settings"`
	Service  types.String `tfsdk:"service"`
}

type storageTargetModel struct {
	ID        types.Int64  `tfsdk:"id"`
	Directory types.String `tfsdk:"directory"`
	Pool      types.Int64  `tfsdk:"pool"`
}

func beegfsStorageSchema() schema.Schema {
	attrs := beegfsServiceSchema("beegfs-storage", map[string]schema.Attribute{
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
		"version":  beegfsVersionAttribute(),
		"settings": beegfsSettingsAttribute(beegfs.StorageTuning),
		"service":  schema.StringAttribute{Computed: true, MarkdownDescription: "The systemd unit, `beegfs-storage`."},
	}, true)
	beegfsMgmtdAttributes(attrs, "Port of the management service.")
	return schema.Schema{
		MarkdownDescription: "The BeeGFS storage service (beegfs-storage; BeeGFS 7.x, or 8 with `version = \"8\"`: the config written whole with 8's port keys) of one server with its targets: " +
			"config (`/etc/beegfs/beegfs-storage.conf`, keys overlaid on the packaged file, R1 tuning), connection " +
			"authentication file, one-time target setup and the running, enabled unit. Duplicate target IDs, in one " +
			"resource or across the configuration, fail the plan. Destroy stops the unit and puts the config back; " +
			"chunks on the targets are kept.",
		Attributes: attrs,
	}
}

// claimStorageIDs refuses a target or node ID another storage resource of
// the same file system uses in this configuration.
func claimStorageIDs(nodes *nodeAccess, m *beegfsStorageModel, diags *diag.Diagnostics) {
	ids := []string{fmt.Sprintf("storage node_id %d", m.NodeID.ValueInt64())}
	tg, _ := m.targets()
	for _, t := range tg {
		ids = append(ids, fmt.Sprintf("storage target id %d", t.ID.ValueInt64()))
	}
	beegfsClaim(nodes, m.MgmtdHost.ValueString(), "hpcstorage_beegfs_storage on "+m.Host.ValueString(), ids, diags)
	beegfsClaimVersion(nodes, m.MgmtdHost.ValueString(), m.Version.ValueString(), diags)
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
	if !m.mgmtdKnown() || m.NodeID.IsUnknown() || m.Port.IsUnknown() || m.NumaZone.IsUnknown() ||
		m.Settings.IsUnknown() || m.Version.IsUnknown() || !ok {
		return false
	}
	for _, t := range tg {
		if t.ID.IsUnknown() || t.Directory.IsUnknown() || t.Pool.IsUnknown() {
			return false
		}
	}
	return true
}

func (m *beegfsStorageModel) items(auth secretInput) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	s := beegfs.Storage{MgmtdHost: m.MgmtdHost.ValueString(), MgmtdPort: m.mgmtdPort(), NodeID: int(m.NodeID.ValueInt64()),
		Port: intOr(m.Port, beegfs.DefaultStorPort), Auth: beegfs.Auth(auth), Settings: settings,
		Version: m.Version.ValueString()}
	if err := beegfs.CheckVersion(s.Version); err != nil {
		return nil, beegfsErrPath(err), err
	}
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
func (m *beegfsStorageModel) itemPath(i int, _ string) path.Path {
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
