package provider

// Resource identity (Terraform 1.12+): what each object is on the device,
// so `import { identity = { ... } }` needs no composed id string and
// `terraform query` can name what it lists. Every resource type keeps its
// own lifecycle; identified wraps it, as the AWS provider's interceptors
// do, and takes the identity from the state the type's methods leave:
// each identity attribute is a state attribute, or the last segment of the
// state's id where only the id holds it (a volume's id on the array).
// Import by identity joins the attributes with "/" into the import id the
// type already parses, so both ways of importing share one parser.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
)

// identityPart is one identity attribute.
type identityPart struct {
	name string
	// from is the state attribute holding it; idTail: the id's last segment.
	from string
	desc string
}

const idTail = ""

// providerTypeName prefixes every type name.
const providerTypeName = "hpcstorage"

var (
	partEndpoint  = identityPart{"endpoint", "endpoint", "Name of the endpoint in the provider's `endpoints` map."}
	partStorageID = identityPart{"storage_id", "storage_id", "The storage (array controller or RAID controller) the object lives in, as the resource's `storage_id`."}
	partHost      = identityPart{"host", "host", "The node as SSH reaches it, as the resource's `host`."}
	partAdminHost = identityPart{"admin_host", "admin_host", "The cluster's admin node as SSH reaches it."}
	partOwner     = identityPart{"owner", idTail, "The agent owner of the resource's items on the node."}
	partName      = identityPart{"name", "name", "The object's name on the cluster."}
)

// identities lists, by resource type, the attributes that say which object
// a resource is; their order is the import id's.
var identities = map[string][]identityPart{
	"hpcstorage_server": {partEndpoint, {"system_id", "system_id", "The Redfish ComputerSystem id behind the endpoint."}},
	"hpcstorage_disk_group": {partEndpoint, partStorageID,
		{"pool_id", idTail, "The disk group's StoragePool id on the array (on ME4 arrays not its name)."}},
	"hpcstorage_volume":       {partEndpoint, partStorageID, {"volume_id", idTail, "The volume's id on the array."}},
	"hpcstorage_spare_drives": {partEndpoint, partStorageID},
	"hpcstorage_node_config":  {partHost, partOwner},
	"hpcstorage_beegfs_target": {partHost,
		{"wwn", idTail, "The WWN of the target's device (`/dev/disk/by-id/wwn-0x<wwn>`)."}},
	"hpcstorage_beegfs_management":     {partHost, partOwner},
	"hpcstorage_beegfs_monitor":        {partHost, partOwner},
	"hpcstorage_beegfs_metadata":       {partHost, partOwner},
	"hpcstorage_beegfs_storage":        {partHost, partOwner},
	"hpcstorage_beegfs_client":         {partHost, partOwner},
	"hpcstorage_beegfs_stripe_pattern": {partHost, partOwner},
	"hpcstorage_beegfs_mirror_group":   {partHost, partOwner},
	"hpcstorage_beegfs_ha_services":    {partHost, partOwner},
	"hpcstorage_multipath":             {partHost, partOwner},
	"hpcstorage_ha_lvm":                {partHost, partOwner},
	"hpcstorage_nfs_server":            {partHost, partOwner},
	"hpcstorage_benchmark":             {{"id", "id", "The run (its start time)."}},
	"hpcstorage_gpfs_cluster":          {partHost, partName},
	"hpcstorage_gpfs_nsds":             {partHost, partName},
	"hpcstorage_gpfs_filesystem":       {partHost, {"device", "device", "The file system's device name."}},
	"hpcstorage_gpfs_gateways":         {partHost, partName},
	"hpcstorage_ha_cluster":            {{"name", "name", "The pacemaker cluster's name (corosync `cluster_name`)."}},
	"hpcstorage_ceph_cluster":          {{"admin_host", "admin_host", "The bootstrap monitor as SSH reaches it (the resource's `admin_host`)."}, {"fsid", "fsid", "The cluster's fsid."}},
	"hpcstorage_ceph_osd_spec":         {partAdminHost, {"service_id", "service_id", "The OSD service's id (`osd.<service_id>`)."}},
	"hpcstorage_ceph_pool":             {partAdminHost, partName},
	"hpcstorage_rbd_images":            {partAdminHost, {"pool", "pool", "The pool holding the images."}},
	"hpcstorage_rbd_client":            {partHost, {"name", "name", "The cephx client's name (without `client.`)."}},
}

// typeName asks a resource for its type name, as the provider names it.
func typeName(r resource.Resource) string {
	var md resource.MetadataResponse
	r.Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: providerTypeName}, &md)
	return md.TypeName
}

// identified gives a resource type its identity; a type missing from
// identities is a programming error that the provider's tests catch.
func identified(f func() resource.Resource) func() resource.Resource {
	return func() resource.Resource {
		r := f()
		parts, ok := identities[typeName(r)]
		if !ok {
			panic("no identity for " + typeName(r))
		}
		return &identityResource{inner: r, parts: parts, mutable: mutableIdentity(r, parts)}
	}
}

// mutableIdentity reports whether an update can change the identity: an
// identity attribute that the configuration sets and that changes in place
// (an admin host moved to another monitor, a renamed NSD set). Terraform
// then takes the new identity instead of refusing it.
func mutableIdentity(r resource.Resource, parts []identityPart) bool {
	ctx := context.Background()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	replace := stringplanmodifier.RequiresReplace().Description(ctx)
	for _, p := range parts {
		if p.from == idTail {
			continue
		}
		a, ok := sr.Schema.Attributes[p.from].(schema.StringAttribute)
		if !ok || (a.Computed && !a.Optional) {
			continue
		}
		if !slices.ContainsFunc(a.PlanModifiers, func(m planmodifier.String) bool { return m.Description(ctx) == replace }) {
			return true
		}
	}
	return false
}

// identityResource is a resource type with its identity; every other method
// is the type's own.
type identityResource struct {
	inner   resource.Resource
	parts   []identityPart
	mutable bool
}

var (
	_ resource.ResourceWithIdentity         = (*identityResource)(nil)
	_ resource.ResourceWithConfigure        = (*identityResource)(nil)
	_ resource.ResourceWithImportState      = (*identityResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*identityResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*identityResource)(nil)
	_ resource.ResourceWithConfigValidators = (*identityResource)(nil)
)

func (r *identityResource) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.inner.Metadata(ctx, req, resp)
	resp.ResourceBehavior.MutableIdentity = r.mutable
}

func (r *identityResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.inner.Schema(ctx, req, resp)
}

func (r *identityResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	attrs := map[string]identityschema.Attribute{}
	for _, p := range r.parts {
		attrs[p.name] = identityschema.StringAttribute{RequiredForImport: true, Description: p.desc}
	}
	resp.IdentitySchema = identityschema.Schema{Attributes: attrs}
}

func (r *identityResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c, ok := r.inner.(resource.ResourceWithConfigure); ok {
		c.Configure(ctx, req, resp)
	}
}

func (r *identityResource) ConfigValidators(ctx context.Context) []resource.ConfigValidator {
	if c, ok := r.inner.(resource.ResourceWithConfigValidators); ok {
		return c.ConfigValidators(ctx)
	}
	return nil
}

func (r *identityResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if v, ok := r.inner.(resource.ResourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

func (r *identityResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if m, ok := r.inner.(resource.ResourceWithModifyPlan); ok {
		m.ModifyPlan(ctx, req, resp)
	}
}

func (r *identityResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.inner.Create(ctx, req, resp)
	r.setIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *identityResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.inner.Read(ctx, req, resp)
	if resp.State.Raw.IsNull() {
		// Gone from the device: the framework still wants an identity,
		// the one of what was there.
		r.setIdentity(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return
	}
	r.setIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *identityResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.inner.Update(ctx, req, resp)
	r.setIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *identityResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.inner.Delete(ctx, req, resp)
}

// ImportState takes the type's import id, or an identity that it joins
// into that id; the Read that follows sets the identity from the state.
func (r *identityResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	imp, ok := r.inner.(resource.ResourceWithImportState)
	if !ok {
		resp.Diagnostics.AddError("Import Not Supported", fmt.Sprintf("%s cannot be imported yet: declare it and apply.", typeName(r.inner)))
		return
	}
	if req.ID == "" && req.Identity != nil {
		id, ok := r.importID(ctx, req.Identity, &resp.Diagnostics)
		if !ok {
			return
		}
		req.ID = id
	}
	imp.ImportState(ctx, req, resp)
}

// importID joins an identity into the type's import id.
func (r *identityResource) importID(ctx context.Context, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) (string, bool) {
	vals := make([]string, len(r.parts))
	for i, p := range r.parts {
		var v types.String
		diags.Append(identity.GetAttribute(ctx, path.Root(p.name), &v)...)
		if diags.HasError() {
			return "", false
		}
		if v.ValueString() == "" {
			addError(diags, path.Root(p.name), "Missing Identity Attribute",
				fmt.Sprintf("Set %s in the import block's identity: %s", p.name, p.desc), nil)
			return "", false
		}
		vals[i] = v.ValueString()
	}
	return strings.Join(vals, "/"), true
}

// identityOf reads the identity's values from a state; false while the
// state is null or a value is not known yet.
func (r *identityResource) identityOf(ctx context.Context, state tfsdk.State) (map[string]string, bool) {
	if state.Raw.IsNull() {
		return nil, false
	}
	out := map[string]string{}
	for _, p := range r.parts {
		from := p.from
		if from == idTail {
			from = "id"
		}
		var v types.String
		if d := state.GetAttribute(ctx, path.Root(from), &v); d.HasError() || v.IsUnknown() || v.IsNull() {
			return nil, false
		}
		s := v.ValueString()
		if p.from == idTail {
			s = s[strings.LastIndex(s, "/")+1:]
		}
		out[p.name] = s
	}
	return out, true
}

// setIdentity sets identity from state after a lifecycle method; a
// removed resource keeps the identity it had.
func (r *identityResource) setIdentity(ctx context.Context, state tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil || diags.HasError() {
		return
	}
	vals, ok := r.identityOf(ctx, state)
	if !ok {
		return
	}
	for name, v := range vals {
		diags.Append(identity.SetAttribute(ctx, path.Root(name), v)...)
	}
}

// List resources (Terraform 1.14+ `terraform query`): a list_*.go file
// says what objects a device holds, as import ids; each result is then
// built by the type's own ImportState and Read, so what a query shows, and
// the configuration Terraform generates from it, is what an import reads.

// listing is one object found: its import id and its name in the CLI.
type listing struct {
	id, display string
}

// lister is a list resource over a resource type.
type lister struct {
	resource func() resource.Resource
	schema   listschema.Schema
	// find lists the objects the list block's configuration selects.
	find func(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listing
	data *providerData
}

var (
	_ list.ListResourceWithConfigure = (*lister)(nil)
)

func (l *lister) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	l.resource().Metadata(ctx, req, resp)
}

func (l *lister) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = l.schema
}

func (l *lister) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (l *lister) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	if l.data == nil {
		diags.AddError("Provider Not Configured", "The hpcstorage provider was not configured before the query.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	found := l.find(ctx, l.data, req.Config, &diags)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	if req.Limit > 0 && int64(len(found)) > req.Limit {
		found = found[:req.Limit]
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for _, f := range found {
			res := req.NewListResult(ctx)
			res.DisplayName = f.display
			l.read(ctx, req, f.id, &res)
			if !push(res) {
				return
			}
		}
	}
}

// read fills a result as an import of id would: ImportState, then Read.
func (l *lister) read(ctx context.Context, req list.ListRequest, id string, res *list.ListResult) {
	r := identified(l.resource)().(*identityResource)
	var cr resource.ConfigureResponse
	r.Configure(ctx, resource.ConfigureRequest{ProviderData: l.data}, &cr)
	res.Diagnostics.Append(cr.Diagnostics...)
	empty := tfsdk.State{Schema: req.ResourceSchema, Raw: tftypes.NewValue(req.ResourceSchema.Type().TerraformType(ctx), nil)}
	imp := resource.ImportStateResponse{State: empty, Identity: res.Identity}
	r.ImportState(ctx, resource.ImportStateRequest{ID: id}, &imp)
	res.Diagnostics.Append(imp.Diagnostics...)
	if res.Diagnostics.HasError() {
		return
	}
	// The server's Read keeps the BIOS URIs in private state; the result
	// drops it (an import's Read runs again when the result is imported).
	rd := resource.ReadResponse{State: imp.State, Identity: imp.Identity, Private: fresh(imp.Private)}
	r.Read(ctx, resource.ReadRequest{State: imp.State, Identity: imp.Identity, Private: rd.Private}, &rd)
	res.Diagnostics.Append(rd.Diagnostics...)
	if res.Diagnostics.HasError() {
		return
	}
	if rd.State.Raw.IsNull() {
		res.Diagnostics.AddError("Object Gone", fmt.Sprintf("%s vanished while it was listed.", id))
		return
	}
	res.Identity = rd.Identity
	if req.IncludeResource {
		res.Resource = &tfsdk.Resource{Schema: rd.State.Schema, Raw: rd.State.Raw}
	}
}

// listString reads an optional string of a list block's configuration.
func listString(ctx context.Context, config tfsdk.Config, name string, diags *diag.Diagnostics) types.String {
	var v types.String
	diags.Append(config.GetAttribute(ctx, path.Root(name), &v)...)
	return v
}

// listEndpointAttribute is the endpoint a list block queries.
func listEndpointAttribute(what string) listschema.StringAttribute {
	return listschema.StringAttribute{Required: true,
		MarkdownDescription: "Name of the endpoint in the provider's `endpoints` map whose " + what + " are listed."}
}

// listStorageIDAttribute narrows an array's listing to one storage.
func listStorageIDAttribute() listschema.StringAttribute {
	return listschema.StringAttribute{Optional: true,
		MarkdownDescription: "The storage to list, as the resources' `storage_id`; default the endpoint's only one (E-Series: its storage system)."}
}

// listArray is the array a list block names, and its storage id.
func listArray(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) (arrayRef, bool) {
	ep := listString(ctx, config, "endpoint", diags)
	sid := listString(ctx, config, "storage_id", diags)
	if diags.HasError() {
		return arrayRef{}, false
	}
	a, id := d.arrayFor(ctx, ep.ValueString(), sid, diags)
	if a == nil {
		return arrayRef{}, false
	}
	return arrayRef{Array: a, endpoint: ep.ValueString(), storageID: id}, true
}

// findOnArray is the find of a list of what one array holds; objects
// lists it (what names it in errors).
func findOnArray(what string, objects func(ctx context.Context, a arrayRef) ([]listing, error)) func(context.Context, *providerData, tfsdk.Config, *diag.Diagnostics) []listing {
	return func(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listing {
		a, ok := listArray(ctx, d, config, diags)
		if !ok {
			return nil
		}
		out, err := objects(ctx, a)
		if err != nil {
			redfishError(diags, path.Root("endpoint"), "Cannot List "+what, err)
			return nil
		}
		return out
	}
}

// arrayListSchema is the configuration of a list of what an array holds.
func arrayListSchema(desc, what string) listschema.Schema {
	return listschema.Schema{MarkdownDescription: desc + " (`terraform query`, Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{"endpoint": listEndpointAttribute(what), "storage_id": listStorageIDAttribute()}}
}

// arrayRef is an array with the names its resources' ids start with.
type arrayRef struct {
	arrays.Array
	endpoint, storageID string
}

// importID is the import id of an object of the array.
func (a arrayRef) importID(obj string) string {
	if obj == "" {
		return a.endpoint + "/" + a.storageID
	}
	return a.endpoint + "/" + a.storageID + "/" + obj
}

// fresh is an empty value of the framework's private state type, which
// only the framework may name.
func fresh[T any](*T) *T { return new(T) }
