package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
)

var (
	_ resource.ResourceWithConfigure      = (*gpfsGatewaysResource)(nil)
	_ resource.ResourceWithImportState    = (*gpfsGatewaysResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*gpfsGatewaysResource)(nil)
	_ resource.ResourceWithValidateConfig = (*gpfsGatewaysResource)(nil)
)

// NewGpfsGatewaysResource is the hpcstorage_gpfs_gateways resource.
func NewGpfsGatewaysResource() resource.Resource {
	return &gpfsGatewaysResource{clusterResource{name: "_gpfs_gateways"}}
}

type gpfsGatewaysResource struct{ clusterResource }

type gpfsGatewaysModel struct {
	ID         types.String `tfsdk:"id"`
	Host       types.String `tfsdk:"host"`
	SSH        types.Object `tfsdk:"ssh"`
	Name       types.String `tfsdk:"name"`
	Filesystem types.String `tfsdk:"filesystem"`
	Nodes      types.List   `tfsdk:"nodes"`
	Services   types.List   `tfsdk:"services"`
	Exports    types.List   `tfsdk:"exports"`
	Addresses  types.List   `tfsdk:"ces_addresses"`
	SMBExports types.List   `tfsdk:"smb_exports"`
	Drift      types.Map    `tfsdk:"drift"`
}

type gpfsExportModel struct {
	Path    types.String `tfsdk:"path"`
	Clients types.List   `tfsdk:"clients"`
}

type gpfsSMBExportModel struct {
	Name    types.String `tfsdk:"name"`
	Path    types.String `tfsdk:"path"`
	Options types.Map    `tfsdk:"options"`
}

type gpfsClientModel struct {
	Spec    types.String `tfsdk:"spec"`
	Options types.String `tfsdk:"options"`
}

func (r *gpfsGatewaysResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Spectrum Scale protocol gateways (CES): the gateway nodes made CES nodes (`mmchnode " +
			"--ces-enable`), protocol services enabled on them (`mmces service enable NFS|SMB`), the CES addresses clients " +
			"mount from (`mmces address add --ces-ip`), NFS exports of the file system (`mmnfs export add PATH --client " +
			"\"SPEC(OPTIONS)\"`) and SMB exports (`mmsmb export add NAME PATH --option ...`), so clients outside the fabric " +
			"mount it over NFS and SMB (R5's gateways). Read back with `mmces service list " +
			"-Y` and `mmnfs export list -Y`: a service disabled or an export changed by hand shows in `drift`. An export " +
			"whose clients change is removed and added again; exports dropped from the configuration are removed. Destroy " +
			"leaves CES nodes, services, addresses and exports in place (clients may be using them); it removes only the " +
			"record of the configuration on the admin node (after it, an import of the gateways finds nothing to adopt).\n\nThe CES nodes are the cluster's nodes with " +
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
			"ces_addresses": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "CES addresses the clients outside the fabric mount from (`mmces address add --ces-ip " +
					"IP[,IP]`, read back with `mmces address list -Y`); GPFS spreads them over the gateway nodes and moves them " +
					"when one fails. Addresses dropped from the list stay (clients may hold mounts on them)."},
			"smb_exports": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "SMB exports (`mmsmb export add NAME PATH --option \"KEY=VALUE\"...`, read back with " +
					"`mmsmb export list -Y --all`; needs `SMB` in `services`). An export whose path or options change is " +
					"removed and added again; exports dropped from the list are removed.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "Share name (1 to 80 characters, none of " +
						"`\\ / : * ? \" < > |`; not `global`, `homes`, `printers`, `ipc$`)."},
					"path": schema.StringAttribute{Required: true, MarkdownDescription: "Exported path in the file system, e.g. `/gpfs/fs1`."},
					"options": schema.MapAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Share options by name, e.g. `{ \"browseable\" = \"yes\", \"smb encrypt\" = \"desired\" }`: " +
							backtickList(gpfs.SMBOptionNames()) + "."},
				}}},
			"id":    nodeIDAttribute("The name."),
			"drift": nodeDriftAttribute(),
		},
	}
}

// decode: the gateways have no raw attributes.
func (m *gpfsGatewaysModel) decode(context.Context, *diag.Diagnostics) {}

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

func (r *gpfsGatewaysResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	clusterPlan(ctx, req, resp, func(ctx context.Context, plan, _ *gpfsGatewaysModel, diags *diag.Diagnostics) bool {
		plan.Drift = emptyDrift()
		plan.ID = plan.Name
		if s, ok := plan.spec(ctx, diags); ok {
			gpfsProblems(diags, gpfs.ValidateProtocols(s))
			return !diags.HasError()
		}
		return true
	})
}

func (r *gpfsGatewaysResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *gpfsGatewaysModel, diags *diag.Diagnostics) bool {
		return r.converge(ctx, plan, nil, nil, diags)
	})
}

func (r *gpfsGatewaysResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if _, ok := readRecorded(ctx, r, r.nodes, &req, resp, "nodes", "host", func(name string) string { return (&gpfsGatewaysModel{Name: types.StringValue(name)}).owner() }); ok {
		clusterRead(ctx, req, resp, r.refresh)
	}
}

// refresh reads the services and exports back into drift (never gone).
func (r *gpfsGatewaysResource) refresh(ctx context.Context, state *gpfsGatewaysModel, diags *diag.Diagnostics) (found, ok bool) {
	s, ok := state.spec(ctx, diags)
	if !ok {
		return true, false
	}
	seen, ok := readProtocols(ctx, newGPFSAdmin(r.nodes, state.Host, state.SSH), len(s.Exports)+len(s.SMB) > 0, diags)
	if !ok {
		return true, false
	}
	state.Drift = driftMap(gpfs.ProtocolsDrift(s, seen))
	return true, true
}

func (r *gpfsGatewaysResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, prior *gpfsGatewaysModel, diags *diag.Diagnostics) bool {
		before, _ := prior.spec(ctx, diags)
		after, _ := plan.spec(ctx, diags)
		var dropped []string
		for _, e := range before.Exports {
			if !slices.ContainsFunc(after.Exports, func(x gpfs.NFSExport) bool { return x.Path == e.Path }) {
				dropped = append(dropped, e.Path)
			}
		}
		var droppedSMB []string
		for _, e := range before.SMB {
			if !slices.ContainsFunc(after.SMB, func(x gpfs.SMBExport) bool { return strings.EqualFold(x.Name, e.Name) }) {
				droppedSMB = append(droppedSMB, e.Name)
			}
		}
		return !diags.HasError() && r.converge(ctx, plan, dropped, droppedSMB, diags)
	})
}

// Delete leaves services and exports (see the description): it runs no
// command, and removes the record the applies left on the admin node.
func (r *gpfsGatewaysResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, func(ctx context.Context, state *gpfsGatewaysModel, diags *diag.Diagnostics) {
		newGPFSAdmin(r.nodes, state.Host, state.SSH).remove(ctx, state.owner(), diags)
	})
}

func (m *gpfsGatewaysModel) spec(ctx context.Context, diags *diag.Diagnostics) (gpfs.ProtocolsSpec, bool) {
	if m.Services.IsUnknown() || m.Exports.IsUnknown() || m.Nodes.IsUnknown() || m.Addresses.IsUnknown() || m.SMBExports.IsUnknown() {
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
	if !m.Addresses.IsNull() {
		diags.Append(m.Addresses.ElementsAs(ctx, &s.Addresses, false)...)
	}
	var shares []gpfsSMBExportModel
	if !m.SMBExports.IsNull() {
		diags.Append(m.SMBExports.ElementsAs(ctx, &shares, false)...)
	}
	for _, x := range shares {
		if x.Name.IsUnknown() || x.Path.IsUnknown() || x.Options.IsUnknown() {
			return s, false
		}
		e := gpfs.SMBExport{Name: x.Name.ValueString(), Path: x.Path.ValueString(), Options: map[string]string{}}
		if !x.Options.IsNull() {
			diags.Append(x.Options.ElementsAs(ctx, &e.Options, false)...)
		}
		s.SMB = append(s.SMB, e)
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
	queries := []struct {
		when  bool
		argv  []string
		parse func(string) error
	}{
		{len(seen.CESNodes) > 0, []string{"mmces", "address", "list", "-Y"}, func(o string) (e error) { seen.Addresses, e = gpfs.ParseCESAddresses(o); return }},
		{withExports && slices.Contains(seen.Services, "NFS"), []string{"mmnfs", "export", "list", "-Y"}, func(o string) (e error) { seen.Exports, e = gpfs.ParseExports(o); return }},
		{withExports && slices.Contains(seen.Services, "SMB"), []string{"mmsmb", "export", "list", "-Y", "--all"}, func(o string) (e error) { seen.Shares, e = gpfs.ParseSMBExports(o); return }},
	}
	for _, q := range queries {
		if !q.when {
			continue
		}
		out, failed, ok := a.query(ctx, diags, q.argv...)
		if !ok {
			return seen, false
		}
		if failed != "" {
			continue // nothing listed yet
		}
		if err := q.parse(out); err != nil {
			diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: %s: %v", a.host, strings.Join(q.argv, " "), err))
			return seen, false
		}
	}
	return seen, true
}

func (r *gpfsGatewaysResource) converge(ctx context.Context, m *gpfsGatewaysModel, dropped, droppedSMB []string, diags *diag.Diagnostics) bool {
	s, ok := m.spec(ctx, diags)
	if !ok {
		return false
	}
	a := newGPFSAdmin(r.nodes, m.Host, m.SSH)
	seen, ok := readProtocols(ctx, a, true, diags)
	if !ok {
		return false
	}
	// The record goes with every apply: an owner's apply keeps only the items it sends.
	items := append(stepItems(gpfs.ProtocolsSteps(s, seen, dropped, droppedSMB)), clusterRecord(ctx, r, m.owner(), m)...)
	if len(items) > 0 && !a.apply(ctx, m.owner(), items, diags) {
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

// ImportState takes HOST/NAME; the Read that follows fills the rest from
// the record the last apply left on the admin node.
func (r *gpfsGatewaysResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importHostName(ctx, req, resp, "HOST/NAME: the admin node as SSH reaches it, then the gateways' name, e.g. 10.0.0.5:22/r5",
		"host", "name", "id")
}
