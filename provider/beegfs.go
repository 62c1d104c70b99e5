package provider

// What the hpcstorage_beegfs_* resources share beyond the node service
// shell: the connection secret, the settings map, the BeeGFS ids claimed in
// one file system and the mapping of internal/beegfs errors to attributes.

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// beegfsKind names BeeGFS in render errors.
const beegfsKind = "BeeGFS"

// beegfsInvalid reports an internal/beegfs validation error on at.
func beegfsInvalid(diags *diag.Diagnostics, at path.Path, err error) {
	invalidSetting(diags, beegfsKind, at, err)
}

// BeegfsSecret is embedded by the resources that write a connAuthFile.
type BeegfsSecret struct {
	ConnAuthSecret     types.String `tfsdk:"conn_auth_secret"`
	ConnAuthSecretFile types.String `tfsdk:"conn_auth_secret_file"`
	SecretHash         types.String `tfsdk:"conn_auth_secret_hash"`
}

func (s *BeegfsSecret) secret() serviceSecret      { return s }
func (s *BeegfsSecret) secretName() string         { return "conn_auth_secret" }
func (s *BeegfsSecret) secretMinLength() int       { return beegfs.MinSecretLength }
func (s *BeegfsSecret) secretValue() *types.String { return &s.ConnAuthSecret }
func (s *BeegfsSecret) secretHash() *types.String  { return &s.SecretHash }

// BeegfsMgmtd is embedded by the resources that register with the
// management service.
type BeegfsMgmtd struct {
	MgmtdHost types.String `tfsdk:"mgmtd_host"`
	MgmtdPort types.Int64  `tfsdk:"mgmtd_port"`
}

func (g *BeegfsMgmtd) mgmtdKnown() bool { return !g.MgmtdHost.IsUnknown() && !g.MgmtdPort.IsUnknown() }

func (g *BeegfsMgmtd) mgmtdPort() int { return intOr(g.MgmtdPort, beegfs.DefaultMgmtPort) }

// beegfsMgmtdAttributes adds mgmtd_host and mgmtd_port (port describes it).
func beegfsMgmtdAttributes(attrs map[string]schema.Attribute, port string) {
	attrs["mgmtd_host"] = schema.StringAttribute{Required: true, MarkdownDescription: "Host name of the management service (`sysMgmtdHost`).",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	attrs["mgmtd_port"] = schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
		MarkdownDescription: port, Validators: []validator.Int64{int64validator.Between(1024, 65535)}}
}

func beegfsSecretAttributes(attrs map[string]schema.Attribute) {
	attrs["conn_auth_secret"] = schema.StringAttribute{
		Optional: true, WriteOnly: true, Sensitive: true,
		MarkdownDescription: fmt.Sprintf("Shared secret of the file system's connection authentication (connAuthFile), at "+
			"least %d characters, the same on every service and client. Write-only (Terraform 1.11 or later): never stored "+
			"in state or plan. It is written on the node to a root-only file (mode `0400`), and state keeps only its SHA-256 "+
			"in `conn_auth_secret_hash`, so changing the secret shows as an update. Exactly one of this and "+
			"`conn_auth_secret_file`.", beegfs.MinSecretLength),
		Validators: []validator.String{stringvalidator.LengthAtLeast(beegfs.MinSecretLength),
			stringvalidator.ExactlyOneOf(path.MatchRoot("conn_auth_secret_file"))},
	}
	attrs["conn_auth_secret_file"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Path of a file holding the secret (first line), read on the machine running Terraform at " +
			"plan and apply time, for a secret kept in a file. Only the path and the hash reach state.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["conn_auth_secret_hash"] = schema.StringAttribute{Computed: true,
		MarkdownDescription: "`scrypt:<hex>` of the secret (scrypt N=2^15, r=8, p=1, so guessing it from state is slow), so plans see a new secret without storing it."}
}

// beegfsServiceSchema adds the node service attributes and, with secret,
// the connection secret's.
func beegfsServiceSchema(what string, attrs map[string]schema.Attribute, secret bool) map[string]schema.Attribute {
	if secret {
		beegfsSecretAttributes(attrs)
	}
	return nodeServiceSchema(what, attrs)
}

func beegfsSettingsAttribute(defaults map[string]string) schema.MapAttribute {
	return schema.MapAttribute{Optional: true, ElementType: types.StringType,
		MarkdownDescription: "Extra or overriding config options (`key = value` of the BeeGFS config file). Defaults from the " +
			"R1 paper: " + settingsList(defaults) + "."}
}

func settingsList(m map[string]string) string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, "`"+k+"="+m[k]+"`")
	}
	return strings.Join(out, ", ")
}

// beegfsClaim refuses two resources of this run using one BeeGFS id (a
// target id, a node id) of one file system (scope: its mgmtd host).
func beegfsClaim(n *nodeAccess, scope, resource string, ids []string, diags *diag.Diagnostics) {
	if n == nil || n.claims == nil {
		return
	}
	for id, other := range n.claims.claim("beegfs:"+scope, resource, ids) {
		addError(diags, path.Empty(), "BeeGFS ID Used Twice", fmt.Sprintf("%s is also used by %s in this "+
			"configuration: ids must be unique in one file system.", id, other), nil)
	}
}

// errorPath turns the field a render error starts with ("port",
// "instances[2].port", "settings key ...") into an attribute path; a field
// not among names falls back to the first name.
func errorPath(err error, names ...string) path.Path {
	if err == nil || len(names) == 0 {
		return path.Empty()
	}
	msg := strings.TrimPrefix(err.Error(), beegfs.ErrInvalid.Error()+": ")
	field, _, _ := strings.Cut(msg, " ")
	field = strings.TrimSuffix(field, ":")
	parts := strings.Split(field, ".")
	root, idx, hasIdx := parts[0], 0, false
	if i := strings.Index(root, "["); i > 0 && strings.HasSuffix(root, "]") {
		if _, err := fmt.Sscanf(root[i:], "[%d]", &idx); err == nil {
			hasIdx = true
		}
		root = root[:i]
	}
	known := false
	for _, n := range names {
		known = known || n == root
	}
	if !known {
		return path.Root(names[0])
	}
	at := path.Root(root)
	if hasIdx {
		at = at.AtListIndex(idx)
		if len(parts) > 1 {
			at = at.AtName(parts[1])
		}
	}
	return at
}

// beegfsVersionAttribute is the version attribute of every BeeGFS
// resource: the release its nodes run.
func beegfsVersionAttribute() schema.StringAttribute {
	return schema.StringAttribute{Optional: true,
		MarkdownDescription: "BeeGFS release the nodes run: " + backtickList(beegfs.Releases) + "; unset is `" + beegfs.PaperVersion +
			"`, the R1 paper's (R3 uses `7.4`). `8` renders BeeGFS 8's configs and commands (the TOML management service, the " +
			"`beegfs` command instead of `beegfs-ctl`, one port key per port, no helperd). Every service and client of one file " +
			"system runs one major release: a 7.x client against 8 servers is refused at plan. A change goes from `7.2` to " +
			"`7.4` to `8` only (`7.2` straight to `8` is refused: BeeGFS 8 imports 7.4 stores), never back.",
		Validators: []validator.String{stringvalidator.OneOf(beegfs.Releases...)}}
}

// beegfsCLITLSAttribute is tls_disable of the resources that run the
// beegfs command.
func beegfsCLITLSAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, MarkdownDescription: "BeeGFS 8: run the `beegfs` command with `--tls-disable`, " +
		"for a management service with `tls_disable`. Otherwise it verifies the service with `" + beegfs.TLSCertFile +
		"` on the node (`hpcstorage_beegfs_client`'s `tls_cert_pem`)."}
}

// beegfsErrPath is where a render error belongs: its location when it
// has one, else (the 7.x renderers) the field its message starts with.
func beegfsErrPath(err error, names ...string) path.Path {
	if le, ok := located.Find(err); ok {
		return locatedPath(le.Path)
	}
	return errorPath(err, names...)
}

// beegfsUpgradeCheck refuses, at plan, a change of version BeeGFS cannot
// make in place (7.2 straight to 8, any step back): ok is false then.
func beegfsUpgradeCheck(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return true
	}
	var from, to types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("version"), &from)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("version"), &to)...)
	if resp.Diagnostics.HasError() || to.IsUnknown() {
		return !resp.Diagnostics.HasError()
	}
	addLocated(&resp.Diagnostics, path.Root("version"), "Unsupported BeeGFS Upgrade",
		"Change the version one supported step at a time (the BeeGFS 8 upgrade guide).", beegfs.CheckUpgrade(from.ValueString(), to.ValueString()))
	return !resp.Diagnostics.HasError()
}

// beegfsVersioned is a BeeGFS node service with the upgrade check.
type beegfsVersioned[M any, P interface {
	*M
	nodeModel
}] struct {
	*nodeService[M, P]
}

func (r *beegfsVersioned[M, P]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if beegfsUpgradeCheck(ctx, req, resp) {
		r.nodeService.ModifyPlan(ctx, req, resp)
	}
}

// beegfsClaimVersion refuses services and clients of one file system
// (scope: their mgmtd_host) on different major releases: every resource
// of one major claims the same owner, so only a mix clashes.
func beegfsClaimVersion(n *nodeAccess, scope, version string, diags *diag.Diagnostics) {
	if n == nil || n.claims == nil {
		return
	}
	mine := fmt.Sprintf("BeeGFS %d", beegfs.Major(version))
	for _, other := range n.claims.claim("beegfs-version:"+scope, mine, []string{"major release"}) {
		otherVersion := beegfs.Version8
		if beegfs.Major(version) == 8 {
			otherVersion = beegfs.Version74
		}
		addLocated(diags, path.Root("version"), "BeeGFS Releases Mixed", "Set the same major version on every BeeGFS service and "+
			"client of this file system.", beegfs.CheckMix(version, otherVersion, "another service or client with mgmtd_host "+
			scope+" ("+other+")"))
	}
}
