package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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

// NewCephPoolResource is the hpcstorage_ceph_pool resource: a replicated
// RADOS pool for RBD.
func NewCephPoolResource() resource.Resource {
	return &cephPoolResource{clusterResource{name: "_ceph_pool"}}
}

type cephPoolResource struct{ clusterResource }

type cephPoolModel struct {
	ID               types.String `tfsdk:"id"`
	AdminHost        types.String `tfsdk:"admin_host"`
	SSH              types.Object `tfsdk:"ssh"`
	Name             types.String `tfsdk:"name"`
	Size             types.Int64  `tfsdk:"size"`
	MinSize          types.Int64  `tfsdk:"min_size"`
	PGNum            types.Int64  `tfsdk:"pg_num"`
	PGAutoscaleMode  types.String `tfsdk:"pg_autoscale_mode"`
	Application      types.String `tfsdk:"application"`
	RawCapacityBytes types.Int64  `tfsdk:"raw_capacity_bytes"`
	DeleteWithImages types.Bool   `tfsdk:"delete_with_images"`
	PoolID           types.Int64  `tfsdk:"pool_id"`
	CapacityBytes    types.Int64  `tfsdk:"capacity_bytes"`
}

func (r *cephPoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A replicated Ceph pool for RBD images: created with `ceph osd pool create`, its `size`, " +
			"`min_size` and placement groups set with `ceph osd pool set`, the `rbd` application enabled and the pool " +
			"initialised with `rbd pool init`. Every refresh reads it back (`ceph osd pool ls detail -f json`), so a size " +
			"changed by hand shows in the next plan and the apply puts it back.\n\nDestroy deletes the pool only when it holds " +
			"no image (images this run deletes first do not count), or when `delete_with_images = true`. Ceph refuses pool deletion unless " +
			"`mon_allow_pool_delete` is true: destroy sets it for that one deletion and back to false.",
		Attributes: map[string]schema.Attribute{
			"admin_host": cephAdminHostAttribute(),
			"ssh":        sshResourceAttribute(),
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Pool name (R4: `rbd`). Changing it replaces the pool."},
			"size": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(3),
				MarkdownDescription: fmt.Sprintf("Replicas of each object, %d to %d (R4: 2). With 2, `min_size` is 1 and the plan "+
					"warns: writes go on with a single copy while one OSD is down.", ceph.MinPoolSize, ceph.MaxPoolSize),
				Validators: []validator.Int64{int64validator.Between(ceph.MinPoolSize, ceph.MaxPoolSize)}},
			"min_size": schema.Int64Attribute{Optional: true, Computed: true,
				MarkdownDescription: "Replicas needed to serve I/O. Default as Ceph's: `size - size/2` (1 for size 2, 2 for size 3).",
				Validators:          []validator.Int64{int64validator.Between(1, ceph.MaxPoolSize)}},
			"pg_num": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Placement groups, a power of two. Setting it turns the autoscaler off (`pg_autoscale_mode = off`); " +
					"unset, the autoscaler sizes the pool.",
				Validators: []validator.Int64{int64validator.Between(1, 1<<16)}},
			"pg_autoscale_mode": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "The placement group autoscaler: " + backtickList(ceph.PGAutoscaleModes) + ". Default `on`, `off` when `pg_num` is set.",
				Validators:          []validator.String{stringvalidator.OneOf(ceph.PGAutoscaleModes...)}},
			"application": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("rbd"),
				MarkdownDescription: "Application enabled on the pool: `rbd`.",
				Validators:          []validator.String{stringvalidator.OneOf("rbd")}},
			"raw_capacity_bytes": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Raw capacity of the OSDs the pool spreads over (`hpcstorage_ceph_osd_spec.raw_bytes`), " +
					"so `capacity_bytes` is known at plan time. Unset, it is read from the cluster (`ceph status`) at apply.",
				Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"delete_with_images": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Let destroy delete the pool while it holds images. Off: destroy refuses, naming the images."},
			"id":      schema.StringAttribute{Computed: true, MarkdownDescription: "The pool name.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"pool_id": schema.Int64Attribute{Computed: true, MarkdownDescription: "Ceph's pool id."},
			"capacity_bytes": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "What the pool can hold at its replication: raw capacity divided by `size`."},
		},
	}
}

// decode: the pool has no raw attributes.
func (m *cephPoolModel) decode(context.Context, *diag.Diagnostics) {}

// defaults fills min_size and the autoscale mode from size and pg_num.
func (m *cephPoolModel) defaults() {
	if m.MinSize.IsNull() || m.MinSize.IsUnknown() {
		if !m.Size.IsUnknown() {
			s := m.Size.ValueInt64()
			m.MinSize = types.Int64Value(s - s/2)
		}
	}
	if m.PGAutoscaleMode.IsNull() || m.PGAutoscaleMode.IsUnknown() {
		if !m.PGNum.IsUnknown() {
			mode := "on"
			if !m.PGNum.IsNull() {
				mode = "off"
			}
			m.PGAutoscaleMode = types.StringValue(mode)
		}
	}
	if !m.RawCapacityBytes.IsNull() && !m.RawCapacityBytes.IsUnknown() && !m.Size.IsUnknown() {
		m.CapacityBytes = types.Int64Value(m.RawCapacityBytes.ValueInt64() / m.Size.ValueInt64())
	}
}

// validate checks the known values; v (nil: not known) is what the
// cluster holds: the failure domains the pool's copies spread over, and
// the other pools' placement groups.
func (m *cephPoolModel) validate(v *poolView, diags *diag.Diagnostics) {
	var errs []error
	if !m.Name.IsUnknown() {
		errs = append(errs, ceph.ValidName(located.At("name"), m.Name.ValueString()))
	}
	if !m.MinSize.IsUnknown() && !m.Size.IsUnknown() {
		var fd *ceph.FailureDomains
		if v != nil {
			fd = &v.domains
		}
		errs = append(errs, ceph.CheckPoolSize(int(m.Size.ValueInt64()), int(m.MinSize.ValueInt64()), fd))
	}
	if v != nil && !m.Size.IsUnknown() && !m.PGNum.IsUnknown() {
		// Without pg_num the pool keeps what it has (a new one: Ceph's default).
		pg, at := v.pgNum, located.At("size")
		if !m.PGNum.IsNull() {
			pg, at = int(m.PGNum.ValueInt64()), located.At("pg_num")
		}
		errs = append(errs, ceph.CheckPGNum(at, pg, int(m.Size.ValueInt64()), v.otherPGs, v.domains.OSDs))
	}
	cephInvalid(diags, errors.Join(errs...))
	if !m.PGNum.IsNull() && !m.PGNum.IsUnknown() {
		n := m.PGNum.ValueInt64()
		if n&(n-1) != 0 {
			addError(diags, path.Root("pg_num"), "Invalid Ceph Setting", fmt.Sprintf("pg_num %d is not a power of two: Ceph "+
				"warns (POOL_PG_NUM_NOT_POWER_OF_TWO) and data spreads unevenly.", n), nil)
		}
		if !m.PGAutoscaleMode.IsNull() && !m.PGAutoscaleMode.IsUnknown() && m.PGAutoscaleMode.ValueString() == "on" {
			addError(diags, path.Root("pg_autoscale_mode"), "Invalid Ceph Setting", "pg_num is set: the autoscaler would "+
				"change it. Leave pg_autoscale_mode unset (off) or set it to warn.", nil)
		}
	}
}

func (r *cephPoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m cephPoolModel
	getModel(ctx, req.Config, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Size.IsNull() {
		m.Size = types.Int64Value(3)
	}
	m.defaults()
	m.validate(nil, &resp.Diagnostics)
}

func (r *cephPoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		if !req.State.Raw.IsNull() {
			// Images deleted in the same run (hpcstorage_rbd_images depends
			// on the pool, so Terraform removes them first) are gone by
			// the time Delete looks: at plan, a warning only.
			var state cephPoolModel
			var held diag.Diagnostics
			getModel(ctx, req.State, &state, &resp.Diagnostics)
			r.checkDelete(ctx, &state, &held)
			for _, d := range held {
				resp.Diagnostics.AddAttributeWarning(path.Root("delete_with_images"), d.Summary(), d.Detail()+
					" (Images this run deletes first do not count: the deletion is checked again right before it.)")
			}
		}
		return
	}
	var plan cephPoolModel
	getModel(ctx, req.Plan, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Name.IsUnknown() {
		plan.ID = plan.Name
	}
	plan.defaults()
	var state *cephPoolModel
	if !req.State.Raw.IsNull() {
		state = &cephPoolModel{}
		getModel(ctx, req.State, state, &resp.Diagnostics)
	}
	// With the cluster reachable, the pool is checked against the failure
	// domains that exist and, on create, against a pool of that name made
	// by someone else; otherwise both run at apply before the first command.
	var view *poolView
	changed := state == nil || !plan.Size.Equal(state.Size) || !plan.MinSize.Equal(state.MinSize) || !plan.PGNum.Equal(state.PGNum)
	if changed && r.nodes != nil && known(plan.AdminHost) != "" && !plan.Name.IsUnknown() {
		var quiet diag.Diagnostics
		if v, ok := r.look(ctx, &plan, &quiet); ok {
			view = &v
			if state == nil {
				v.checkTakeover(&plan, &resp.Diagnostics)
			}
		}
	}
	plan.validate(view, &resp.Diagnostics)
	if !plan.Size.IsUnknown() && !plan.MinSize.IsUnknown() && plan.MinSize.ValueInt64() == 1 {
		resp.Diagnostics.AddAttributeWarning(path.Root("min_size"), "Pool Serves I/O From One Copy",
			fmt.Sprintf("Pool %s has size %d and min_size 1: while a placement group is down to one replica it keeps "+
				"accepting writes, so losing that last OSD loses them. R4 runs size 2 for capacity; use size 3 (min_size 2) "+
				"where durability matters more.", plan.Name.ValueString(), plan.Size.ValueInt64()))
	}
	if state != nil {
		plan.PoolID = state.PoolID
		if plan.RawCapacityBytes.IsNull() && plan.Size.Equal(state.Size) {
			plan.CapacityBytes = state.CapacityBytes
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// poolView is what the plan checks a pool against: the failure domains
// of the rule a pool of that name has (a new pool: the default replicated
// rule), whether the pool exists and whether this provider made it.
type poolView struct {
	domains ceph.FailureDomains
	exists  bool
	ours    bool
	// pgNum is the pool's pg_num (a new pool: Ceph's default); otherPGs
	// the other pools' placement groups (pg_num × size).
	pgNum, otherPGs int
}

// look reads the pools, the CRUSH rules, the OSD tree and the provider's
// marks in one request.
func (r *cephPoolResource) look(ctx context.Context, m *cephPoolModel, diags *diag.Diagnostics) (poolView, bool) {
	var v poolView
	owned := ceph.QueryOwned(ceph.OwnedPool)
	out, ok := cephOn(r.nodes, m.AdminHost, m.SSH).query(ctx, diags, ceph.QueryPools, ceph.QueryCrushRules, ceph.QueryOSDTree, owned)
	if !ok {
		return v, false
	}
	pools, err := ceph.ParsePoolLsDetail([]byte(out[ceph.QueryPools.Command.Name]))
	if err != nil {
		diags.AddError("Unexpected ceph Output", err.Error())
		return v, false
	}
	rule := -1
	v.pgNum = ceph.DefaultPGNum
	for name, p := range pools {
		if name == m.Name.ValueString() {
			v.exists, rule, v.pgNum = true, p.CrushRule, p.PGNum
			continue
		}
		v.otherPGs += p.PGNum * p.Size
	}
	v.ours = ceph.ParseOwned(out[owned.Command.Name])[m.Name.ValueString()]
	if v.domains, err = ceph.ParseFailureDomains([]byte(out[ceph.QueryCrushRules.Command.Name]),
		[]byte(out[ceph.QueryOSDTree.Command.Name]), rule); err != nil {
		diags.AddError("Unexpected ceph Output", err.Error())
		return v, false
	}
	return v, true
}

// checkTakeover refuses to create a pool that someone else made: adopting
// it is an import.
func (v poolView) checkTakeover(m *cephPoolModel, diags *diag.Diagnostics) {
	if v.exists && !v.ours {
		addError(diags, path.Root("name"), "Pool Exists", fmt.Sprintf("Pool %s already exists in the cluster and was not "+
			"created by this provider: this resource would take it over and change its size and placement groups. Use "+
			"another name, or adopt it with `terraform import` (ADMIN_HOST/%s).", m.Name.ValueString(), m.Name.ValueString()), nil)
	}
}

// checkDelete refuses to destroy a pool holding images.
func (r *cephPoolResource) checkDelete(ctx context.Context, state *cephPoolModel, diags *diag.Diagnostics) {
	if r.nodes == nil || state.DeleteWithImages.ValueBool() {
		return
	}
	images, ok := r.images(ctx, state, diags)
	if ok && len(images) > 0 {
		addError(diags, path.Root("delete_with_images"), "Pool Holds Images", fmt.Sprintf("Pool %s holds %d images (%s...): "+
			"destroying it would delete them. Remove the images first, or set delete_with_images = true and apply before "+
			"destroying.", state.Name.ValueString(), len(images), firstOf(images)), nil)
	}
}

func firstOf(m map[string]ceph.Image) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return first
}

func (r *cephPoolResource) images(ctx context.Context, m *cephPoolModel, diags *diag.Diagnostics) (map[string]ceph.Image, bool) {
	q := ceph.QueryImages(m.Name.ValueString())
	out, ok := cephOn(r.nodes, m.AdminHost, m.SSH).query(ctx, diags, q)
	if !ok {
		return nil, false
	}
	imgs, err := ceph.ParseRbdLs([]byte(out[q.Command.Name]))
	if err != nil {
		diags.AddError("Unexpected rbd Output", err.Error())
		return nil, false
	}
	return imgs, true
}

// readPool reads the pool back; found is false when it does not exist.
func (r *cephPoolResource) readPool(ctx context.Context, m *cephPoolModel, withStatus bool, diags *diag.Diagnostics) (ceph.Pool, int64, bool, bool) {
	items := []protocol.Item{ceph.QueryPools}
	if withStatus {
		items = append(items, ceph.QueryStatus)
	}
	out, ok := cephOn(r.nodes, m.AdminHost, m.SSH).query(ctx, diags, items...)
	if !ok {
		return ceph.Pool{}, 0, false, false
	}
	pools, err := ceph.ParsePoolLsDetail([]byte(out[ceph.QueryPools.Command.Name]))
	if err != nil {
		diags.AddError("Unexpected ceph Output", err.Error())
		return ceph.Pool{}, 0, false, false
	}
	var raw int64
	if withStatus {
		var st struct {
			PGMap struct {
				BytesTotal int64 `json:"bytes_total"`
			} `json:"pgmap"`
		}
		if err := json.Unmarshal([]byte(out[ceph.QueryStatus.Command.Name]), &st); err != nil {
			diags.AddError("Unexpected ceph Output", "ceph status -f json: "+err.Error())
			return ceph.Pool{}, 0, false, false
		}
		raw = st.PGMap.BytesTotal
	}
	p, found := pools[m.Name.ValueString()]
	return p, raw, found, true
}

// changes are the commands that bring the pool to the plan.
func (m *cephPoolModel) changes(cur ceph.Pool, found bool, nonce string) []protocol.Item {
	name := m.Name.ValueString()
	var items []protocol.Item
	if !found {
		items = append(items, ceph.PoolCreate(name, int(m.PGNum.ValueInt64())))
	}
	set := func(key string, want, have string) {
		if !found || want != have {
			items = append(items, ceph.PoolSet(name, key, want, nonce))
		}
	}
	set("size", strconv.FormatInt(m.Size.ValueInt64(), 10), strconv.Itoa(cur.Size))
	set("min_size", strconv.FormatInt(m.MinSize.ValueInt64(), 10), strconv.Itoa(cur.MinSize))
	set("pg_autoscale_mode", m.PGAutoscaleMode.ValueString(), cur.PGAutoscaleMode)
	if !m.PGNum.IsNull() {
		set("pg_num", strconv.FormatInt(m.PGNum.ValueInt64(), 10), strconv.Itoa(cur.PGNum))
	}
	if _, ok := cur.Applications[m.Application.ValueString()]; !ok {
		items = append(items, ceph.PoolApplication(name, m.Application.ValueString(), nonce))
	}
	items = append(items, ceph.RbdPoolInit(name))
	return items
}

// converge applies what differs, reads the pool back and fills the state.
func (r *cephPoolResource) converge(ctx context.Context, m *cephPoolModel, created bool, diags *diag.Diagnostics) bool {
	// What the plan could not check (the cluster was not up yet) is
	// checked before the first command.
	v, ok := r.look(ctx, m, diags)
	if !ok {
		return false
	}
	if created {
		v.checkTakeover(m, diags)
	}
	m.validate(&v, diags)
	if diags.HasError() {
		return false
	}
	cur, _, found, ok := r.readPool(ctx, m, false, diags)
	if !ok {
		return false
	}
	items := append([]protocol.Item{ceph.SpecDirItem()}, m.changes(cur, found, clusterNonce())...)
	if !cephOn(r.nodes, m.AdminHost, m.SSH).apply(ctx, "ceph-pool-"+m.Name.ValueString(), items, "Ceph Refused Pool Change", diags) {
		return false
	}
	p, raw, found, ok := r.readPool(ctx, m, m.RawCapacityBytes.IsNull(), diags)
	if !ok {
		return false
	}
	if !found || p.Size != int(m.Size.ValueInt64()) || p.MinSize != int(m.MinSize.ValueInt64()) {
		diags.AddError("Change Not Verified", fmt.Sprintf("Host %s: after apply, pool %s reads back as %+v.",
			m.AdminHost.ValueString(), m.Name.ValueString(), p))
		return false
	}
	m.ID = m.Name
	m.PoolID = types.Int64Value(int64(p.ID))
	if m.RawCapacityBytes.IsNull() {
		m.CapacityBytes = types.Int64Value(raw / m.Size.ValueInt64())
	}
	return true
}

func (r *cephPoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *cephPoolModel, diags *diag.Diagnostics) bool {
		return r.converge(ctx, plan, true, diags)
	})
}

func (r *cephPoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	clusterRead(ctx, req, resp, r.refresh)
}

// refresh reads the pool back: what the cluster holds, so a value changed
// by hand shows in the plan.
func (r *cephPoolResource) refresh(ctx context.Context, state *cephPoolModel, diags *diag.Diagnostics) (bool, bool) {
	p, _, found, ok := r.readPool(ctx, state, false, diags)
	if !ok || !found {
		return found, ok
	}
	if state.Application.IsNull() {
		r.readImported(ctx, state, p, diags)
	}
	state.Size = types.Int64Value(int64(p.Size))
	state.MinSize = types.Int64Value(int64(p.MinSize))
	state.PGAutoscaleMode = types.StringValue(p.PGAutoscaleMode)
	if !state.PGNum.IsNull() {
		state.PGNum = types.Int64Value(int64(p.PGNum))
	}
	if _, ok := p.Applications[state.Application.ValueString()]; !ok {
		state.Application = types.StringValue("")
	}
	state.PoolID = types.Int64Value(int64(p.ID))
	return true, true
}

func (r *cephPoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, _ *cephPoolModel, diags *diag.Diagnostics) bool {
		return r.converge(ctx, plan, false, diags)
	})
}

func (r *cephPoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, r.destroy)
}

// destroy deletes the pool unless it holds images (delete_with_images).
func (r *cephPoolResource) destroy(ctx context.Context, state *cephPoolModel, diags *diag.Diagnostics) {
	r.checkDelete(ctx, state, diags)
	if diags.HasError() {
		return
	}
	sh, owner := cephOn(r.nodes, state.AdminHost, state.SSH), "ceph-pool-"+state.Name.ValueString()
	if !sh.apply(ctx, owner, append([]protocol.Item{ceph.SpecDirItem()}, ceph.PoolRm(state.Name.ValueString(), clusterNonce())...),
		"Ceph Refused Pool Deletion", diags) {
		return
	}
	// Forget the owner's records (its markers) on the admin node.
	sh.remove(ctx, owner, diags)
}

// ImportState takes ADMIN_HOST/NAME: the node holding the admin keyring as
// SSH reaches it, then the pool; the Read that follows fills the rest from
// `ceph osd pool ls detail`.
func (r *cephPoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importHostName(ctx, req, resp, "ADMIN_HOST/NAME: the node holding the admin keyring as SSH reaches it, then the pool's name, "+
		"e.g. mon1/rbd", "admin_host", "name", "id")
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("delete_with_images"), false)...)
}

// readImported fills what an import cannot name (application null is
// only ever an import's): the application enabled on the pool, pg_num
// when the autoscaler is off, and the capacity.
func (r *cephPoolResource) readImported(ctx context.Context, m *cephPoolModel, p ceph.Pool, diags *diag.Diagnostics) {
	m.Application = types.StringValue("")
	if _, ok := p.Applications["rbd"]; ok {
		m.Application = types.StringValue("rbd")
	}
	if p.PGAutoscaleMode == "off" {
		m.PGNum = types.Int64Value(int64(p.PGNum))
	}
	if _, raw, _, ok := r.readPool(ctx, m, true, diags); ok && p.Size > 0 {
		m.CapacityBytes = types.Int64Value(raw / int64(p.Size))
	}
}
