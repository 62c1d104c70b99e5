package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
)

var (
	_ resource.ResourceWithConfigure      = (*gpfsGatewaysResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*gpfsGatewaysResource)(nil)
	_ resource.ResourceWithValidateConfig = (*gpfsGatewaysResource)(nil)
)

// NewGpfsGatewaysResource is the hpcstorage_gpfs_gateways resource.
func NewGpfsGatewaysResource() resource.Resource { return &gpfsGatewaysResource{} }

type gpfsGatewaysResource struct{ nodes *nodeAccess }

type gpfsGatewaysModel struct {
	ID         types.String `tfsdk:"id"`
	Host       types.String `tfsdk:"host"`
	SSH        types.Object `tfsdk:"ssh"`
	Name       types.String `tfsdk:"name"`
	Filesystem types.String `tfsdk:"filesystem"`
	Nodes      types.List   `tfsdk:"nodes"`
	Services   types.List   `tfsdk:"services"`
	Exports    types.List   `tfsdk:"exports"`
	Drift      types.Map    `tfsdk:"drift"`
}

type gpfsExportModel struct {
	Path    types.String `tfsdk:"path"`
	Clients types.List   `tfsdk:"clients"`
}

type gpfsClientModel struct {
	Spec    types.String `tfsdk:"spec"`
	Options types.String `tfsdk:"options"`
}

func (r *gpfsGatewaysResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gpfs_gateways"
}

func (r *gpfsGatewaysResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Spectrum Scale protocol gateways (CES): the gateway nodes made CES nodes (`mmchnode " +
			"--ces-enable`), protocol services enabled on them (`mmces service enable NFS|SMB`) and NFS exports of the file system (`mmnfs export add PATH --client " +
			"\"SPEC(OPTIONS)\"`), so clients outside the fabric mount it (R5's gateways). Read back with `mmces service list " +
			"-Y` and `mmnfs export list -Y`: a service disabled or an export changed by hand shows in `drift`. An export " +
			"whose clients change is removed and added again; exports dropped from the configuration are removed. Destroy " +
			"leaves services and exports in place (clients may be using them).\n\nThe CES nodes are the cluster's nodes with " +
			"the `gateway` role; the CES shared root (`cesSharedRoot`) is set in the cluster's `config` " +
			"(the cluster's plan refuses gateway nodes without it).",
		Attributes: map[string]schema.Attribute{
			"host": nodeHostAttribute("the mm commands (the cluster's admin node)"),
			"ssh":  sshResourceAttribute(),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "A name for this gateway configuration."},
			"filesystem": schema.StringAttribute{Optional: true, MarkdownDescription: "The exported file system's device " +
				"(`hpcstorage_gpfs_filesystem.id`): orders the exports after it."},
			"nodes": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "The gateway nodes, made CES protocol nodes (`mmchnode --ces-enable`; needs the cluster's " +
					"`cesSharedRoot`)."},
			"services": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Protocol services to enable: " + backtickList(gpfs.CESServices) + "."},
			"exports": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "NFS exports.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"path": schema.StringAttribute{Required: true, MarkdownDescription: "Exported path in the file system, e.g. `/gpfs/fs1`."},
					"clients": schema.ListNestedAttribute{Required: true, MarkdownDescription: "Clients and their options.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"spec":    schema.StringAttribute{Required: true, MarkdownDescription: "Host, network (`10.20.0.0/16`) or `*`."},
							"options": schema.StringAttribute{Required: true, MarkdownDescription: "Export options, e.g. `Access_Type=RW,Squash=root_squash`."},
						}}},
				}}},
			"id":    nodeIDAttribute("The name."),
			"drift": nodeDriftAttribute(),
		},
	}
}

func (r *gpfsGatewaysResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes = d.Nodes
	}
}

func (m *gpfsGatewaysModel) spec(ctx context.Context, diags *diag.Diagnostics) (gpfs.ProtocolsSpec, bool) {
	if m.Services.IsUnknown() || m.Exports.IsUnknown() || m.Nodes.IsUnknown() {
		return gpfs.ProtocolsSpec{}, false
	}
	var s gpfs.ProtocolsSpec
	diags.Append(m.Nodes.ElementsAs(ctx, &s.Nodes, false)...)
	diags.Append(m.Services.ElementsAs(ctx, &s.Services, false)...)
	var exports []gpfsExportModel
	if !m.Exports.IsNull() {
		diags.Append(m.Exports.ElementsAs(ctx, &exports, false)...)
	}
	for _, e := range exports {
		if e.Path.IsUnknown() || e.Clients.IsUnknown() {
			return s, false
		}
		var clients []gpfsClientModel
		diags.Append(e.Clients.ElementsAs(ctx, &clients, false)...)
		x := gpfs.NFSExport{Path: e.Path.ValueString()}
		for _, c := range clients {
			if c.Spec.IsUnknown() || c.Options.IsUnknown() {
				return s, false
			}
			x.Clients = append(x.Clients, gpfs.NFSClient{Spec: c.Spec.ValueString(), Options: c.Options.ValueString()})
		}
		s.Exports = append(s.Exports, x)
	}
	return s, !diags.HasError()
}

func (m *gpfsGatewaysModel) owner() string { return "gpfs-gateways-" + m.Name.ValueString() }

func readProtocols(ctx context.Context, a gpfsAdmin, withExports bool, diags *diag.Diagnostics) (gpfs.ProtocolsSeen, bool) {
	var seen gpfs.ProtocolsSeen
	out, failed, ok := a.query(ctx, diags, "mmlscluster", "-Y")
	if !ok {
		return seen, false
	}
	if failed != "" {
		diags.AddError(gpfsKind+" Query Failed", fmt.Sprintf("Host %s: %s", a.host, failed))
		return seen, false
	}
	cl, err := gpfs.ParseCluster(out)
	if err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmlscluster -Y: %v", a.host, err))
		return seen, false
	}
	seen.CESNodes = cl.CESNodes
	out, failed, ok = a.query(ctx, diags, "mmces", "service", "list", "-Y")
	if !ok {
		return seen, false
	}
	if failed != "" {
		diags.AddError(gpfsKind+" Query Failed", fmt.Sprintf("Host %s: %s", a.host, failed))
		return seen, false
	}
	if seen.Services, err = gpfs.ParseCESServices(out); err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmces service list -Y: %v", a.host, err))
		return seen, false
	}
	if !withExports || !slices.Contains(seen.Services, "NFS") {
		return seen, true
	}
	out, failed, ok = a.query(ctx, diags, "mmnfs", "export", "list", "-Y")
	if !ok {
		return seen, false
	}
	if failed != "" {
		return seen, true // no export yet
	}
	if seen.Exports, err = gpfs.ParseExports(out); err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmnfs export list -Y: %v", a.host, err))
		return seen, false
	}
	return seen, true
}

func (r *gpfsGatewaysResource) converge(ctx context.Context, m *gpfsGatewaysModel, dropped []string, diags *diag.Diagnostics) bool {
	s, ok := m.spec(ctx, diags)
	if !ok {
		return false
	}
	a := newGPFSAdmin(r.nodes, m.Host, m.SSH)
	seen, ok := readProtocols(ctx, a, true, diags)
	if !ok {
		return false
	}
	if steps := gpfs.ProtocolsSteps(s, seen, dropped); len(steps) > 0 && !a.apply(ctx, m.owner(), stepItems(steps), diags) {
		return false
	}
	if seen, ok = readProtocols(ctx, a, true, diags); !ok {
		return false
	}
	if d := gpfs.ProtocolsDrift(s, seen); len(d) > 0 {
		diags.AddError("Change Not Verified", fmt.Sprintf("Host %s: after apply the gateways still differ: %s", a.host, driftText(d)))
		return false
	}
	m.ID = m.Name
	m.Drift = emptyDrift()
	return true
}

func (r *gpfsGatewaysResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan gpfsGatewaysModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !r.converge(ctx, &plan, nil, &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *gpfsGatewaysResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state gpfsGatewaysModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s, ok := state.spec(ctx, &resp.Diagnostics)
	if !ok {
		return
	}
	seen, ok := readProtocols(ctx, newGPFSAdmin(r.nodes, state.Host, state.SSH), len(s.Exports) > 0, &resp.Diagnostics)
	if !ok {
		return
	}
	state.Drift = driftMap(gpfs.ProtocolsDrift(s, seen))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *gpfsGatewaysResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior gpfsGatewaysModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	before, _ := prior.spec(ctx, &resp.Diagnostics)
	after, _ := plan.spec(ctx, &resp.Diagnostics)
	var dropped []string
	for _, e := range before.Exports {
		if !slices.ContainsFunc(after.Exports, func(x gpfs.NFSExport) bool { return x.Path == e.Path }) {
			dropped = append(dropped, e.Path)
		}
	}
	if resp.Diagnostics.HasError() || !r.converge(ctx, &plan, dropped, &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete leaves services and exports (see the description).
func (r *gpfsGatewaysResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

func (r *gpfsGatewaysResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan gpfsGatewaysModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Drift = emptyDrift()
	plan.ID = plan.Name
	if s, ok := plan.spec(ctx, &resp.Diagnostics); ok {
		gpfsProblems(&resp.Diagnostics, gpfs.ValidateProtocols(s))
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *gpfsGatewaysResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg gpfsGatewaysModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if s, ok := cfg.spec(ctx, &resp.Diagnostics); ok {
		gpfsProblems(&resp.Diagnostics, gpfs.ValidateProtocols(s))
	}
}
