package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/nodeconfig"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/profiles"
)

var _ datasource.DataSource = (*tuningProfileDataSource)(nil)

// NewTuningProfileDataSource is the hpcstorage_tuning_profile data source.
func NewTuningProfileDataSource() datasource.DataSource { return &tuningProfileDataSource{} }

// tuningProfileDataSource renders a built-in preset into node_config items.
type tuningProfileDataSource struct{}

// profileItemAttrs are the node_config attributes a preset can fill.
var profileItemAttrs = []string{nodeconfig.AttrPackageFloors, nodeconfig.AttrSysctl, nodeconfig.AttrTHP,
	nodeconfig.AttrBlockQueues, nodeconfig.AttrKernelModules, nodeconfig.AttrUdevRules, nodeconfig.AttrFiles,
	nodeconfig.AttrServices}

type tuningProfileModel struct {
	Name            types.String          `tfsdk:"name"`
	Version         types.Int64           `tfsdk:"version"`
	Overrides       map[string]string     `tfsdk:"overrides"`
	Summary         types.String          `tfsdk:"summary"`
	Designs         []string              `tfsdk:"designs"`
	Settings        []profileSettingModel `tfsdk:"settings"`
	Conflicts       map[string]string     `tfsdk:"conflicts"`
	ClusterSettings map[string]string     `tfsdk:"cluster_settings"`
	PackageFloors   types.Map             `tfsdk:"package_floors"`
	Sysctl          types.Map             `tfsdk:"sysctl"`
	THP             types.Object          `tfsdk:"thp"`
	BlockQueues     types.List            `tfsdk:"block_queues"`
	KernelModules   types.Map             `tfsdk:"kernel_modules"`
	UdevRules       types.Map             `tfsdk:"udev_rules"`
	Files           types.Map             `tfsdk:"files"`
	Services        types.Map             `tfsdk:"services"`
}

type profileSettingModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Source types.String `tfsdk:"source"`
	Note   types.String `tfsdk:"note"`
}

func (d *tuningProfileDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tuning_profile"
}

func (d *tuningProfileDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		// Required
		"name": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "Preset: " + backtickList(profiles.Names()) + ". See the Tuning profiles guide for every value and its source.",
			Validators:          []validator.String{stringvalidator.OneOf(profiles.Names()...)},
		},
		// Optional
		"version": schema.Int64Attribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Pin the preset's version: when a provider upgrade changes the preset, the plan fails until " +
				"the pin is updated. Unset, it reports the current version.",
		},
		"overrides": schema.MapAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Per-key overrides, e.g. `{ \"sysctl:vm.dirty_ratio\" = \"40\", \"thp:enabled\" = \"\" }`: a value " +
				"replaces the preset's, an empty string drops the setting; new `sysctl:` and `conf:` keys are added. Keys are " +
				"listed in `settings`.",
		},
		// Computed
		"summary": schema.StringAttribute{Computed: true, MarkdownDescription: "What the preset is for."},
		"designs": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Reference designs the preset serves (R1-R5)."},
		"settings": schema.ListNestedAttribute{Computed: true,
			MarkdownDescription: "Every setting after overrides, with its source (`override` for yours) and notes.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"key":    schema.StringAttribute{Computed: true, MarkdownDescription: "Override key, `<kind>:<name>`."},
				"value":  schema.StringAttribute{Computed: true, MarkdownDescription: "Value."},
				"source": schema.StringAttribute{Computed: true, MarkdownDescription: "Where the value comes from."},
				"note":   schema.StringAttribute{Computed: true, MarkdownDescription: "Why, and what other sources say."},
			}},
		},
		"conflicts": schema.MapAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Known disagreements between sources that concern this preset, and the side it takes."},
		"cluster_settings": schema.MapAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Settings of the file system itself (mmchconfig, mmcrfs), not applied to nodes."},
	}
	types := itemTypes()
	for _, name := range profileItemAttrs {
		attrs[name] = computedOfType(types[name], "Rendered items, ready for the `"+name+"` attribute of `hpcstorage_node_config`.")
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A built-in, versioned tuning preset from the reference designs, rendered into the typed " +
			"attributes of `hpcstorage_node_config`. Pure: it reads nothing from nodes.",
		Attributes: attrs,
	}
}

// computedOfType declares a computed attribute of a node_config type.
func computedOfType(t attr.Type, desc string) schema.Attribute {
	switch tt := t.(type) {
	case basetypes.MapType:
		return schema.MapAttribute{Computed: true, ElementType: tt.ElemType, MarkdownDescription: desc}
	case basetypes.ListType:
		return schema.ListAttribute{Computed: true, ElementType: tt.ElemType, MarkdownDescription: desc}
	case basetypes.ObjectType:
		return schema.ObjectAttribute{Computed: true, AttributeTypes: tt.AttrTypes, MarkdownDescription: desc}
	}
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
}

func (d *tuningProfileDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m tuningProfileModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	version := 0
	if !m.Version.IsNull() && !m.Version.IsUnknown() {
		version = int(m.Version.ValueInt64())
	}
	overrides := map[string]attr.Value{}
	for k, v := range m.Overrides {
		overrides[k] = types.StringValue(v)
	}
	if sysctlProblems(overrides, profiles.KindSysctl+":", path.Root("overrides"), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	p, items, err := profiles.Resolve(m.Name.ValueString(), version, m.Overrides)
	if err != nil {
		at := path.Root("overrides")
		switch {
		case errors.Is(err, profiles.ErrUnknownPreset):
			at = path.Root("name")
		case errors.Is(err, profiles.ErrVersion):
			at = path.Root("version")
		}
		addError(&resp.Diagnostics, at, "Invalid Tuning Profile", "Fix the profile name, version pin or overrides.", err)
		return
	}
	cfg, err := nodeconfig.FromItems(items)
	if err == nil {
		var vals map[string]attr.Value
		vals, err = itemValues(cfg)
		if err == nil {
			m.PackageFloors = vals[nodeconfig.AttrPackageFloors].(types.Map)
			m.Sysctl = vals[nodeconfig.AttrSysctl].(types.Map)
			m.THP = vals[nodeconfig.AttrTHP].(types.Object)
			m.BlockQueues = vals[nodeconfig.AttrBlockQueues].(types.List)
			m.KernelModules = vals[nodeconfig.AttrKernelModules].(types.Map)
			m.UdevRules = vals[nodeconfig.AttrUdevRules].(types.Map)
			m.Files = vals[nodeconfig.AttrFiles].(types.Map)
			m.Services = vals[nodeconfig.AttrServices].(types.Map)
		}
	}
	if err != nil {
		resp.Diagnostics.AddError("Internal Error", fmt.Sprintf("Rendering profile %s: %v. Please report this issue.", p.Name, err))
		return
	}
	m.Version = types.Int64Value(int64(p.Version))
	m.Summary = types.StringValue(p.Summary)
	m.Designs = p.Designs
	m.Settings = nil
	for _, s := range p.Settings {
		note := types.StringNull()
		if s.Note != "" {
			note = types.StringValue(s.Note)
		}
		m.Settings = append(m.Settings, profileSettingModel{Key: types.StringValue(s.Key), Value: types.StringValue(s.Value),
			Source: types.StringValue(sourceName(s.Source)), Note: note})
	}
	m.Conflicts = map[string]string{}
	for _, c := range p.Conflicts {
		m.Conflicts[c] = profiles.Conflicts[c]
	}
	m.ClusterSettings = p.ClusterSettings()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// sourceName expands a source key ("R1: Dell BeeGFS ...").
func sourceName(key string) string {
	if s, ok := profiles.Sources[key]; ok {
		return strings.TrimSpace(key + ": " + s.Title)
	}
	return key
}
