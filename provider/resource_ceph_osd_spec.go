package provider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
)

// NewCephOSDSpecResource is the hpcstorage_ceph_osd_spec resource: a
// cephadm OSD service spec, checked against the hosts' devices at plan.
func NewCephOSDSpecResource() resource.Resource {
	return &cephOSDSpecResource{clusterResource{name: "_ceph_osd_spec"}}
}

type cephOSDSpecResource struct{ clusterResource }

type cephOSDSpecModel struct {
	ID             types.String           `tfsdk:"id"`
	AdminHost      types.String           `tfsdk:"admin_host"`
	SSH            types.Object           `tfsdk:"ssh"`
	ServiceID      types.String           `tfsdk:"service_id"`
	PlacementLabel types.String           `tfsdk:"placement_label"`
	PlacementHosts types.List             `tfsdk:"placement_hosts"`
	HostsRaw       types.Map              `tfsdk:"hosts"`
	DataRaw        types.Object           `tfsdk:"data_devices"`
	DBRaw          types.Object           `tfsdk:"db_devices"`
	Hosts          map[string]cephOSDHost `tfsdk:"-"`
	DataDevices    *cephDeviceFilter      `tfsdk:"-"`
	DBDevices      *cephDeviceFilter      `tfsdk:"-"`
	decodedKnown   bool                   `tfsdk:"-"`
	OSDsPerDevice  types.Int64            `tfsdk:"osds_per_device"`
	Encrypted      types.Bool             `tfsdk:"encrypted"`
	Release        types.String           `tfsdk:"release"`
	CrushClass     types.String           `tfsdk:"crush_device_class"`
	OSDDevices     types.Map              `tfsdk:"osd_devices"`
	OSDCount       types.Int64            `tfsdk:"osd_count"`
	RawBytes       types.Int64            `tfsdk:"raw_bytes"`
	SpecYAML       types.String           `tfsdk:"spec_yaml"`
	Rejected       types.Map              `tfsdk:"rejected_devices"`
	Drift          types.Map              `tfsdk:"drift"`
}

type cephOSDHost struct {
	DevicesRaw types.List       `tfsdk:"devices"`
	Devices    []cephDeviceFact `tfsdk:"-"`
}

type cephDeviceFact struct {
	Name       types.String `tfsdk:"name"`
	SizeBytes  types.Int64  `tfsdk:"size_bytes"`
	Rotational types.Bool   `tfsdk:"rotational"`
	Model      types.String `tfsdk:"model"`
	Vendor     types.String `tfsdk:"vendor"`
}

type cephDeviceFilter struct {
	Rotational types.Bool   `tfsdk:"rotational"`
	Model      types.String `tfsdk:"model"`
	Vendor     types.String `tfsdk:"vendor"`
	Size       types.String `tfsdk:"size"`
	Limit      types.Int64  `tfsdk:"limit"`
	All        types.Bool   `tfsdk:"all"`
}

func cephFilterAttribute(required bool, desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Required: required, Optional: !required, MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"rotational": schema.BoolAttribute{Optional: true, MarkdownDescription: "HDDs (`true`) or flash (`false`)."},
			"model": schema.StringAttribute{Optional: true,
				MarkdownDescription: "A substring of the device model, as Ceph matches it (`KCM6XRUL3T84`, or `KCM6`)."},
			"vendor": schema.StringAttribute{Optional: true, MarkdownDescription: "A substring of the vendor."},
			"size": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Ceph's size filter: `LOW:HIGH`, `:HIGH`, `LOW:` or an exact size, whole numbers with `KB`, " +
					"`MB`, `GB`, `TB` (decimal). Ceph compares it with the size ceph-volume prints (binary, two decimals: a 3.84 TB " +
					"drive is `3.49 TB`), and so does the plan. An inverted range (`3TB:2TB`) fails the plan: Ceph would accept it " +
					"and match nothing."},
			"limit": schema.Int64Attribute{Optional: true, MarkdownDescription: "Take at most this many devices per host.",
				Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"all": schema.BoolAttribute{Optional: true, MarkdownDescription: "Every available device (alone: no other filter)."},
		}}
}

func (r *cephOSDSpecResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A cephadm OSD service spec (`service_type: osd`, Pacific format), applied with `ceph orch " +
			"apply -i` only when the spec cephadm holds (`ceph orch ls --export`, dynamic fields ignored) differs.\n\nAt plan " +
			"time the spec's device filters are run on the hosts' devices (`hosts`, from `hpcstorage_node_facts`) with the " +
			"rules of Ceph's DriveSelection: `osd_devices` shows which devices each host turns into OSDs, and a host that " +
			"would get none fails the plan, naming its devices and why each was passed over (filter, or the reason " +
			"ceph-volume would reject it). After apply, devices cephadm rejects (`ceph orch device ls`) are reported with " +
			"cephadm's reason.\n\nDestroy removes the spec file only: cephadm keeps the OSDs (removing them moves data).",
		Attributes: map[string]schema.Attribute{
			"admin_host": cephAdminHostAttribute(),
			"ssh":        sshResourceAttribute(),
			"service_id": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "The spec's `service_id` (the service is `osd.<service_id>`): required, so re-applies " +
					"update this spec instead of adding an unnamed one."},
			"placement_label": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Place on every host with this label (R4: `osd`). Exclusive with `placement_hosts`."},
			"placement_hosts": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Place on these hosts (their Ceph names).",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues()}},
			"hosts": schema.MapNestedAttribute{Required: true,
				MarkdownDescription: "The hosts this spec places OSDs on, by Ceph host name, with their devices as " +
					"`hpcstorage_node_facts.block_devices` lists them.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"devices": schema.ListNestedAttribute{Required: true, NestedObject: schema.NestedAttributeObject{
						Attributes: map[string]schema.Attribute{
							"name":       schema.StringAttribute{Required: true, MarkdownDescription: "Kernel name (`nvme0n1`)."},
							"size_bytes": schema.Int64Attribute{Required: true, MarkdownDescription: "Size in bytes."},
							"rotational": schema.BoolAttribute{Optional: true, MarkdownDescription: "True for HDDs."},
							"model":      schema.StringAttribute{Optional: true, MarkdownDescription: "Model."},
							"vendor":     schema.StringAttribute{Optional: true, MarkdownDescription: "Vendor."},
						}},
						MarkdownDescription: "The host's disks."},
				}},
			},
			"release": cephReleaseAttribute("The Ceph release the cluster runs (the cluster's `release`): the spec is " +
				"rendered with only the keys that release's spec classes accept."),
			"crush_device_class": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The OSDs' CRUSH device class (`crush_device_class` in the spec; accepted from Pacific 16.2.15 on). Unset: Ceph detects `hdd`, `ssd` or `nvme`."},
			"data_devices": cephFilterAttribute(true, "Devices that hold OSD data."),
			"db_devices":   cephFilterAttribute(false, "Devices that hold the OSDs' RocksDB (a faster tier); never devices taken for data."),
			"osds_per_device": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1),
				MarkdownDescription: "OSD daemons per data device (fast NVMe often runs 2).",
				Validators:          []validator.Int64{int64validator.Between(1, 8)}},
			"encrypted": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Encrypt OSDs with dm-crypt (keys in the monitors)."},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`osd.<service_id>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"osd_devices": schema.MapAttribute{Computed: true, ElementType: types.ListType{ElemType: types.StringType},
				MarkdownDescription: "Host to the data devices that become OSDs, as Ceph's selection takes them."},
			"osd_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "OSD daemons the spec makes (data devices × `osds_per_device`)."},
			"raw_bytes": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Raw capacity of the selected data devices (feed `hpcstorage_ceph_pool.raw_capacity_bytes`)."},
			"spec_yaml": schema.StringAttribute{Computed: true, MarkdownDescription: "The spec file applied."},
			"rejected_devices": schema.MapAttribute{Computed: true, ElementType: types.ListType{ElemType: types.StringType},
				MarkdownDescription: "Host to devices the filters match but cephadm rejects, with cephadm's reason (`/dev/nvme3n1: " +
					"LVM detected, locked`), as `ceph orch device ls` said at the last apply or refresh."},
			"drift": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "How the spec cephadm holds differs from this one (changed or removed by hand). Empty after apply."},
		},
	}
}

// decode reads the raw attributes once known (decodedKnown).
func (m *cephOSDSpecModel) decode(ctx context.Context, diags *diag.Diagnostics) {
	m.decodedKnown = false
	// The filters first: the spec is checked as soon as they are known,
	// even while the hosts' devices are not.
	m.DataDevices, m.DBDevices = nil, nil
	for _, x := range []struct {
		raw types.Object
		out **cephDeviceFilter
	}{{m.DataRaw, &m.DataDevices}, {m.DBRaw, &m.DBDevices}} {
		if x.raw.IsNull() || x.raw.IsUnknown() {
			continue
		}
		var f cephDeviceFilter
		diags.Append(x.raw.As(ctx, &f, basetypes.ObjectAsOptions{})...)
		*x.out = &f
	}
	if m.HostsRaw.IsUnknown() || m.HostsRaw.IsNull() || m.DataRaw.IsUnknown() || m.DBRaw.IsUnknown() {
		return
	}
	diags.Append(m.HostsRaw.ElementsAs(ctx, &m.Hosts, false)...)
	for h, host := range m.Hosts {
		if host.DevicesRaw.IsUnknown() {
			return
		}
		diags.Append(host.DevicesRaw.ElementsAs(ctx, &host.Devices, false)...)
		m.Hosts[h] = host
	}
	m.decodedKnown = !diags.HasError()
}

func (f *cephDeviceFilter) filter() *ceph.DeviceFilter {
	if f == nil {
		return nil
	}
	out := &ceph.DeviceFilter{Model: f.Model.ValueString(), Vendor: f.Vendor.ValueString(), Size: f.Size.ValueString(),
		Limit: int(f.Limit.ValueInt64()), All: f.All.ValueBool()}
	if !f.Rotational.IsNull() && !f.Rotational.IsUnknown() {
		b := f.Rotational.ValueBool()
		out.Rotational = &b
	}
	return out
}

func (f *cephDeviceFilter) known() bool {
	return f == nil || !(f.Rotational.IsUnknown() || f.Model.IsUnknown() || f.Vendor.IsUnknown() || f.Size.IsUnknown() ||
		f.Limit.IsUnknown() || f.All.IsUnknown())
}

func (m *cephOSDSpecModel) known() bool {
	if m.ServiceID.IsUnknown() || m.PlacementLabel.IsUnknown() || m.PlacementHosts.IsUnknown() || m.OSDsPerDevice.IsUnknown() ||
		m.Encrypted.IsUnknown() || m.Release.IsUnknown() || m.CrushClass.IsUnknown() || !m.decodedKnown || !m.DataDevices.known() || !m.DBDevices.known() {
		return false
	}
	for _, h := range m.Hosts {
		for _, d := range h.Devices {
			if d.Name.IsUnknown() || d.SizeBytes.IsUnknown() || d.Rotational.IsUnknown() || d.Model.IsUnknown() ||
				d.Vendor.IsUnknown() {
				return false
			}
		}
	}
	return true
}

func (m *cephOSDSpecModel) spec() ceph.ServiceSpec {
	return ceph.ServiceSpec{ServiceType: ceph.TypeOSD, ServiceID: m.ServiceID.ValueString(),
		Placement:   ceph.Placement{Label: m.PlacementLabel.ValueString(), Hosts: stringsOf(m.PlacementHosts.Elements())},
		DataDevices: m.DataDevices.filter(), DBDevices: m.DBDevices.filter(), OSDsPerDevice: int(m.OSDsPerDevice.ValueInt64()),
		Encrypted: m.Encrypted.ValueBool(), Release: m.Release.ValueString(), CrushDeviceClass: m.CrushClass.ValueString()}
}

// ours reads osd_devices (of the prior state): the devices that hold this
// spec's OSDs. The facts show them as LVM members, which ceph-volume
// rejects for new OSDs; Ceph's selection still counts them for their
// spec (ceph_device), and so does the plan.
func ours(m types.Map) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	if m.IsNull() || m.IsUnknown() {
		return out
	}
	for h, v := range m.Elements() {
		l, ok := v.(types.List)
		if !ok {
			continue
		}
		out[h] = map[string]bool{}
		for _, p := range stringsOf(l.Elements()) {
			out[h][p] = true
		}
	}
	return out
}

// placedHosts are the hosts the spec places OSDs on: placement_hosts, or
// every host of hosts (placed by label).
func (m *cephOSDSpecModel) placedHosts() []string {
	names := stringsOf(m.PlacementHosts.Elements())
	if len(names) == 0 {
		for h := range m.Hosts {
			names = append(names, h)
		}
	}
	sort.Strings(names)
	return names
}

// facts are the hosts' devices from the configuration; held are the
// devices that hold this spec's OSDs already (the prior state's).
func (m *cephOSDSpecModel) facts(held map[string]map[string]bool) map[string][]ceph.Device {
	out := map[string][]ceph.Device{}
	for h, host := range m.Hosts {
		devs := []ceph.Device{}
		for _, d := range host.Devices {
			dev := ceph.FromFacts(d.Name.ValueString(), d.SizeBytes.ValueInt64(), d.Rotational.ValueBool(),
				d.Model.ValueString(), d.Vendor.ValueString(), "")
			dev.CephDevice = held[h][dev.Path]
			devs = append(devs, dev)
		}
		out[h] = devs
	}
	return out
}

// check validates the spec and plans its OSDs on cephadm's inventory
// (inv; the facts for a host it lacks); errors name the attribute.
func (m *cephOSDSpecModel) check(held map[string]map[string]bool, inv map[string][]ceph.Device, diags *diag.Diagnostics) []ceph.HostPlan {
	s := m.spec()
	if err := s.Validate(); err != nil {
		cephInvalid(diags, err)
		return nil
	}
	hosts, err := ceph.DevicesOf(m.placedHosts(), inv, m.facts(held))
	if err == nil {
		var plans []ceph.HostPlan
		if plans, err = ceph.PlanOSDs(s, hosts); err == nil {
			return plans
		}
	}
	reportOSDPlan(diags, err)
	return nil
}

// reportOSDPlan reports why the spec's OSDs cannot be planned.
func reportOSDPlan(diags *diag.Diagnostics, err error) {
	summary := "Invalid Ceph Setting"
	if errors.Is(err, ceph.ErrNoOSD) {
		summary = "OSD Spec Selects No Device"
	}
	addCephErr(diags, path.Root("data_devices"), summary, "Every host the spec places must get at least one OSD: "+
		"fix data_devices, or the hosts' devices.", err)
}

func (m *cephOSDSpecModel) fill(plans []ceph.HostPlan) {
	devs := map[string]attr.Value{}
	var count, raw int64
	for _, p := range plans {
		var l []attr.Value
		for _, d := range p.Data {
			l = append(l, types.StringValue(d.Path))
			raw += d.SizeBytes
		}
		devs[p.Host] = types.ListValueMust(types.StringType, l)
		count += int64(p.OSDs)
	}
	m.OSDDevices = types.MapValueMust(types.ListType{ElemType: types.StringType}, devs)
	m.OSDCount = types.Int64Value(count)
	m.RawBytes = types.Int64Value(raw)
	y, _ := ceph.RenderYAML(m.spec())
	m.SpecYAML = types.StringValue(string(y))
	m.ID = types.StringValue(m.spec().ServiceName())
	m.Drift = emptyDrift()
}

func (r *cephOSDSpecResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m cephOSDSpecModel
	getModel(ctx, req.Config, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.PlacementLabel.IsNull() && !m.PlacementHosts.IsNull() {
		addError(&resp.Diagnostics, path.Root("placement_hosts"), "Invalid Ceph Setting",
			"placement_label and placement_hosts are mutually exclusive.", nil)
	}
	if m.PlacementLabel.IsNull() && m.PlacementHosts.IsNull() {
		addError(&resp.Diagnostics, path.Root("placement_label"), "Invalid Ceph Setting",
			"Set placement_label or placement_hosts.", nil)
	}
	if m.OSDsPerDevice.IsNull() {
		m.OSDsPerDevice = types.Int64Value(1)
	}
	// The devices are checked at plan, where the prior state says which
	// already hold this spec's OSDs; here only the spec itself, as soon as
	// its own values are known (the hosts' devices may not be).
	if !resp.Diagnostics.HasError() && m.specKnown() {
		cephInvalid(&resp.Diagnostics, m.spec().Validate())
	}
}

// specKnown: the spec's own values are known (not necessarily the hosts').
func (m *cephOSDSpecModel) specKnown() bool {
	if m.ServiceID.IsUnknown() || m.PlacementLabel.IsUnknown() || m.PlacementHosts.IsUnknown() || m.OSDsPerDevice.IsUnknown() ||
		m.Encrypted.IsUnknown() || m.Release.IsUnknown() || m.CrushClass.IsUnknown() || m.DataRaw.IsUnknown() || m.DBRaw.IsUnknown() {
		return false
	}
	for _, x := range []types.Object{m.DataRaw, m.DBRaw} {
		for _, v := range x.Attributes() {
			if v.IsUnknown() {
				return false
			}
		}
	}
	return true
}

func (r *cephOSDSpecResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	clusterPlan(ctx, req, resp, func(ctx context.Context, plan, state *cephOSDSpecModel, diags *diag.Diagnostics) bool {
		if !plan.known() {
			return false
		}
		// With the cluster up, the plan runs on cephadm's own inventory (its
		// availability, reject reasons and the devices holding OSDs); before
		// it, on the facts.
		var inv map[string][]ceph.Device
		plan.Rejected = types.MapUnknown(types.ListType{ElemType: types.StringType})
		if r.nodes != nil && !plan.AdminHost.IsUnknown() && !plan.AdminHost.IsNull() && state != nil {
			var quiet diag.Diagnostics
			if rb, rejected, ok := r.readBack(ctx, plan, &quiet); ok {
				inv, plan.Rejected = rb.Inventory, rejected
			} else {
				diags.AddWarning("cephadm Inventory Not Read", fmt.Sprintf("The plan checks the devices from the facts "+
					"only: %v", quiet))
			}
		}
		if state == nil {
			state = &cephOSDSpecModel{}
		}
		plans := plan.check(ours(state.OSDDevices), inv, diags)
		if diags.HasError() {
			return false
		}
		plan.fill(plans)
		return true
	})
}

// owner holds the spec file and the record on the admin host.
func (m *cephOSDSpecModel) owner() string { return "ceph-" + strings.ToLower(m.spec().ServiceName()) }

// runner is internal/ceph's Runner on the admin host.
func (r *cephOSDSpecResource) runner(m *cephOSDSpecModel, diags *diag.Diagnostics) cephRunner {
	return cephRunner{sh: cephOn(r.nodes, m.AdminHost, m.SSH), summary: "cephadm Refused The OSD Spec", diags: diags}
}

// readBack reads what cephadm holds for the spec, with the devices it
// rejects as the rejected_devices map.
func (r *cephOSDSpecResource) readBack(ctx context.Context, m *cephOSDSpecModel, diags *diag.Diagnostics) (ceph.OSDReadBack, types.Map, bool) {
	hosts := make([]string, 0, len(m.Hosts))
	for h := range m.Hosts {
		hosts = append(hosts, h)
	}
	rb, err := ceph.ReadOSDSpec(ctx, r.runner(m, diags), m.spec(), hosts)
	if err != nil {
		addCephErr(diags, path.Empty(), "Unexpected ceph Output", "", err)
		return rb, types.Map{}, false
	}
	return rb, rejectedMap(rb.Rejected), true
}

func rejectedMap(rejected map[string][]string) types.Map {
	out := map[string]attr.Value{}
	for h, l := range rejected {
		vals := make([]attr.Value, len(l))
		for i, x := range l {
			vals[i] = types.StringValue(x)
		}
		out[h] = types.ListValueMust(types.StringType, vals)
	}
	return types.MapValueMust(types.ListType{ElemType: types.StringType}, out)
}

// apply runs internal/ceph's OSD apply sequence and fills the state.
func (r *cephOSDSpecResource) apply(ctx context.Context, plan *cephOSDSpecModel, held map[string]map[string]bool, diags *diag.Diagnostics) bool {
	s := plan.spec()
	res, err := ceph.ApplyOSDSpec(ctx, r.runner(plan, diags), ceph.OSDApply{Spec: s, Owner: plan.owner(),
		Placed: plan.placedHosts(), Facts: plan.facts(held), Nonce: clusterNonce(), Record: clusterRecord(ctx, r, plan.owner(), plan)})
	switch {
	case errors.Is(err, ceph.ErrNotVerified):
		addCephErr(diags, path.Empty(), "Change Not Verified", "", err)
		return false
	case errors.Is(err, ceph.ErrNoOSDMade):
		addCephErr(diags, path.Root("data_devices"), "OSD Spec Created No OSD", "", err)
		return false
	case err != nil:
		reportOSDPlan(diags, err)
		return false
	}
	plan.fill(res.Plans)
	plan.Rejected = rejectedMap(res.After.Rejected)
	for h, l := range res.After.Rejected {
		diags.AddAttributeWarning(path.Root("data_devices"), "cephadm Rejects Devices", fmt.Sprintf("Host %s: devices the spec "+
			"selects that cephadm will not use: %s", h, strings.Join(l, "; ")))
	}
	return true
}

func (r *cephOSDSpecResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *cephOSDSpecModel, diags *diag.Diagnostics) bool {
		return r.apply(ctx, plan, nil, diags)
	})
}

func (r *cephOSDSpecResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// An import (data_devices, a required attribute, still null) is filled
	// from the record the last apply left on the admin host.
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("service_id"), &id)...)
	owner := func(string) string { return (&cephOSDSpecModel{ServiceID: id}).owner() }
	if _, ok := readRecorded(ctx, r, r.nodes, &req, resp, "data_devices", "admin_host", owner); ok {
		clusterRead(ctx, req, resp, r.refresh)
	}
}

// refresh reads the exported spec back (a difference is drift) and the
// devices cephadm rejects.
func (r *cephOSDSpecResource) refresh(ctx context.Context, state *cephOSDSpecModel, diags *diag.Diagnostics) (bool, bool) {
	if state.Release.IsNull() { // written before release existed: the paper's
		state.Release = types.StringValue(ceph.DefaultRelease)
	}
	rb, rejected, ok := r.readBack(ctx, state, diags)
	if !ok {
		return true, false
	}
	if state.OSDDevices.IsNull() { // just imported: the OSDs as cephadm holds them
		plans := state.check(nil, rb.Inventory, diags)
		if diags.HasError() {
			return true, false
		}
		state.fill(plans)
	}
	d := map[string]string{}
	if rb.Diff != "" {
		d[state.spec().ServiceName()] = rb.Diff
	}
	state.Drift = driftMap(d)
	state.Rejected = rejected
	return true, true
}

func (r *cephOSDSpecResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, state *cephOSDSpecModel, diags *diag.Diagnostics) bool {
		return r.apply(ctx, plan, ours(state.OSDDevices), diags)
	})
}

func (r *cephOSDSpecResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, func(ctx context.Context, state *cephOSDSpecModel, diags *diag.Diagnostics) {
		name := state.spec().ServiceName()
		cephOn(r.nodes, state.AdminHost, state.SSH).remove(ctx, state.owner(), diags)
		diags.AddWarning("OSDs Kept", fmt.Sprintf("The spec file of %s is removed; cephadm keeps the service and its "+
			"OSDs (ceph orch rm %s, then removing the OSDs, moves their data off first).", name, name))
	})
}

// ImportState takes ADMIN_HOST/SERVICE_ID: the node holding the admin
// keyring as SSH reaches it, then the spec's service_id; the Read that
// follows fills the configuration from the record the last apply left.
func (r *cephOSDSpecResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importHostName(ctx, req, resp, "ADMIN_HOST/SERVICE_ID: the node holding the admin keyring as SSH reaches it, then the "+
		"spec's service_id, e.g. mon1/nvme", "admin_host", "service_id")
}
