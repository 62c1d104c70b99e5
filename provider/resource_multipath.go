package provider

import (
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/multipath"
)

// NewMultipathResource is the hpcstorage_multipath resource: multipath.conf
// and multipathd on one server cabled twice to an array.
func NewMultipathResource() resource.Resource {
	return &nodeService[multipathModel, *multipathModel]{name: "_multipath", kind: "Multipath", schema: multipathSchema}
}

type multipathModel struct {
	NodeService
	Volumes types.Map `tfsdk:"volumes"`
	Devices types.Map `tfsdk:"devices"`
}

func multipathSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Device mapper multipath on one server whose array volumes are seen through several SAS " +
			"paths (R2: two SAS cards, each cabled to both controllers of the ME4084, so every volume shows up as " +
			"several `sd` devices with one WWN). Writes `" + multipath.ConfPath + "` with the PowerVault ME4 device " +
			"section (ALUA, paths grouped by priority, immediate failback) and one alias per volume WWN, enables and " +
			"starts `multipathd`, and runs `multipath -r` when an alias has no map yet; each volume then appears as " +
			"`/dev/mapper/<alias>` whichever path fails.\n\nThe plan fails, naming the volume, when the node does not " +
			"see one of them (not mapped to this server). Destroy puts back the previous `multipath.conf` and the " +
			"daemon's previous state; the volumes' data is untouched.",
		Attributes: nodeServiceSchema("multipath", map[string]schema.Attribute{
			"volumes": schema.MapAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Alias → WWN of each volume (`hpcstorage_volume.wwn`; NAA hex, `0x` or `naa.` prefixes " +
					"accepted). Aliases: 1-64 of `A-Z a-z 0-9 _ -`.",
				Validators: []validator.Map{mapvalidator.SizeAtLeast(1)}},
			"devices": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Alias → device path, `/dev/mapper/<alias>`: the input of `hpcstorage_ha_lvm.devices`."},
		}),
	}
}

func (m *multipathModel) secret() serviceSecret { return nil }

func (m *multipathModel) owner() string { return "multipath" }

func (m *multipathModel) known() bool {
	_, ok := settingsMap(m.Volumes)
	return ok
}

// aliases are the volumes sorted by alias, the order of the probes.
func (m *multipathModel) aliases() []multipath.Alias {
	vols, _ := settingsMap(m.Volumes)
	out := make([]multipath.Alias, 0, len(vols))
	for name, wwn := range vols {
		out = append(out, multipath.Alias{Name: name, WWN: wwn})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (m *multipathModel) items(secretInput) ([]protocol.Item, path.Path, error) {
	aliases := m.aliases()
	items, err := multipath.Config{Devices: []multipath.Device{multipath.ME4}, Aliases: aliases}.Items()
	if err != nil {
		return nil, path.Root("volumes"), err // a volume's error is located at its key
	}
	return items, path.Empty(), nil
}

// itemPath: the config, daemon and maps are the volumes' as a whole; a
// probe (after them) names its volume.
func (m *multipathModel) itemPath(i int, _ string) path.Path {
	at := path.Root("volumes")
	if a := m.aliases(); i >= 3 && i-3 < len(a) {
		return at.AtMapKey(a[i-3].Name)
	}
	return at
}

func (m *multipathModel) fill() {
	devs := map[string]attr.Value{}
	for _, a := range m.aliases() {
		devs[a.Name] = types.StringValue(multipath.MapperPath(a.Name))
	}
	m.Devices = types.MapValueMust(types.StringType, devs)
}
