package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/day2"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

var (
	_ resource.ResourceWithConfigure      = (*gpfsClusterResource)(nil)
	_ resource.ResourceWithImportState    = (*gpfsClusterResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*gpfsClusterResource)(nil)
	_ resource.ResourceWithValidateConfig = (*gpfsClusterResource)(nil)
)

// NewGpfsClusterResource is the hpcstorage_gpfs_cluster resource.
func NewGpfsClusterResource() resource.Resource {
	return &gpfsClusterResource{clusterResource: clusterResource{name: "_gpfs_cluster"}}
}

type gpfsClusterResource struct {
	clusterResource
	poll time.Duration // the provider's poll interval, for the rolling restart's waits
}

func (r *gpfsClusterResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clusterResource.Configure(ctx, req, resp)
	if d, ok := req.ProviderData.(*providerData); ok {
		r.poll = d.PollInterval
	}
}

type gpfsClusterModel struct {
	ID           types.String `tfsdk:"id"`
	Host         types.String `tfsdk:"host"`
	SSH          types.Object `tfsdk:"ssh"`
	Name         types.String `tfsdk:"name"`
	Nodes        types.Map    `tfsdk:"nodes"`
	NodeClasses  types.Map    `tfsdk:"node_classes"`
	Config       types.Map    `tfsdk:"config"`
	ClusterID    types.String `tfsdk:"cluster_id"`
	MaxBlockSize types.String `tfsdk:"max_block_size"`
	NodeNames    types.List   `tfsdk:"node_names"`
	Drift        types.Map    `tfsdk:"drift"`
	Version      types.String `tfsdk:"version"`
	AllowDown    types.Bool   `tfsdk:"allow_downtime"`
}

func (r *gpfsClusterResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An IBM Spectrum Scale (GPFS) cluster: its nodes with their roles and licences, node classes, " +
			"configuration by node class (`mmchconfig`), and running daemons. Every mm command runs on one admin node " +
			"(`host`), which must reach the others over SSH as GPFS requires.\n\nEach plan and refresh reads the cluster back " +
			"(`mmlscluster -Y`, `mmlsconfig -Y`, `mmgetstate -a -Y`, `mmlsnodeclass -Y`); what differs shows in `drift` and " +
			"the next apply puts it back. An apply decides its commands from what it reads: `mmcrcluster` once (from a node " +
			"file, ssh/scp, daemons started at boot), `mmaddnode` for nodes added, `mmshutdown`/`mmdelnode` for nodes removed " +
			"from the configuration, `mmchlicense` for the nodes it brings in, `mmcrnodeclass`, `mmchconfig` per scope, and " +
			"`mmstartup` for daemons that are down.\n\n**Changes to a live cluster.** `maxblocksize` and `cesSharedRoot` change only " +
			"while GPFS is down on every node: on a running cluster that is an outage of every file system (`mmshutdown -a`, " +
			"set, `mmstartup -a`), so the plan refuses it, naming the value, unless `allow_downtime = true`. On a new cluster " +
			"they are set before the daemons first start, before any file system that depends on them (file systems read " +
			"`max_block_size`). Values a running daemon reads only when it starts (those without `-i`, e.g. `workerThreads`, " +
			"`maxFilesToCache`) are set, then each running node of their scope is restarted one at a time, as the plan's " +
			"warning lists them: the apply checks the cluster keeps quorum and every NSD another active server without the " +
			"node (`mmgetstate -a`, `mmlsnsd`), runs `mmshutdown -N` and `mmstartup -N`, and waits until the node is `active` " +
			"and its disks `up/ready` before the next (the sequence of the `gpfs` failure domain, under the same in-cluster " +
			"lock, named after the cluster). The nodes still to restart are recorded on the admin node first, so a run killed " +
			"half-way restarts the rest on the next apply.\n\n" +
			"Configuration keys are checked against a table of known attributes, with GPFS's case (`pagepool`, `maxMBpS`): a " +
			"wrongly cased or misspelt key fails the plan with the key it is nearest to, instead of being stored and ignored.\n\n" +
			"Destroy leaves the cluster as it is (deleting a cluster loses its file systems): it only removes the node files " +
			"this resource wrote on the admin node.",
		Attributes: map[string]schema.Attribute{
			"host": nodeHostAttribute("the mm commands (the cluster's admin node)"),
			"ssh":  sshResourceAttribute(),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Cluster name (`mmcrcluster -C`). Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 115)}},
			"nodes": schema.MapAttribute{Required: true, ElementType: types.ListType{ElemType: types.StringType},
				MarkdownDescription: "Nodes by GPFS node name, each with its roles: " + backtickList(gpfs.Roles) + ". " +
					"`quorum` and `manager` become the node file's designation (`nsd1:quorum-manager`); quorum, manager, NSD " +
					"server and gateway (CES protocol) nodes get a server licence, others a client licence. An odd number of " +
					"quorum nodes is recommended (the plan warns otherwise).",
				Validators: []validator.Map{mapvalidator.SizeAtLeast(1)}},
			"node_classes": schema.MapAttribute{Optional: true, ElementType: types.ListType{ElemType: types.StringType},
				MarkdownDescription: "User node classes (`mmcrnodeclass`), by name, with their member nodes; `config` sets " +
					"values per class (R5: `nsdServers` for the NSD servers; system classes such as `nsdNodes` or `cesNodes` are GPFS's own and cannot be defined here)."},
			"config": schema.MapAttribute{Optional: true, ElementType: types.MapType{ElemType: types.StringType},
				MarkdownDescription: "`mmchconfig` values by scope: `all` (cluster-wide, no `-N`), a node class of " +
					"`node_classes` or a node name; each a map of attribute to value, e.g. `{ all = { maxblocksize = \"8M\" }, " +
					"nsdServers = { pagepool = \"16G\" } }`; a system node class (`cesNodes`) is a scope too. Keys are case-sensitive and checked against: " +
					backtickList(gpfs.AttributeNames()) + "."},
			"id":         nodeIDAttribute("The cluster name."),
			"cluster_id": schema.StringAttribute{Computed: true, MarkdownDescription: "GPFS's cluster id, as `mmlscluster -Y` prints it.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"version": gpfsVersionAttribute("The Storage Scale version the nodes run. Raising it (after every node's " +
				"packages were upgraded) finishes the upgrade: `mmchconfig release=LATEST` runs whenever `minReleaseLevel` is " +
				"below it, and shows in `drift` until then. Lowering it is refused."),
			"max_block_size": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The cluster's `maxblocksize` once applied (`config.all.maxblocksize`, else GPFS's default " +
					gpfs.FormatSize(gpfs.DefaultMaxBlockSize) + "). File systems take it, so they are created after it is set and " +
					"a larger block size fails their plan (GPFS would refuse it with 6027-1084)."},
			"node_names": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The node names, sorted: NSDs check their servers against them."},
			"drift": nodeDriftAttribute(),
			"allow_downtime": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Accept a cluster-wide outage: a change of a value GPFS takes only with every daemon down " +
					"(`maxblocksize`, `cesSharedRoot`) stops GPFS on all nodes (`mmshutdown -a`), which unmounts every file " +
					"system until `mmstartup -a`. Off by default: such a change on a running cluster fails the plan (and, if the " +
					"value drifted by hand, the apply before its first command). Set it for the maintenance window, then back."},
		},
	}
}

// decode: the cluster has no raw attributes.
func (m *gpfsClusterModel) decode(context.Context, *diag.Diagnostics) {}

func (r *gpfsClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg gpfsClusterModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if s, ok := cfg.spec(ctx, &resp.Diagnostics); ok {
		var quiet diag.Diagnostics // warnings are for the plan
		validateClusterSpec(s, &quiet)
		for _, d := range quiet.Errors() {
			resp.Diagnostics.Append(d)
		}
	}
}

// ModifyPlan checks the rules, fills the computed values known from the
// configuration, and says which nodes a plan removes from the cluster.
func (r *gpfsClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() && !req.State.Raw.IsNull() {
		resp.Diagnostics.AddWarning("Cluster Kept", "Destroying hpcstorage_gpfs_cluster leaves the GPFS cluster running "+
			"(its file systems depend on it); only the node files on the admin node are removed.")
	}
	clusterPlan(ctx, req, resp, r.adjust)
}

func (r *gpfsClusterResource) adjust(ctx context.Context, plan, state *gpfsClusterModel, diags *diag.Diagnostics) bool {
	plan.Drift = emptyDrift()
	s, ok := plan.spec(ctx, diags)
	if !ok {
		return true
	}
	validateClusterSpec(s, diags)
	if diags.HasError() {
		return false
	}
	plan.fill(s)
	if state != nil && gpfs.VersionLess(plan.Version.ValueString(), state.Version.ValueString()) {
		addError(diags, path.Root("version"), "Storage Scale Downgrade", fmt.Sprintf("version %s is below %s: once "+
			"mmchconfig release=LATEST ran, the cluster admits no older code.", plan.Version.ValueString(), state.Version.ValueString()), nil)
		return false
	}
	if state != nil && gpfs.VersionLess(state.Version.ValueString(), plan.Version.ValueString()) {
		diags.AddAttributeWarning(path.Root("version"), "Storage Scale Upgrade Finished", fmt.Sprintf("The apply finishes the "+
			"upgrade to %s: mmchconfig release=LATEST (the cluster then admits no code below it; every node must run %s "+
			"already). The file systems' formats follow with mmchfs -V full.", plan.Version.ValueString(), plan.Version.ValueString()))
	}
	if state != nil && !r.liveChanges(ctx, plan, state, s, diags) {
		return false
	}
	if state != nil {
		var before map[string][]string
		diags.Append(state.Nodes.ElementsAs(ctx, &before, false)...)
		have := map[string]bool{}
		for _, n := range s.Nodes {
			have[n.Name] = true
		}
		for _, n := range slices.Sorted(maps.Keys(before)) {
			if !have[n] {
				diags.AddAttributeWarning(path.Root("nodes"), "Node Leaves The Cluster",
					fmt.Sprintf("Node %s is no longer configured: the apply stops GPFS on it (mmshutdown -N %s) and removes it "+
						"from the cluster (mmdelnode -N %s).", n, n, n))
			}
		}
	}
	return true
}

// liveChanges says at plan what a configuration change does to the
// running cluster: a value that needs every daemon down is refused unless
// allow_downtime (then announced), and values read at daemon start
// announce the rolling restart, node by node.
func (r *gpfsClusterResource) liveChanges(ctx context.Context, plan, state *gpfsClusterModel, s gpfs.ClusterSpec, diags *diag.Diagnostics) bool {
	before := map[string]map[string]string{}
	if !state.Config.IsNull() && !state.Config.IsUnknown() {
		diags.Append(state.Config.ElementsAs(ctx, &before, false)...)
	}
	changed := gpfs.ChangedConfig(before, s.Config)
	var outage []error
	restart := map[string][]string{}
	for _, scope := range slices.Sorted(maps.Keys(changed)) {
		for _, k := range changed[scope] {
			a := gpfs.Attributes[k]
			at := located.At("config").Key(scope).Key(k)
			switch {
			case a.NeedsDown && !s.AllowDowntime:
				outage = append(outage, located.Errorf(at, "%s=%s: GPFS takes %s only with the daemon down on every node, so "+
					"the apply would stop GPFS cluster-wide (mmshutdown -a), unmounting every file system until mmstartup -a. "+
					"This needs a cluster-wide outage: set allow_downtime = true for the maintenance window to accept it, or "+
					"keep %s", k, s.Config[scope][k], k, before[scope][k]))
			case a.NeedsDown:
				outage = append(outage, located.Warnf(at, "%s=%s: the apply stops GPFS on every node (mmshutdown -a), sets it "+
					"and starts GPFS again (mmstartup -a): every file system is unmounted meanwhile (allow_downtime is set).",
					k, s.Config[scope][k]))
			case !a.Immediate:
				for _, n := range gpfs.ScopeNodes(s, scope) {
					if !slices.Contains(restart[n], k) {
						restart[n] = append(restart[n], k)
					}
				}
			}
		}
	}
	addLocated(diags, path.Empty(), "Cluster-Wide Outage", "", errors.Join(outage...))
	if len(restart) > 0 {
		order := slices.Sorted(maps.Keys(restart))
		var lines []string
		for i, n := range order {
			lines = append(lines, fmt.Sprintf("%d. %s (%s)", i+1, n, strings.Join(restart[n], ", ")))
		}
		diags.AddAttributeWarning(path.Root("config"), "GPFS Restarted One Node At A Time", fmt.Sprintf("The changed values "+
			"take effect when a node's daemon starts: after mmchconfig, the apply restarts GPFS on each running node below, "+
			"one at a time, in this order; for each it checks that the cluster keeps quorum and every NSD another active "+
			"server without it (mmgetstate -a, mmlsnsd), runs mmshutdown -N then mmstartup -N, and waits until it is active "+
			"and its disks up/ready before the next:\n%s", strings.Join(lines, "\n")))
	}
	return !diags.HasError()
}

func (r *gpfsClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *gpfsClusterModel, diags *diag.Diagnostics) bool {
		return r.converge(ctx, plan, nil, diags)
	})
}

func (r *gpfsClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	clusterRead(ctx, req, resp, r.refresh)
}

// refresh reads the cluster back into drift; an imported one (no nodes
// yet) is filled from the -Y outputs. The cluster is never gone: a
// missing one shows as drift.
func (r *gpfsClusterResource) refresh(ctx context.Context, state *gpfsClusterModel, diags *diag.Diagnostics) (found, ok bool) {
	// Imported, or written before version existed: the paper's.
	if state.Version.IsNull() {
		state.Version = types.StringValue(gpfs.DefaultVersion)
	}
	// Imported, or written before it existed: the default.
	if state.AllowDown.IsNull() {
		state.AllowDown = types.BoolValue(false)
	}
	if state.Nodes.IsNull() {
		r.readImported(ctx, state, diags)
		return true, !diags.HasError()
	}
	s, ok := state.spec(ctx, diags)
	if !ok {
		return true, false
	}
	seen, ok := readCluster(ctx, state.admin(r.nodes), len(s.Classes) > 0, diags)
	if !ok {
		return true, false
	}
	state.Drift = driftMap(gpfs.ClusterDrift(s, seen))
	if seen.Exists {
		state.ClusterID = types.StringValue(seen.Cluster.ID)
	}
	return true, true
}

func (r *gpfsClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, prior *gpfsClusterModel, diags *diag.Diagnostics) bool {
		var before, after map[string][]string
		diags.Append(prior.Nodes.ElementsAs(ctx, &before, false)...)
		diags.Append(plan.Nodes.ElementsAs(ctx, &after, false)...)
		var dropped []string
		for n := range before {
			if _, ok := after[n]; !ok {
				dropped = append(dropped, n)
			}
		}
		return !diags.HasError() && r.converge(ctx, plan, dropped, diags)
	})
}

// Delete keeps the cluster (see the description) and removes the files.
func (r *gpfsClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, func(ctx context.Context, state *gpfsClusterModel, diags *diag.Diagnostics) {
		state.admin(r.nodes).remove(ctx, state.owner(), diags)
	})
}

// ImportState takes HOST/NAME: the admin node as SSH reaches it, then the
// cluster name; the Read that follows fills the rest from the -Y outputs.
func (r *gpfsClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	host, name, ok := cutImportID(req.ID)
	if !ok {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Give HOST/NAME: the admin node as SSH reaches it, "+
			"then the cluster name, e.g. 10.0.0.5:22/r5; got %q.", req.ID))
		return
	}
	for attr, v := range map[string]string{"host": host, "name": name, "id": name} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), v)...)
	}
}

// readImported fills an imported cluster from mmlscluster, mmlsconfig,
// mmlsnodeclass and mmlsnsd -X (NSD servers): see gpfs.ImportCluster.
func (r *gpfsClusterResource) readImported(ctx context.Context, m *gpfsClusterModel, diags *diag.Diagnostics) {
	a := m.admin(r.nodes)
	seen, ok := readCluster(ctx, a, true, diags)
	if !ok {
		return
	}
	if !seen.Exists || gpfs.ShortName(seen.Cluster.Name) != gpfs.ShortName(m.Name.ValueString()) {
		diags.AddError("Cluster Not Found", fmt.Sprintf("Host %s is not in a cluster named %s (mmlscluster -Y: %q).", a.host,
			m.Name.ValueString(), seen.Cluster.Name))
		return
	}
	var servers []string
	out, failed, ok := a.query(ctx, diags, "mmlsnsd", "-X", "-Y")
	if !ok {
		return
	}
	if failed == "" { // mmlsnsd fails when there is no NSD yet
		nsds, err := gpfs.ParseNSDs(out)
		if err != nil {
			diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmlsnsd -X -Y: %v", a.host, err))
			return
		}
		for _, n := range nsds {
			for _, s := range n.Servers {
				servers = append(servers, gpfs.ShortName(s))
			}
		}
	}
	s := gpfs.ImportCluster(seen, servers)
	s.Name = m.Name.ValueString()
	nodes := map[string][]string{}
	for _, n := range s.Nodes {
		nodes[n.Name] = n.Roles
	}
	var d diag.Diagnostics
	m.Nodes, d = types.MapValueFrom(ctx, types.ListType{ElemType: types.StringType}, nodes)
	diags.Append(d...)
	m.NodeClasses = types.MapNull(types.ListType{ElemType: types.StringType})
	if len(s.Classes) > 0 {
		m.NodeClasses, d = types.MapValueFrom(ctx, types.ListType{ElemType: types.StringType}, s.Classes)
		diags.Append(d...)
	}
	m.Config = types.MapNull(types.MapType{ElemType: types.StringType})
	if len(s.Config) > 0 {
		m.Config, d = types.MapValueFrom(ctx, types.MapType{ElemType: types.StringType}, s.Config)
		diags.Append(d...)
	}
	m.fill(s)
	m.ClusterID = types.StringValue(seen.Cluster.ID)
	m.Drift = driftMap(gpfs.ClusterDrift(s, seen))
}

// spec converts the model; known is false while an input is unknown.
func (m *gpfsClusterModel) spec(ctx context.Context, diags *diag.Diagnostics) (gpfs.ClusterSpec, bool) {
	if m.Name.IsUnknown() || m.Nodes.IsUnknown() || m.NodeClasses.IsUnknown() || m.Config.IsUnknown() {
		return gpfs.ClusterSpec{}, false
	}
	var nodes map[string][]string
	classes := map[string][]string{}
	config := map[string]map[string]string{}
	diags.Append(m.Nodes.ElementsAs(ctx, &nodes, false)...)
	if !m.NodeClasses.IsNull() {
		diags.Append(m.NodeClasses.ElementsAs(ctx, &classes, false)...)
	}
	if !m.Config.IsNull() {
		diags.Append(m.Config.ElementsAs(ctx, &config, false)...)
	}
	if diags.HasError() {
		return gpfs.ClusterSpec{}, false
	}
	s := gpfs.ClusterSpec{Name: m.Name.ValueString(), Classes: classes, Config: config, Dir: gpfsPath("cluster-" + m.Name.ValueString()),
		Version: m.Version.ValueString(), AllowDowntime: m.AllowDown.ValueBool()}
	for _, n := range slices.Sorted(maps.Keys(nodes)) {
		s.Nodes = append(s.Nodes, gpfs.Node{Name: n, Roles: nodes[n]})
	}
	return s, true
}

// validate checks the spec; maxblocksize is cluster-wide only.
func validateClusterSpec(s gpfs.ClusterSpec, diags *diag.Diagnostics) {
	ps := gpfs.ValidateCluster(s.Name, s.Nodes, s.Classes, s.Config)
	for scope, kv := range s.Config {
		if _, ok := kv["maxblocksize"]; ok && scope != gpfs.AllNodes {
			ps = append(ps, &located.Error{Path: located.At("config").Key(scope).Key("maxblocksize"),
				Err: errors.New("maxblocksize is cluster-wide: set it under config.all")})
		}
	}
	gpfsProblems(diags, ps)
}

func (m *gpfsClusterModel) fill(s gpfs.ClusterSpec) {
	m.ID = types.StringValue(s.Name)
	mbs := gpfs.FormatSize(gpfs.DefaultMaxBlockSize)
	if v, ok := s.Config[gpfs.AllNodes]["maxblocksize"]; ok {
		mbs = v
	}
	m.MaxBlockSize = types.StringValue(mbs)
	var names []string
	for _, n := range s.Nodes {
		names = append(names, n.Name)
	}
	m.NodeNames = stringList(names)
}

func (m *gpfsClusterModel) admin(nodes *nodeAccess) gpfsAdmin {
	return newGPFSAdmin(nodes, m.Host, m.SSH)
}

func (m *gpfsClusterModel) owner() string { return "gpfs-cluster-" + m.Name.ValueString() }

// readCluster runs the -Y queries; ok false on a transport or parse error.
func readCluster(ctx context.Context, a gpfsAdmin, withClasses bool, diags *diag.Diagnostics) (gpfs.ClusterSeen, bool) {
	var seen gpfs.ClusterSeen
	out, failed, ok := a.query(ctx, diags, "mmlscluster", "-Y")
	if !ok {
		return seen, false
	}
	if failed != "" {
		return seen, true // no cluster on this node yet
	}
	var err error
	if seen.Cluster, err = gpfs.ParseCluster(out); err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmlscluster -Y: %v", a.host, err))
		return seen, false
	}
	seen.Exists = true
	type q struct {
		argv  []string
		parse func(string) error
	}
	queries := []q{
		{[]string{"mmlsconfig", "-Y"}, func(o string) (e error) { seen.Config, e = gpfs.ParseConfig(o); return }},
		{[]string{"mmgetstate", "-a", "-Y"}, func(o string) (e error) { seen.States, e = gpfs.ParseStates(o); return }},
	}
	if withClasses {
		queries = append(queries, q{[]string{"mmlsnodeclass", "-Y"}, func(o string) (e error) { seen.Classes, e = gpfs.ParseNodeClasses(o); return }})
	}
	for _, qq := range queries {
		out, failed, ok := a.query(ctx, diags, qq.argv...)
		if !ok {
			return seen, false
		}
		if failed != "" {
			diags.AddError(gpfsKind+" Query Failed", fmt.Sprintf("Host %s: %s", a.host, failed))
			return seen, false
		}
		if err := qq.parse(out); err != nil {
			diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: %s: %v", a.host, strings.Join(qq.argv, " "), err))
			return seen, false
		}
	}
	return seen, true
}

// converge reads the cluster, runs what differs and reads it back.
func (r *gpfsClusterResource) converge(ctx context.Context, m *gpfsClusterModel, dropped []string, diags *diag.Diagnostics) bool {
	s, ok := m.spec(ctx, diags)
	if !ok {
		return false
	}
	// The plan's rules again, on values that may have been unknown then.
	var quiet diag.Diagnostics
	if validateClusterSpec(s, &quiet); quiet.HasError() {
		diags.Append(quiet.Errors()...)
		return false
	}
	a := m.admin(r.nodes)
	seen, ok := readCluster(ctx, a, len(s.Classes) > 0, diags)
	if !ok {
		return false
	}
	steps, err := gpfs.ClusterSteps(s, seen, dropped)
	if err != nil {
		addLocated(diags, path.Root("name"), "Cluster Change Refused", fmt.Sprintf("Host %s: nothing was sent to the cluster.", a.host), err)
		return false
	}
	// The node file stays on the node (and in the owner's records) every run.
	items := append([]protocol.Item{gpfsFile(s.Dir+"/nodes", gpfs.NodeFile(s.Nodes))}, stepItems(steps)...)
	items = dedupeFiles(items)
	if !a.apply(ctx, m.owner(), items, diags) {
		return false
	}
	if !r.restartPending(ctx, a, s, diags) {
		return false
	}
	seen, ok = readCluster(ctx, a, len(s.Classes) > 0, diags)
	if !ok {
		return false
	}
	if d := gpfs.ClusterDrift(s, seen); len(d) > 0 {
		// Daemons may take a moment to come up; anything else is a failure.
		for k, v := range d {
			if strings.HasPrefix(k, "state:") {
				diags.AddWarning("GPFS Daemon Not Active Yet", fmt.Sprintf("Host %s: %s: %s. The next refresh shows it as drift if it stays so.", a.host, k, v))
				delete(d, k)
			}
		}
		if len(d) > 0 {
			diags.AddError("Change Not Verified", fmt.Sprintf("Host %s: after apply the cluster still differs: %s", a.host, driftText(d)))
			return false
		}
	}
	m.fill(s)
	m.ClusterID = types.StringValue(seen.Cluster.ID)
	m.Drift = emptyDrift()
	return true
}

// restartPending restarts, one at a time, the nodes the record on the
// admin node lists (this apply's, and any a killed run left): each in the
// gpfs failure domain's sequence (quorum and NSD servers checked, shut
// down, started, active and its disks up), then out of the record.
func (r *gpfsClusterResource) restartPending(ctx context.Context, a gpfsAdmin, s gpfs.ClusterSpec, diags *diag.Diagnostics) bool {
	out, failed, ok := a.queryAs(ctx, diags, "restart-pending", s.ReadRestartArgv()...)
	if !ok {
		return false
	}
	if failed != "" {
		diags.AddError(gpfsKind+" Query Failed", fmt.Sprintf("Host %s: reading %s: %s", a.host, s.RestartFile(), failed))
		return false
	}
	var nodes []string
	for _, n := range strings.Fields(out) {
		if !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	slices.Sort(nodes)
	run := gpfsRunner{nodes: r.nodes, ssh: a.ssh, owner: day2Owner(s.Name)}
	for _, n := range nodes {
		m := day2.Member{Domain: s.Name, Kind: day2.KindGPFS, Host: a.host, Node: n, Admin: a.host}
		if err := day2.Roll(ctx, run, m, day2.Options{Poll: r.poll}, day2Turns, func(context.Context) error { return nil }); err != nil {
			stepError(diags, path.Root("config"), err)
			return false
		}
		if !a.apply(ctx, "gpfs-cluster-"+s.Name+"-restart", stepItems([]gpfs.Step{s.RestartDoneStep(n)}), diags) {
			return false
		}
	}
	return true
}

// gpfsRunner sends a sequence's items with the resource's SSH settings.
type gpfsRunner struct {
	nodes *nodeAccess
	ssh   types.Object
	owner string
}

func (g gpfsRunner) Run(ctx context.Context, host string, items []protocol.Item, check bool) (*protocol.Result, error) {
	var d diag.Diagnostics
	res, ok := nodeRun{nodes: g.nodes, host: host, ssh: g.ssh, owner: g.owner}.exec(ctx, items, check, &d)
	if !ok {
		return nil, errors.New(diagText(d))
	}
	return res, nil
}

// gpfsVersionAttribute is a Storage Scale version choice, the paper's by
// default.
func gpfsVersionAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(gpfs.DefaultVersion),
		Validators:          []validator.String{stringvalidator.OneOf(gpfs.Versions...)},
		MarkdownDescription: desc + " One of " + enumDoc(gpfs.Versions) + "; default `" + gpfs.DefaultVersion + "` (the R5 paper's)."}
}
