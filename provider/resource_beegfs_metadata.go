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
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

// NewBeegfsMetadataResource is the hpcstorage_beegfs_metadata resource:
// the beegfs-meta instances of one server.
func NewBeegfsMetadataResource() resource.Resource {
	return &beegfsVersioned[beegfsMetadataModel, *beegfsMetadataModel]{&nodeService[beegfsMetadataModel, *beegfsMetadataModel]{name: "_beegfs_metadata",
		kind: beegfsKind, schema: beegfsMetadataSchema, claim: claimMetadataIDs}}
}

type beegfsMetadataModel struct {
	NodeService
	BeegfsSecret
	BeegfsMgmtd
	Version   types.String `tfsdk:"version"`
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

func beegfsMetadataSchema() schema.Schema {
	attrs := beegfsServiceSchema("the metadata instances", map[string]schema.Attribute{
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
		"version":  beegfsVersionAttribute(),
		"settings": beegfsSettingsAttribute(beegfs.MetaTuning),
		"services": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The systemd units, one per instance."},
	}, true)
	beegfsMgmtdAttributes(attrs, "Port of the management service.")
	return schema.Schema{
		MarkdownDescription: "BeeGFS metadata service instances (beegfs-meta multi-mode; BeeGFS 7.x, or 8 with `version = \"8\"`: 8's port keys) on one server: per " +
			"instance its config, one-time setup and running, enabled template unit, plus the connection authentication " +
			"file. Destroy stops and disables the units and removes the configs; metadata on the targets is kept.",
		Attributes: attrs,
	}
}

// claimMetadataIDs refuses a node ID used by another metadata resource of
// the same file system in this configuration.
func claimMetadataIDs(nodes *nodeAccess, m *beegfsMetadataModel, diags *diag.Diagnostics) {
	var ids []string
	ins, _ := m.instances()
	for _, in := range ins {
		ids = append(ids, fmt.Sprintf("metadata node_id %d", in.NodeID.ValueInt64()))
	}
	beegfsClaim(nodes, m.MgmtdHost.ValueString(), "hpcstorage_beegfs_metadata on "+m.Host.ValueString(), ids, diags)
	beegfsClaimVersion(nodes, m.MgmtdHost.ValueString(), m.Version.ValueString(), diags)
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
	if !m.mgmtdKnown() || m.Settings.IsUnknown() || m.Version.IsUnknown() || !ok {
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
	md := beegfs.Metadata{MgmtdHost: m.MgmtdHost.ValueString(), MgmtdPort: m.mgmtdPort(), Auth: beegfs.Auth(auth), Settings: settings,
		Version: m.Version.ValueString()}
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

func (m *beegfsMetadataModel) items(auth secretInput) ([]protocol.Item, path.Path, error) {
	if err := beegfs.CheckVersion(m.Version.ValueString()); err != nil {
		return nil, beegfsErrPath(err), err
	}
	items, err := m.spec(beegfs.Auth(auth)).Items()
	return items, errorPath(err, "instances", "mgmtd_host", "mgmtd_port", "settings", "conn_auth_secret"), err
}

// itemPath: item 0 is the auth file, then three items per instance.
func (m *beegfsMetadataModel) itemPath(i int, _ string) path.Path {
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
