package provider

// One resource for a pool's images rather than one per image: Terraform
// reads and applies each resource instance on its own, so 200
// `hpcstorage_rbd_image` instances under for_each would cost 200 SSH
// requests for every refresh and apply. Here a refresh is one request
// (`rbd ls -l` lists every image with its size) and an apply one request
// carrying only the commands for what differs.

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/bytesize"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// NewRbdImagesResource is the hpcstorage_rbd_images resource: a pool's
// RBD images, managed as one set.
func NewRbdImagesResource() resource.Resource {
	return &rbdImagesResource{clusterResource{name: "_rbd_images"}}
}

type rbdImagesResource struct{ clusterResource }

type rbdImagesModel struct {
	ID                types.String              `tfsdk:"id"`
	AdminHost         types.String              `tfsdk:"admin_host"`
	SSH               types.Object              `tfsdk:"ssh"`
	Pool              types.String              `tfsdk:"pool"`
	PoolCapacityBytes types.Int64               `tfsdk:"pool_capacity_bytes"`
	ImagesRaw         types.Map                 `tfsdk:"images"`
	Images            map[string]rbdImageConfig `tfsdk:"-"`
	imagesKnown       bool                      `tfsdk:"-"`
	SizeBytes         types.Map                 `tfsdk:"size_bytes"`
	Clients           types.Map                 `tfsdk:"clients"`
	Drift             types.Map                 `tfsdk:"drift"`
}

type rbdImageConfig struct {
	Size     types.String `tfsdk:"size"`
	Features types.List   `tfsdk:"features"`
	Client   types.String `tfsdk:"client"`
}

func (r *rbdImagesResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The RBD images of one pool, as one set (R4: 200 images of 100 GB, 20 per client). An image " +
			"is created with `rbd create`, grown in place with `rbd resize` (a smaller size is refused at plan: shrinking cuts " +
			"the file system on it), and deleted with `rbd rm` when it leaves the map. A refresh lists the pool once " +
			"(`rbd ls -l --format json`), so an image resized or deleted by hand shows in `drift` and the next plan.\n\n" +
			"Why a set and not one resource per image: each Terraform resource instance is read and applied on its own, so " +
			"200 images under `for_each` would cost 200 SSH requests per refresh and per apply; this resource costs one of each.",
		Attributes: map[string]schema.Attribute{
			"admin_host": cephAdminHostAttribute(),
			"ssh":        sshResourceAttribute(),
			"pool": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "The pool (`hpcstorage_ceph_pool.name`)."},
			"pool_capacity_bytes": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "What the pool holds at its replication (`hpcstorage_ceph_pool.capacity_bytes`): an image " +
					"larger than this fails the plan; images adding up to more (thin provisioning) get a warning."},
			"images": schema.MapNestedAttribute{Required: true,
				MarkdownDescription: "Images by name.",
				Validators:          []validator.Map{mapvalidator.SizeAtMost(4096)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"size": schema.StringAttribute{Required: true,
						MarkdownDescription: "Size, binary units as rbd reads them (`100G` is 100 GiB), a whole number of MiB.",
						Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
					"features": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Image features at creation (`--image-feature`): " + backtickList(ceph.ImageFeatures) +
							". Unset: the cluster's default (`layering,exclusive-lock,object-map,fast-diff,deep-flatten`).",
						Validators: []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(ceph.ImageFeatures...))}},
					"client": schema.StringAttribute{Optional: true,
						MarkdownDescription: "The client that maps this image (`hpcstorage_rbd_client.name`); a client mapping an " +
							"image given to another one fails its plan."},
				}},
			},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The pool name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"size_bytes": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
				MarkdownDescription: "Each image's size in bytes as planned (after apply: as the pool holds it)."},
			"clients": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Image name to the client it is given to (images with a `client`); `hpcstorage_rbd_client` checks it."},
			"drift": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Images that differ in the pool from the last apply (missing, resized by hand), by name. " +
					"Empty after every apply; a refresh that finds differences fills it, so the plan shows an update."},
		},
	}
}

type rbdImage struct {
	name     string
	bytes    int64
	features []string
	client   string
}

func (m *rbdImagesModel) decode(ctx context.Context, diags *diag.Diagnostics) {
	m.imagesKnown = !m.ImagesRaw.IsUnknown() && !m.ImagesRaw.IsNull()
	if m.imagesKnown {
		diags.Append(m.ImagesRaw.ElementsAs(ctx, &m.Images, false)...)
	}
}

// images converts the map, reporting bad values on their attribute; known
// is false while a value is unknown.
func (m *rbdImagesModel) images(diags *diag.Diagnostics) ([]rbdImage, bool) {
	var out []rbdImage
	known := m.imagesKnown
	for name, c := range m.Images {
		at := path.Root("images").AtMapKey(name)
		if err := ceph.ValidName(located.At("images").Key(name), name); err != nil {
			cephInvalid(diags, err)
			continue
		}
		if c.Size.IsUnknown() || c.Features.IsUnknown() || c.Client.IsUnknown() {
			known = false
			continue
		}
		b, err := bytesize.Parse(c.Size.ValueString())
		if err != nil || b <= 0 || b%ceph.MiB != 0 {
			addError(diags, at.AtName("size"), "Invalid Image Size", fmt.Sprintf("%q: want a positive whole number of MiB "+
				"such as 100G, 102400M.", c.Size.ValueString()), err)
			continue
		}
		img := rbdImage{name: name, bytes: b, client: c.Client.ValueString()}
		img.features = stringsOf(c.Features.Elements())
		out = append(out, img)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, known
}

func (m *rbdImagesModel) fill(imgs []rbdImage) {
	sizes := map[string]attr.Value{}
	clients := map[string]attr.Value{}
	for _, i := range imgs {
		sizes[i.name] = types.Int64Value(i.bytes)
		if i.client != "" {
			clients[i.name] = types.StringValue(i.client)
		}
	}
	m.SizeBytes = types.MapValueMust(types.Int64Type, sizes)
	m.Clients = types.MapValueMust(types.StringType, clients)
	m.Drift = emptyDrift()
	m.ID = m.Pool
}

func (r *rbdImagesResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m rbdImagesModel
	getModel(ctx, req.Config, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	imgs, known := m.images(&resp.Diagnostics)
	if known {
		m.checkCapacity(imgs, &resp.Diagnostics)
	}
}

// checkCapacity: an image larger than the pool holds at its replication
// fails; a total above it (thin provisioning) warns.
func (m *rbdImagesModel) checkCapacity(imgs []rbdImage, diags *diag.Diagnostics) {
	if m.PoolCapacityBytes.IsNull() || m.PoolCapacityBytes.IsUnknown() {
		return
	}
	capacity := m.PoolCapacityBytes.ValueInt64()
	var total int64
	for _, i := range imgs {
		total += i.bytes
		if i.bytes > capacity {
			addError(diags, path.Root("images").AtMapKey(i.name).AtName("size"), "Image Larger Than The Pool",
				fmt.Sprintf("Image %s is %d bytes; pool %s holds %d bytes at its replication (raw capacity / size). It could "+
					"never be filled.", i.name, i.bytes, m.Pool.ValueString(), capacity), nil)
		}
	}
	if total > capacity && !diags.HasError() {
		diags.AddAttributeWarning(path.Root("images"), "Images Overcommit The Pool", fmt.Sprintf("The %d images add up to "+
			"%d bytes, more than the %d bytes pool %s holds at its replication: filling them all would fill the cluster.",
			len(imgs), total, capacity, m.Pool.ValueString()))
	}
}

func (r *rbdImagesResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	clusterPlan(ctx, req, resp, func(ctx context.Context, plan, state *rbdImagesModel, diags *diag.Diagnostics) bool {
		imgs, known := plan.images(diags)
		// An image of someone else's with a name this set adds needs only
		// the names: checked whenever the pool can be read, sizes known
		// or not (otherwise at apply, before the first command).
		prior := priorNames(state)
		added := false
		for name := range plan.Images {
			added = added || !prior[name]
		}
		if added && r.nodes != nil && !plan.AdminHost.IsUnknown() && !plan.Pool.IsUnknown() && plan.imagesKnown {
			var quiet diag.Diagnostics
			if have, owned, ok := r.read(ctx, plan, &quiet); ok {
				checkTakeover(plan, prior, have, owned, diags)
			}
		}
		if diags.HasError() || !known {
			return false
		}
		plan.checkCapacity(imgs, diags)
		plan.fill(imgs)
		if state == nil {
			return true
		}
		// The state holds the sizes the pool had at refresh: a smaller
		// size is a shrink, refused.
		for _, i := range imgs {
			v, ok := state.SizeBytes.Elements()[i.name].(types.Int64)
			if ok && !v.IsNull() && v.ValueInt64() > i.bytes {
				addError(diags, path.Root("images").AtMapKey(i.name).AtName("size"), "Image Shrink Refused",
					fmt.Sprintf("Image %s/%s holds %d bytes; %d would cut off the end of whatever is on it. rbd needs "+
						"--allow-shrink for that and this provider never passes it: shrink the file system and the image by "+
						"hand, or keep the size.", plan.Pool.ValueString(), i.name, v.ValueInt64(), i.bytes), nil)
			}
		}
		return true
	})
}

// read lists the pool's images and those this provider created there.
func (r *rbdImagesResource) read(ctx context.Context, m *rbdImagesModel, diags *diag.Diagnostics) (map[string]ceph.Image, map[string]bool, bool) {
	q, owned := ceph.QueryImages(m.Pool.ValueString()), ceph.QueryOwned(ceph.OwnedImage(m.Pool.ValueString()))
	out, ok := cephOn(r.nodes, m.AdminHost, m.SSH).query(ctx, diags, q, owned)
	if !ok {
		return nil, nil, false
	}
	have, err := ceph.ParseRbdLs([]byte(out[q.Command.Name]))
	if err != nil {
		diags.AddError("Unexpected rbd Output", err.Error())
		return nil, nil, false
	}
	return have, ceph.ParseOwned(out[owned.Command.Name]), true
}

// priorNames are the images of the prior state (none on create).
func priorNames(state *rbdImagesModel) map[string]bool {
	out := map[string]bool{}
	if state != nil {
		for name := range state.Images {
			out[name] = true
		}
	}
	return out
}

// checkTakeover refuses an image the set adds that the pool already holds
// and this provider did not create: the set would take another project's
// image over (grow it, delete it on destroy). Adopting it is an import.
func checkTakeover(m *rbdImagesModel, prior map[string]bool, have map[string]ceph.Image, owned map[string]bool, diags *diag.Diagnostics) {
	names := make([]string, 0, len(m.Images))
	for name := range m.Images {
		names = append(names, name)
	}
	sort.Strings(names)
	// A new set on a pool whose images another set made: one set per pool
	// (both would be the pool's set, and each would delete the other's
	// images on destroy).
	if len(prior) == 0 {
		var others []string
		for name := range owned {
			if _, ours := m.Images[name]; !ours {
				if _, exists := have[name]; exists {
					others = append(others, name)
				}
			}
		}
		sort.Strings(others)
		if len(others) > 0 {
			addError(diags, path.Root("pool"), "Pool Has An Image Set", fmt.Sprintf("Pool %s already holds images another "+
				"hpcstorage_rbd_images made (%s): a pool has one image set. Add these images to that set, or adopt the "+
				"pool's images with `terraform import` (ADMIN_HOST/%s).", m.Pool.ValueString(), strings.Join(others, ", "),
				m.Pool.ValueString()), nil)
		}
	}
	for _, name := range names {
		img, exists := have[name]
		if !exists || prior[name] || owned[name] {
			continue
		}
		addError(diags, path.Root("images").AtMapKey(name), "Image Exists In The Pool", fmt.Sprintf("Pool %s already "+
			"holds an image %s (%d bytes) that this provider did not create: this set would take it over, grow it and "+
			"delete it on destroy. Use another name, or adopt the pool's images with `terraform import` (ADMIN_HOST/%s).",
			m.Pool.ValueString(), name, img.SizeBytes, m.Pool.ValueString()), nil)
	}
}

// apply creates, grows and removes images (removed: in the prior state,
// not in the plan) in one request, then reads the pool back.
func (r *rbdImagesResource) apply(ctx context.Context, plan *rbdImagesModel, prior map[string]bool, diags *diag.Diagnostics) bool {
	imgs, _ := plan.images(diags)
	if diags.HasError() {
		return false
	}
	have, owned, ok := r.read(ctx, plan, diags)
	if !ok {
		return false
	}
	// What the plan could not check (the pool was not there yet), before
	// the first command.
	checkTakeover(plan, prior, have, owned, diags)
	if diags.HasError() {
		return false
	}
	pool := plan.Pool.ValueString()
	var items []protocol.Item
	nonce := clusterNonce()
	want := map[string]bool{}
	for _, i := range imgs {
		want[i.name] = true
		cur, exists := have[i.name]
		switch {
		case !exists:
			items = append(items, ceph.ImageCreate(pool, i.name, i.bytes, i.features))
		case cur.SizeBytes < i.bytes:
			items = append(items, ceph.ImageGrow(pool, i.name, i.bytes))
		case cur.SizeBytes > i.bytes:
			addError(diags, path.Root("images").AtMapKey(i.name).AtName("size"), "Image Shrink Refused",
				fmt.Sprintf("Image %s/%s holds %d bytes, more than %d: it is never shrunk.", pool, i.name, cur.SizeBytes, i.bytes), nil)
			return false
		}
	}
	for name := range prior {
		if _, exists := have[name]; exists && !want[name] {
			items = append(items, ceph.ImageRm(pool, name, nonce)...)
		}
	}
	if len(items) > 0 {
		if !cephOn(r.nodes, plan.AdminHost, plan.SSH).apply(ctx, "rbd-images-"+pool, items, "rbd Refused Image Change", diags) {
			return false
		}
		if have, _, ok = r.read(ctx, plan, diags); !ok {
			return false
		}
	}
	var bad []string
	for _, i := range imgs {
		if have[i.name].SizeBytes != i.bytes {
			bad = append(bad, fmt.Sprintf("%s (%d bytes)", i.name, have[i.name].SizeBytes))
		}
	}
	if len(bad) > 0 {
		diags.AddError("Change Not Verified", fmt.Sprintf("Pool %s: after apply, these images differ: %s", pool, strings.Join(bad, ", ")))
		return false
	}
	plan.fill(imgs)
	return true
}

func (r *rbdImagesResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *rbdImagesModel, diags *diag.Diagnostics) bool {
		return r.apply(ctx, plan, nil, diags)
	})
}

func (r *rbdImagesResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	clusterRead(ctx, req, resp, r.refresh)
}

// refresh sets the sizes the pool holds; images missing or resized by hand
// are drift.
func (r *rbdImagesResource) refresh(ctx context.Context, state *rbdImagesModel, diags *diag.Diagnostics) (bool, bool) {
	have, _, ok := r.read(ctx, state, diags)
	if !ok {
		return true, false
	}
	if state.ImagesRaw.IsNull() {
		readImportedImages(ctx, state, have, diags)
	}
	drift := map[string]string{}
	sizes := map[string]attr.Value{}
	for name, v := range state.SizeBytes.Elements() {
		want, _ := v.(types.Int64)
		cur, exists := have[name]
		switch {
		case !exists:
			drift[name] = "missing from the pool"
			sizes[name] = want
		case cur.SizeBytes != want.ValueInt64():
			drift[name] = fmt.Sprintf("size %d bytes, applied %d", cur.SizeBytes, want.ValueInt64())
			sizes[name] = types.Int64Value(cur.SizeBytes)
		default:
			sizes[name] = want
		}
	}
	state.SizeBytes = types.MapValueMust(types.Int64Type, sizes)
	state.Drift = driftMap(drift)
	return true, true
}

func (r *rbdImagesResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, state *rbdImagesModel, diags *diag.Diagnostics) bool {
		prior := map[string]bool{}
		for name := range state.Images {
			prior[name] = true
		}
		return r.apply(ctx, plan, prior, diags)
	})
}

func (r *rbdImagesResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, r.destroy)
}

// destroy removes the state's images that the pool still holds.
func (r *rbdImagesResource) destroy(ctx context.Context, state *rbdImagesModel, diags *diag.Diagnostics) {
	have, _, ok := r.read(ctx, state, diags)
	if !ok {
		return
	}
	var items []protocol.Item
	nonce := clusterNonce()
	names := make([]string, 0, len(state.Images))
	for name := range state.Images {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, exists := have[name]; exists {
			items = append(items, ceph.ImageRm(state.Pool.ValueString(), name, nonce)...)
		}
	}
	if len(items) == 0 {
		return
	}
	cephOn(r.nodes, state.AdminHost, state.SSH).apply(ctx, "rbd-images-"+state.Pool.ValueString(), items, "rbd Refused Image Deletion", diags)
}

// ImportState takes ADMIN_HOST/POOL; the Read that follows takes every
// image of the pool (`rbd ls -l`).
func (r *rbdImagesResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importHostName(ctx, req, resp, "ADMIN_HOST/POOL: the node holding the admin keyring as SSH reaches it, then the pool, "+
		"e.g. mon1/rbd", "admin_host", "pool", "id")
}

// readImportedImages fills an import (images null) with the pool's
// images: sizes in the largest binary unit that holds them exactly, as a
// configuration writes them; features and clients, which rbd ls does not
// say or Ceph does not keep, are left unset.
func readImportedImages(ctx context.Context, m *rbdImagesModel, have map[string]ceph.Image, diags *diag.Diagnostics) {
	images := map[string]rbdImageConfig{}
	sizes := map[string]attr.Value{}
	for name, img := range have {
		images[name] = rbdImageConfig{Size: types.StringValue(binarySize(img.SizeBytes)), Features: types.ListNull(types.StringType),
			Client: types.StringNull()}
		sizes[name] = types.Int64Value(img.SizeBytes)
	}
	v, d := types.MapValueFrom(ctx, types.ObjectType{AttrTypes: map[string]attr.Type{
		"size": types.StringType, "features": types.ListType{ElemType: types.StringType}, "client": types.StringType}}, images)
	diags.Append(d...)
	m.ImagesRaw = v
	m.SizeBytes = types.MapValueMust(types.Int64Type, sizes)
	m.Clients = types.MapValueMust(types.StringType, map[string]attr.Value{})
}

// binarySize writes bytes as rbd reads sizes: T, G or M, whichever is
// largest and exact.
func binarySize(b int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"T", 40}, {"G", 30}, {"M", 20}} {
		if b > 0 && b%(int64(1)<<u.shift) == 0 {
			return strconv.FormatInt(b>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(b>>20, 10) + "M"
}
