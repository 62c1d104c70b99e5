package provider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
)

// NewRbdClientResource is the hpcstorage_rbd_client resource: one node
// mapping its RBD images.
func NewRbdClientResource() resource.Resource {
	return &rbdClientResource{clusterResource{name: "_rbd_client"}}
}

type rbdClientResource struct{ clusterResource }

type rbdClientModel struct {
	ID           types.String `tfsdk:"id"`
	Host         types.String `tfsdk:"host"`
	AdminHost    types.String `tfsdk:"admin_host"`
	SSH          types.Object `tfsdk:"ssh"`
	Name         types.String `tfsdk:"name"`
	Pool         types.String `tfsdk:"pool"`
	Images       types.List   `tfsdk:"images"`
	ImageClients types.Map    `tfsdk:"image_clients"`
	FSID         types.String `tfsdk:"fsid"`
	MonHosts     types.List   `tfsdk:"mon_hosts"`
	KeyringHash  types.String `tfsdk:"keyring_hash"`
	Mapped       types.Map    `tfsdk:"mapped"`
	Drift        types.Map    `tfsdk:"drift"`
}

func (r *rbdClientResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An RBD client node: a cephx user with the caps RBD needs on one pool (`ceph auth " +
			"get-or-create client.NAME mon 'profile rbd' osd 'profile rbd pool=POOL'`, on the admin host), its keyring on the " +
			"client (`/etc/ceph/ceph.client.NAME.keyring`, mode 0600; state keeps only a hash of the key), a minimal " +
			"`/etc/ceph/ceph.conf` (fsid, monitors), `/etc/ceph/rbdmap` listing its images, the `rbdmap` unit enabled (it maps " +
			"them at boot) and each image mapped now (`rbd map`). Every refresh reads `rbd showmapped --format json` on the " +
			"client: an image unmapped by hand shows in `drift`.\n\nDestroy unmaps the images and removes the files and the " +
			"unit setting; the cephx user stays in the cluster.",
		Attributes: map[string]schema.Attribute{
			"host":       nodeHostAttribute("the client"),
			"admin_host": cephAdminHostAttribute(),
			"ssh":        sshResourceAttribute(),
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "The cephx id (`client.NAME`), e.g. the node's name."},
			"pool": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "The pool its images are in; the key's OSD caps are limited to it."},
			"images": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Images this client maps (R4: 20 each).",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues()}},
			"image_clients": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Image to client (`hpcstorage_rbd_images.clients`): an image given to another client fails " +
					"the plan (two clients writing one image without a cluster file system corrupt it)."},
			"fsid": schema.StringAttribute{Required: true, MarkdownDescription: "The cluster's fsid (`hpcstorage_ceph_cluster.fsid`)."},
			"mon_hosts": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Monitor addresses (`hpcstorage_ceph_cluster.mon_hosts`)."},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`host/client.NAME`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"keyring_hash": schema.StringAttribute{Computed: true,
				MarkdownDescription: "Hash of the cephx key written to the keyring (the key itself is never stored)."},
			"mapped": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "`POOL/IMAGE` to the block device it is mapped at (`/dev/rbd0`), as `rbd showmapped` says."},
			"drift": nodeDriftAttribute(),
		},
	}
}

// decode: the client has no raw attributes.
func (m *rbdClientModel) decode(context.Context, *diag.Diagnostics) {}

func (m *rbdClientModel) known() bool {
	return !m.Host.IsUnknown() && !m.Name.IsUnknown() && !m.Pool.IsUnknown() && !m.Images.IsUnknown() &&
		!m.ImageClients.IsUnknown() && !m.FSID.IsUnknown() && !m.MonHosts.IsUnknown()
}

func (m *rbdClientModel) client(key string, unread bool) ceph.Client {
	return ceph.Client{Name: m.Name.ValueString(), Pool: m.Pool.ValueString(), Images: stringsOf(m.Images.Elements()),
		FSID: m.FSID.ValueString(), MonHosts: stringsOf(m.MonHosts.Elements()), Key: key, Unread: unread}
}

// check validates what is known of the client (the names are known at
// plan even when the cluster's fsid and monitors are not) and that each
// image is its own.
func (m *rbdClientModel) check(diags *diag.Diagnostics) {
	c := m.client("", true)
	var errs []error
	if !m.Name.IsUnknown() && !m.Pool.IsUnknown() && !m.Images.IsUnknown() {
		errs = append(errs, c.ValidateNames())
	}
	if !m.FSID.IsUnknown() && !m.MonHosts.IsUnknown() {
		errs = append(errs, c.ValidateCluster())
	}
	cephInvalid(diags, errors.Join(errs...))
	if m.ImageClients.IsNull() || m.ImageClients.IsUnknown() || m.Images.IsUnknown() || m.Name.IsUnknown() {
		return
	}
	owners := m.ImageClients.Elements()
	for i, img := range c.Images {
		v, ok := owners[img].(types.String)
		switch {
		case !ok:
			addError(diags, path.Root("images").AtListIndex(i), "Image Not Given To Any Client", fmt.Sprintf("Image %s is not "+
				"in image_clients: give it to client %s in hpcstorage_rbd_images (client = %q) first.", img, c.Name, c.Name), nil)
		case !v.IsUnknown() && v.ValueString() != c.Name:
			addError(diags, path.Root("images").AtListIndex(i), "Image Of Another Client", fmt.Sprintf("Image %s/%s is given "+
				"to client %s, not %s: two clients mapping one image write over each other.", c.Pool, img, v.ValueString(), c.Name), nil)
		}
	}
}

func (r *rbdClientResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m rbdClientModel
	getModel(ctx, req.Config, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	m.check(&resp.Diagnostics)
}

func (r *rbdClientResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	clusterPlan(ctx, req, resp, func(_ context.Context, plan, state *rbdClientModel, diags *diag.Diagnostics) bool {
		plan.check(diags)
		if plan.known() {
			plan.ID = types.StringValue(plan.Host.ValueString() + "/client." + plan.Name.ValueString())
		}
		plan.Drift = emptyDrift()
		if state != nil {
			plan.KeyringHash = state.KeyringHash
			if plan.Images.Equal(state.Images) && len(state.Drift.Elements()) == 0 {
				plan.Mapped = state.Mapped
			}
		}
		return true
	})
}

func (m *rbdClientModel) owner() string { return "rbd-client-" + strings.ToLower(m.Name.ValueString()) }

// fetchKey creates the cephx user if needed and reads its key (admin host).
func (r *rbdClientResource) fetchKey(ctx context.Context, m *rbdClientModel, diags *diag.Diagnostics) (string, bool) {
	name := m.Name.ValueString()
	q := ceph.QueryAuth(name)
	run := cephOn(r.nodes, m.AdminHost, m.SSH).run("ceph-auth-" + strings.ToLower(name))
	res, ok := run.exec(ctx, []protocol.Item{ceph.AuthCreate(name, m.Pool.ValueString()), q}, false, diags)
	if !ok {
		return "", false
	}
	if res.Failed {
		run.itemErrors(res, "Ceph Refused The Client Key", diags)
		return "", false
	}
	ent, err := ceph.ParseAuthGet([]byte(res.Items[1].Output))
	if err != nil {
		diags.AddError("Unexpected ceph Output", err.Error())
		return "", false
	}
	if want := "profile rbd pool=" + m.Pool.ValueString(); ent.Caps["osd"] != want {
		addError(diags, path.Root("pool"), "Client Key Has Other Caps", fmt.Sprintf("client.%s exists with osd caps %q, not %q; "+
			"this provider does not change the caps of an existing user.", name, ent.Caps["osd"], want), nil)
		return "", false
	}
	return ent.Key, true
}

// mappedOf reads the showmapped item's output of a result.
func mappedOf(res *protocol.Result) (map[string]ceph.Mapped, error) {
	for _, ir := range res.Items {
		if ir.ID == "command:"+ceph.QueryShowmapped.Command.Name {
			return ceph.ParseShowmapped([]byte(ir.Output))
		}
	}
	return nil, fmt.Errorf("no rbd showmapped output")
}

func (m *rbdClientModel) fillMapped(all map[string]ceph.Mapped) {
	vals := map[string]attr.Value{}
	pool := m.Pool.ValueString()
	for _, img := range stringsOf(m.Images.Elements()) {
		if x, ok := all[pool+"/"+img]; ok {
			vals[pool+"/"+img] = types.StringValue(x.Device)
		}
	}
	m.Mapped = types.MapValueMust(types.StringType, vals)
}

func (r *rbdClientResource) apply(ctx context.Context, plan *rbdClientModel, previous []protocol.Item, diags *diag.Diagnostics) bool {
	// Values the plan did not know (the cluster's fsid and monitors) are
	// checked before the first command (the client's key).
	plan.check(diags)
	if diags.HasError() {
		return false
	}
	key, ok := r.fetchKey(ctx, plan, diags)
	if !ok {
		return false
	}
	items, err := plan.client(key, false).Items()
	if err != nil {
		cephInvalid(diags, err)
		return false
	}
	items = append(items, clusterRecord(ctx, r, plan.owner(), plan)...)
	run := nodeRun{nodes: r.nodes, host: plan.Host.ValueString(), ssh: plan.SSH, owner: plan.owner(),
		at: func(i int, _ string) path.Path { return path.Root("images") }}
	if !run.converge(ctx, items, previous, diags) {
		return false
	}
	out, ok := cephOn(r.nodes, plan.Host, plan.SSH).query(ctx, diags, ceph.QueryShowmapped)
	if !ok {
		return false
	}
	all, err := ceph.ParseShowmapped([]byte(out[ceph.QueryShowmapped.Command.Name]))
	if err != nil {
		diags.AddError("Unexpected rbd Output", err.Error())
		return false
	}
	plan.fillMapped(all)
	plan.KeyringHash = types.StringValue(secret.Hash(key))
	plan.ID = types.StringValue(plan.Host.ValueString() + "/client." + plan.Name.ValueString())
	plan.Drift = emptyDrift()
	return true
}

func (r *rbdClientResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *rbdClientModel, diags *diag.Diagnostics) bool {
		return r.apply(ctx, plan, nil, diags)
	})
}

func (r *rbdClientResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if _, ok := readRecorded(ctx, r, r.nodes, &req, resp, "admin_host", "host", func(name string) string {
		return (&rbdClientModel{Name: types.StringValue(name)}).owner()
	}); ok {
		clusterRead(ctx, req, resp, r.refresh)
	}
}

// refresh checks the client's items on the client (drift) and reads what
// it has mapped.
func (r *rbdClientResource) refresh(ctx context.Context, state *rbdClientModel, diags *diag.Diagnostics) (bool, bool) {
	items, err := state.client("", true).Items()
	if err != nil {
		cephInvalid(diags, err)
		return true, false
	}
	items = append(items, clusterRecord(ctx, r, state.owner(), state)...)
	res, ok := cephOn(r.nodes, state.Host, state.SSH).run(state.owner()).exec(ctx, items, true, diags)
	if !ok {
		return true, false
	}
	d := driftOf(res)
	for _, ir := range res.Items {
		if ir.Error != "" && !ir.Skipped {
			d[ir.ID] = "error: " + ir.Error
		}
	}
	all, err := mappedOf(res)
	if err != nil {
		diags.AddError("Unexpected rbd Output", err.Error())
		return true, false
	}
	state.fillMapped(all)
	state.Drift = driftMap(d)
	return true, true
}

func (r *rbdClientResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, state *rbdClientModel, diags *diag.Diagnostics) bool {
		previous, _ := state.client("", true).Items()
		previous = append(previous, clusterRecord(ctx, r, state.owner(), state)...)
		// Images no longer listed are unmapped first.
		r.unmap(ctx, state, stringsOf(plan.Images.Elements()), diags)
		return !diags.HasError() && r.apply(ctx, plan, previous, diags)
	})
}

// unmap unmaps the state's images that are mapped and not in keep.
func (r *rbdClientResource) unmap(ctx context.Context, m *rbdClientModel, keep []string, diags *diag.Diagnostics) {
	out, ok := cephOn(r.nodes, m.Host, m.SSH).query(ctx, diags, ceph.QueryShowmapped)
	if !ok {
		return
	}
	all, err := ceph.ParseShowmapped([]byte(out[ceph.QueryShowmapped.Command.Name]))
	if err != nil {
		diags.AddError("Unexpected rbd Output", err.Error())
		return
	}
	kept := map[string]bool{}
	for _, k := range keep {
		kept[k] = true
	}
	pool, nonce := m.Pool.ValueString(), clusterNonce()
	var items []protocol.Item
	imgs := stringsOf(m.Images.Elements())
	sort.Strings(imgs)
	for _, img := range imgs {
		if _, mapped := all[pool+"/"+img]; mapped && !kept[img] {
			items = append(items, ceph.UnmapItem(pool, img, nonce))
		}
	}
	if len(items) > 0 {
		cephOn(r.nodes, m.Host, m.SSH).apply(ctx, "rbd-unmap-"+strings.ToLower(m.Name.ValueString()), items, "rbd Refused Unmap", diags)
	}
}

func (r *rbdClientResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, func(ctx context.Context, state *rbdClientModel, diags *diag.Diagnostics) {
		r.unmap(ctx, state, nil, diags)
		if diags.HasError() {
			return
		}
		cephOn(r.nodes, state.Host, state.SSH).remove(ctx, state.owner(), diags)
	})
}

// ImportState takes HOST/NAME: the client as SSH reaches it, then its
// cephx name; the Read that follows fills the rest from the record the
// last apply left on the client.
func (r *rbdClientResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importHostName(ctx, req, resp, "HOST/NAME: the client as SSH reaches it, then its cephx name, e.g. client01/client01", "host", "name")
	if host, name, ok := cutImportID(req.ID); ok {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), host+"/client."+name)...)
	}
}
