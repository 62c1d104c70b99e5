package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// NewCephClusterResource is the hpcstorage_ceph_cluster resource: a
// cephadm cluster bootstrapped on its first monitor, its hosts and the
// monitor and manager placement.
func NewCephClusterResource() resource.Resource {
	return &cephClusterResource{clusterResource{name: "_ceph_cluster"}}
}

type cephClusterResource struct{ clusterResource }

type cephClusterModel struct {
	ID             types.String               `tfsdk:"id"`
	SSH            types.Object               `tfsdk:"ssh"`
	BootstrapHost  types.String               `tfsdk:"bootstrap_host"`
	MonIP          types.String               `tfsdk:"mon_ip"`
	PublicNetwork  types.String               `tfsdk:"public_network"`
	ClusterNetwork types.String               `tfsdk:"cluster_network"`
	Dashboard      types.Bool                 `tfsdk:"dashboard"`
	AllowFQDN      types.Bool                 `tfsdk:"allow_fqdn_hostname"`
	HostsRaw       types.Map                  `tfsdk:"hosts"`
	Hosts          map[string]cephClusterHost `tfsdk:"-"`
	MonCount       types.Int64                `tfsdk:"mon_count"`
	MonLabel       types.String               `tfsdk:"mon_label"`
	MgrCount       types.Int64                `tfsdk:"mgr_count"`
	MgrLabel       types.String               `tfsdk:"mgr_label"`
	Release        types.String               `tfsdk:"release"`
	CephVersion    types.String               `tfsdk:"ceph_version"`
	FSID           types.String               `tfsdk:"fsid"`
	AdminHost      types.String               `tfsdk:"admin_host"`
	Mons           types.List                 `tfsdk:"mons"`
	MonHosts       types.List                 `tfsdk:"mon_hosts"`
	SSHPublicKey   types.String               `tfsdk:"ssh_public_key"`
	Drift          types.Map                  `tfsdk:"drift"`
}

type cephClusterHost struct {
	Host   types.String `tfsdk:"host"`
	Addr   types.String `tfsdk:"addr"`
	Labels types.List   `tfsdk:"labels"`
}

func (r *cephClusterResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Ceph cluster managed by cephadm (Pacific): `cephadm bootstrap` once on the first monitor " +
			"(no dashboard or monitoring stack unless `dashboard = true`), cephadm's SSH public key authorised for root on " +
			"every host (through the agent; destroy removes it again), the hosts added with their labels (`ceph orch host " +
			"add`), and the monitor and manager placement applied as service specs. Each refresh reads the cluster back " +
			"(`ceph orch host ls`, `ceph orch ls --export` without its dynamic fields, `ceph mon dump`): a host, label or " +
			"placement changed by hand shows in `drift` and the next apply puts it back.\n\nThe admin keyring stays on the " +
			"bootstrap host (`/etc/ceph/ceph.client.admin.keyring`); it is never read into Terraform. Destroy removes the SSH " +
			"key from the hosts but leaves the cluster: `cephadm rm-cluster --fsid FSID --force` on each host deletes it.",
		Attributes: map[string]schema.Attribute{
			"ssh": sshResourceAttribute(),
			"bootstrap_host": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "The key of `hosts` that is bootstrapped (the first monitor, which keeps the admin keyring)."},
			"mon_ip": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "The first monitor's IP (`--mon-ip`); the public network is its subnet."},
			"public_network": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				MarkdownDescription: "Public (client) network, CIDR; checked to contain `mon_ip`."},
			"cluster_network": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				MarkdownDescription: "Replication network between OSDs, CIDR (`--cluster-network`)."},
			"dashboard": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Deploy the dashboard and monitoring stack at bootstrap. Off by default (`--skip-dashboard --skip-monitoring-stack`)."},
			"allow_fqdn_hostname": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Hosts are named by FQDN (`--allow-fqdn-hostname`)."},
			"hosts": schema.MapNestedAttribute{Required: true,
				MarkdownDescription: "Every host of the cluster by Ceph host name (its hostname).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"host": schema.StringAttribute{Required: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
						MarkdownDescription: "Where the agent reaches it over SSH (name or address, optionally `name:port`)."},
					"addr": schema.StringAttribute{Required: true,
						MarkdownDescription: "The address cephadm connects to (`ceph orch host add HOST ADDR`)."},
					"labels": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Labels (`mon`, `mgr`, `osd`, `_admin`): specs place daemons by them.",
						Validators:          []validator.List{listvalidator.UniqueValues()}},
				}},
			},
			"mon_count": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(3),
				MarkdownDescription: "Monitors (odd, for a quorum).", Validators: []validator.Int64{int64validator.OneOf(1, 3, 5, 7)}},
			"mon_label": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("mon"),
				MarkdownDescription: "Monitors go on hosts with this label."},
			"mgr_count": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(2),
				MarkdownDescription: "Managers (one active, the others standby).", Validators: []validator.Int64{int64validator.Between(1, 5)}},
			"mgr_label": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("mgr"),
				MarkdownDescription: "Managers go on hosts with this label."},
			"release": cephReleaseAttribute("The Ceph release to bootstrap: `pacific` keeps cephadm's own image, as the " +
				"paper deployed; a newer one bootstraps `" + ceph.ImageRepo + ":v<ceph_version>`. Changing it on a running " +
				"cluster is refused (upgrade with `ceph orch upgrade`, then set it)."),
			"ceph_version": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The point release of `release` to bootstrap (`20.2.4`); unset: the newest known one. " +
					"Tentacle older than 20.2.4 is refused (CVE-2025-30156, a CephX authentication bypass)."},
			"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "The fsid.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"fsid": schema.StringAttribute{Computed: true, MarkdownDescription: "The cluster's fsid.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"admin_host": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "SSH address of the bootstrap host: the other Ceph resources' `admin_host`."},
			"mons": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Monitor names (`ceph mon dump`)."},
			"mon_hosts": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Monitor addresses, for clients' `mon_host`."},
			"ssh_public_key": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "cephadm's SSH public key, authorised on every host."},
			"drift": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "What differs in the cluster from this configuration (hosts, labels, mon/mgr placement). Empty after apply."},
		},
	}
}

func (m *cephClusterModel) decode(ctx context.Context, diags *diag.Diagnostics) {
	if !m.HostsRaw.IsNull() && !m.HostsRaw.IsUnknown() {
		diags.Append(m.HostsRaw.ElementsAs(ctx, &m.Hosts, false)...)
	}
}

func (m *cephClusterModel) bootstrap() ceph.Bootstrap {
	return ceph.Bootstrap{MonIP: m.MonIP.ValueString(), PublicNetwork: m.PublicNetwork.ValueString(),
		ClusterNetwork: m.ClusterNetwork.ValueString(), Dashboard: m.Dashboard.ValueBool(), AllowFQDN: m.AllowFQDN.ValueBool(),
		Image: ceph.ReleaseImage(m.Release.ValueString(), m.CephVersion.ValueString())}
}

func (m *cephClusterModel) specs() []ceph.ServiceSpec {
	return []ceph.ServiceSpec{
		{ServiceType: ceph.TypeMon, Placement: ceph.Placement{Count: int(m.MonCount.ValueInt64()), Label: m.MonLabel.ValueString()}},
		{ServiceType: ceph.TypeMgr, Placement: ceph.Placement{Count: int(m.MgrCount.ValueInt64()), Label: m.MgrLabel.ValueString()}},
	}
}

func (m *cephClusterModel) hostNames() []string {
	out := make([]string, 0, len(m.Hosts))
	for h := range m.Hosts {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

func (m *cephClusterModel) labels(h string) []string { return stringsOf(m.Hosts[h].Labels.Elements()) }

func (m *cephClusterModel) known() bool {
	if m.BootstrapHost.IsUnknown() || m.MonIP.IsUnknown() || m.PublicNetwork.IsUnknown() || m.ClusterNetwork.IsUnknown() ||
		m.MonCount.IsUnknown() || m.MonLabel.IsUnknown() || m.MgrCount.IsUnknown() || m.MgrLabel.IsUnknown() || m.Hosts == nil ||
		m.Release.IsUnknown() || m.CephVersion.IsUnknown() {
		return false
	}
	for _, h := range m.Hosts {
		if h.Host.IsUnknown() || h.Addr.IsUnknown() || h.Labels.IsUnknown() {
			return false
		}
	}
	return true
}

// check validates what is known of the configuration (a value unknown
// until apply only holds back the checks that need it): the bootstrap's
// addresses, the release, the hosts' names and addresses across the
// cluster, the specs and that enough hosts carry the monitor and manager
// labels. Errors are located at their attribute.
func (m *cephClusterModel) check(diags *diag.Diagnostics) {
	var errs []error
	b := m.bootstrap()
	if !m.MonIP.IsUnknown() && !m.PublicNetwork.IsUnknown() && !m.ClusterNetwork.IsUnknown() {
		errs = append(errs, b.Validate())
	} else {
		b.MonIP, b.PublicNetwork = known(m.MonIP), known(m.PublicNetwork)
	}
	if !m.Release.IsUnknown() && !m.CephVersion.IsUnknown() {
		errs = append(errs, ceph.ValidateRelease(m.Release.ValueString(), m.CephVersion.ValueString()))
	}
	if m.Hosts != nil {
		hosts := make([]ceph.ClusterHost, 0, len(m.Hosts))
		for _, h := range m.hostNames() {
			hosts = append(hosts, ceph.ClusterHost{Name: h, SSH: known(m.Hosts[h].Host), Addr: known(m.Hosts[h].Addr)})
		}
		errs = append(errs, ceph.CheckHosts(b, known(m.BootstrapHost), hosts))
	}
	labelsKnown := m.Hosts != nil
	labels := map[string][]string{}
	for h, x := range m.Hosts {
		labelsKnown = labelsKnown && !x.Labels.IsUnknown()
		labels[h] = stringsOf(x.Labels.Elements())
	}
	// specs() is the monitor spec, then the manager's.
	for i, s := range m.specs() {
		label, count := attr.Value(m.MonLabel), attr.Value(m.MonCount)
		if i == 1 {
			label, count = m.MgrLabel, m.MgrCount
		}
		if label.IsUnknown() || count.IsUnknown() {
			continue
		}
		if err := s.Validate(); err != nil {
			errs = append(errs, relocate(located.At(s.ServiceType+"_label"), err))
		}
		if labelsKnown {
			errs = append(errs, ceph.CheckLabels(s.ServiceType+"_count", s.Placement.Label, s.Placement.Count, labels))
		}
	}
	cephInvalid(diags, errors.Join(errs...))
}

// known is a string's value, "" while it is unknown.
func known(s types.String) string {
	if s.IsUnknown() {
		return ""
	}
	return s.ValueString()
}

func (r *cephClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m cephClusterModel
	getModel(ctx, req.Config, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.MonCount.IsNull() {
		m.MonCount = types.Int64Value(3)
	}
	if m.MgrCount.IsNull() {
		m.MgrCount = types.Int64Value(2)
	}
	if m.MonLabel.IsNull() {
		m.MonLabel = types.StringValue("mon")
	}
	if m.MgrLabel.IsNull() {
		m.MgrLabel = types.StringValue("mgr")
	}
	if m.Release.IsNull() {
		m.Release = types.StringValue(ceph.DefaultRelease)
	}
	m.check(&resp.Diagnostics)
}

func (r *cephClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	clusterPlan(ctx, req, resp, func(_ context.Context, plan, state *cephClusterModel, diags *diag.Diagnostics) bool {
		plan.check(diags)
		if diags.HasError() || !plan.known() {
			return false
		}
		plan.Drift = emptyDrift()
		if b, ok := plan.Hosts[plan.BootstrapHost.ValueString()]; ok {
			plan.AdminHost = b.Host
		}
		if state != nil && state.Release.IsNull() { // a state from before release existed: Pacific
			state.Release = types.StringValue(ceph.DefaultRelease)
		}
		if state != nil && (!plan.Release.Equal(state.Release) || !plan.CephVersion.Equal(state.CephVersion)) {
			addError(diags, path.Root("release"), "Ceph Release Change", fmt.Sprintf("The cluster runs %s %s; this "+
				"resource bootstraps a release but does not upgrade one: run `ceph orch upgrade start --image %s` "+
				"(one release at a time), then set release and ceph_version to what it runs.", state.Release.ValueString(),
				state.CephVersion.ValueString(), ceph.ReleaseImage(plan.Release.ValueString(), plan.CephVersion.ValueString())), nil)
			return false
		}
		if state != nil {
			plan.Mons, plan.MonHosts = state.Mons, state.MonHosts
			if !slices.Equal(plan.hostNames(), state.hostNames()) || !plan.MonCount.Equal(state.MonCount) || !plan.MonLabel.Equal(state.MonLabel) {
				plan.Mons = types.ListUnknown(types.StringType)
				plan.MonHosts = types.ListUnknown(types.StringType)
			}
		}
		return true
	})
}

// clusterView is what the bootstrap host reads back.
type clusterView struct {
	hosts map[string]ceph.Host
	specs map[string]map[string]any
	mons  ceph.MonMap
}

func (r *cephClusterResource) view(ctx context.Context, m *cephClusterModel, diags *diag.Diagnostics) (clusterView, bool) {
	var v clusterView
	out, ok := cephOn(r.nodes, m.AdminHost, m.SSH).query(ctx, diags, ceph.QueryHostLs, ceph.QueryExport, ceph.QueryMonDump)
	if !ok {
		return v, false
	}
	hl, err := ceph.ParseHostLs([]byte(out[ceph.QueryHostLs.Command.Name]))
	if err == nil {
		v.hosts = map[string]ceph.Host{}
		for _, h := range hl {
			v.hosts[h.Hostname] = h
		}
		v.specs, err = ceph.ParseOrchExport([]byte(out[ceph.QueryExport.Command.Name]))
	}
	if err == nil {
		v.mons, err = ceph.ParseMonDump([]byte(out[ceph.QueryMonDump.Command.Name]))
	}
	if err != nil {
		diags.AddError("Unexpected ceph Output", err.Error())
		return v, false
	}
	return v, true
}

// drift compares the cluster with the model.
func (m *cephClusterModel) drift(v clusterView) map[string]string {
	d := map[string]string{}
	for _, h := range m.hostNames() {
		got, ok := v.hosts[h]
		if !ok {
			d["host:"+h] = "not in the cluster"
			continue
		}
		var missing []string
		for _, l := range m.labels(h) {
			if !slices.Contains(got.Labels, l) {
				missing = append(missing, l)
			}
		}
		if len(missing) > 0 {
			d["host:"+h] = "labels missing: " + strings.Join(missing, ", ")
		}
	}
	for _, s := range m.specs() {
		got, ok := v.specs[s.ServiceName()]
		if !ok {
			d["spec:"+s.ServiceName()] = "not applied"
			continue
		}
		if diff, err := ceph.SpecDiff(s, got); err != nil || diff != "" {
			d["spec:"+s.ServiceName()] = diff
		}
	}
	return d
}

func (m *cephClusterModel) fill(v clusterView) {
	m.FSID = types.StringValue(v.mons.FSID)
	m.ID = m.FSID
	var names, addrs []attr.Value
	for _, mon := range v.mons.Mons {
		names = append(names, types.StringValue(mon.Name))
		addrs = append(addrs, types.StringValue(mon.IP()))
	}
	m.Mons = types.ListValueMust(types.StringType, names)
	m.MonHosts = types.ListValueMust(types.StringType, addrs)
	m.Drift = driftMap(m.drift(v))
}

// authorize puts cephadm's key on each host (revoke: takes it off).
func (r *cephClusterResource) authorize(ctx context.Context, m *cephClusterModel, hosts []string, key string, revoke bool, diags *diag.Diagnostics) bool {
	ok := true
	for _, h := range hosts {
		it := ceph.AuthorizeKey(key)
		if revoke {
			it = ceph.RevokeKey(key)
		}
		if !cephOn(r.nodes, m.Hosts[h].Host, m.SSH).apply(ctx, "ceph-cluster-key", []protocol.Item{it}, "cephadm Key Not Authorised", diags) {
			ok = false
		}
	}
	return ok
}

// converge brings hosts, labels and specs to the model (the cluster is
// bootstrapped), removing the hosts in gone.
func (r *cephClusterResource) converge(ctx context.Context, m *cephClusterModel, gone []string, diags *diag.Diagnostics) bool {
	v, ok := r.view(ctx, m, diags)
	if !ok {
		return false
	}
	nonce := clusterNonce()
	items := []protocol.Item{ceph.SpecDirItem()}
	var newHosts []string
	for _, h := range m.hostNames() {
		got, exists := v.hosts[h]
		if !exists {
			newHosts = append(newHosts, h)
			items = append(items, ceph.HostAdd(h, m.Hosts[h].Addr.ValueString(), m.labels(h)))
			continue
		}
		for _, l := range m.labels(h) {
			if !slices.Contains(got.Labels, l) {
				items = append(items, ceph.HostLabel(h, l, nonce))
			}
		}
	}
	for _, h := range gone {
		if _, exists := v.hosts[h]; exists {
			items = append(items, ceph.HostRm(h, nonce))
		}
	}
	if !r.authorize(ctx, m, newHosts, m.SSHPublicKey.ValueString(), false, diags) {
		return false
	}
	specs := m.specs()
	changed := false
	for _, s := range specs {
		got, exists := v.specs[s.ServiceName()]
		if d, _ := ceph.SpecDiff(s, got); !exists || d != "" {
			changed = true
		}
	}
	y, err := ceph.RenderYAML(specs...)
	if err != nil {
		cephInvalid(diags, relocate(located.At("mon_label"), err))
		return false
	}
	items = append(items, ceph.SpecFile("mon-mgr", y))
	if changed {
		items = append(items, ceph.SpecApply("mon-mgr", nonce))
	}
	items = append(items, clusterRecord(ctx, r, cephClusterOwner, m)...)
	if !cephOn(r.nodes, m.AdminHost, m.SSH).apply(ctx, cephClusterOwner, items, "cephadm Refused A Change", diags) {
		return false
	}
	if v, ok = r.view(ctx, m, diags); !ok {
		return false
	}
	m.fill(v)
	if len(m.Drift.Elements()) > 0 {
		diags.AddError("Change Not Verified", fmt.Sprintf("After apply, the cluster still differs: %v", m.Drift.Elements()))
		return false
	}
	return true
}

func (r *cephClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan cephClusterModel
	getModel(ctx, req.Plan, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	// Values the plan did not know are checked before the first command.
	plan.check(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.AdminHost = plan.Hosts[plan.BootstrapHost.ValueString()].Host
	// Bootstrap once (the admin keyring is the guard), then read the key
	// cephadm generated.
	run := cephOn(r.nodes, plan.AdminHost, plan.SSH).run("ceph-bootstrap")
	res, ok := run.exec(ctx, []protocol.Item{plan.bootstrap().Item(), ceph.QueryPubKey}, false, &resp.Diagnostics)
	if !ok {
		return
	}
	if res.Failed {
		run.itemErrors(res, "cephadm Bootstrap Failed", &resp.Diagnostics)
		return
	}
	key := strings.TrimSpace(res.Items[1].Output)
	if !strings.HasPrefix(key, "ssh-") && !strings.HasPrefix(key, "ecdsa-") {
		resp.Diagnostics.AddError("Unexpected cephadm Output", fmt.Sprintf("Host %s: %s does not hold an SSH public key.",
			plan.AdminHost.ValueString(), ceph.PubKeyFile))
		return
	}
	plan.SSHPublicKey = types.StringValue(key)
	// The bootstrap host holds the key already (cephadm adds it); the
	// agent records nothing for it, so destroy takes it off like the rest.
	if !r.authorize(ctx, &plan, []string{plan.BootstrapHost.ValueString()}, key, false, &resp.Diagnostics) {
		return
	}
	if !r.converge(ctx, &plan, nil, &resp.Diagnostics) {
		// The cluster exists: keep it in state so the next apply goes on.
		if plan.FSID.IsUnknown() {
			plan.FSID = types.StringValue("")
			plan.ID = types.StringValue(plan.AdminHost.ValueString())
		}
		plan.Drift = driftMap(map[string]string{"apply": "incomplete: re-run terraform apply"})
		for _, x := range []*types.List{&plan.Mons, &plan.MonHosts} {
			if x.IsUnknown() {
				*x = types.ListValueMust(types.StringType, nil)
			}
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *cephClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	imported, ok := readRecorded(ctx, r, r.nodes, &req, resp, "bootstrap_host", "admin_host", func(string) string { return cephClusterOwner })
	if !ok {
		return
	}
	clusterRead(ctx, req, resp, func(ctx context.Context, state *cephClusterModel, diags *diag.Diagnostics) (bool, bool) {
		if state.Release.IsNull() { // written before release existed: the paper's
			state.Release = types.StringValue(ceph.DefaultRelease)
		}
		v, ok := r.view(ctx, state, diags)
		if ok && imported {
			ok = r.readImported(ctx, state, v, diags)
		}
		if ok {
			state.fill(v)
		}
		return true, ok
	})
}

func (r *cephClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, r.update)
}

// update converges hosts, labels and specs, then takes cephadm's key off
// the hosts that left.
func (r *cephClusterResource) update(ctx context.Context, plan, state *cephClusterModel, diags *diag.Diagnostics) bool {
	if plan.check(diags); diags.HasError() {
		return false
	}
	plan.SSHPublicKey, plan.AdminHost = state.SSHPublicKey, state.AdminHost
	var gone []string
	for _, h := range state.hostNames() {
		if _, ok := plan.Hosts[h]; !ok {
			gone = append(gone, h)
		}
	}
	if !r.converge(ctx, plan, gone, diags) {
		return false
	}
	if len(gone) > 0 {
		r.authorize(ctx, state, gone, state.SSHPublicKey.ValueString(), true, diags)
	}
	return true
}

func (r *cephClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, r.destroy)
}

// destroy takes cephadm's key off the hosts and keeps the cluster.
func (r *cephClusterResource) destroy(ctx context.Context, state *cephClusterModel, diags *diag.Diagnostics) {
	if !r.authorize(ctx, state, state.hostNames(), state.SSHPublicKey.ValueString(), true, diags) {
		return
	}
	cephOn(r.nodes, state.AdminHost, state.SSH).remove(ctx, cephClusterOwner, diags)
	diags.AddWarning("Ceph Cluster Kept", fmt.Sprintf("cephadm's key is removed from the hosts; the cluster %s "+
		"keeps running. `cephadm rm-cluster --fsid %s --force` on each host deletes it and its data.", state.FSID.ValueString(),
		state.FSID.ValueString()))
}

// cephClusterOwner holds the cluster's specs and its record on the admin
// node.
const cephClusterOwner = "ceph-cluster"

// ImportState takes ADMIN_HOST/FSID: the bootstrap monitor as SSH reaches
// it, then the cluster's fsid; the Read that follows fills the
// configuration from the record the last apply left there.
func (r *cephClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importHostName(ctx, req, resp, "ADMIN_HOST/FSID: the bootstrap monitor as SSH reaches it, then the cluster's fsid (`ceph fsid`)",
		"admin_host", "fsid", "id")
}

// readImported checks that the node serves the cluster the import names
// and reads cephadm's public key, which the record does not hold.
func (r *cephClusterResource) readImported(ctx context.Context, m *cephClusterModel, v clusterView, diags *diag.Diagnostics) bool {
	if v.mons.FSID != m.FSID.ValueString() {
		diags.AddError("Another Ceph Cluster", fmt.Sprintf("Host %s serves cluster %s, not %s: check the import id.",
			m.AdminHost.ValueString(), v.mons.FSID, m.FSID.ValueString()))
		return false
	}
	out, ok := cephOn(r.nodes, m.AdminHost, m.SSH).query(ctx, diags, ceph.QueryPubKey)
	if !ok {
		return false
	}
	m.SSHPublicKey = types.StringValue(strings.TrimSpace(out[ceph.QueryPubKey.Command.Name]))
	return true
}
