package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
)

// NewBeegfsManagementResource is the hpcstorage_beegfs_management resource:
// beegfs-mgmtd on one node.
func NewBeegfsManagementResource() resource.Resource {
	return &beegfsVersioned[beegfsManagementModel, *beegfsManagementModel]{&nodeService[beegfsManagementModel, *beegfsManagementModel]{
		name: "_beegfs_management", kind: beegfsKind, schema: beegfsManagementSchema}}
}

type beegfsManagementModel struct {
	NodeService
	BeegfsSecret
	Version     types.String `tfsdk:"version"`
	Directory   types.String `tfsdk:"directory"`
	Port        types.Int64  `tfsdk:"port"`
	GRPCPort    types.Int64  `tfsdk:"grpc_port"`
	TLSDisable  types.Bool   `tfsdk:"tls_disable"`
	TLSCertPEM  types.String `tfsdk:"tls_cert_pem"`
	TLSCertFile types.String `tfsdk:"tls_cert_file"`
	TLSKeyPEM   types.String `tfsdk:"tls_key_pem"`
	TLSKeyFile  types.String `tfsdk:"tls_key_file"`
	TLSKeyHash  types.String `tfsdk:"tls_key_hash"`
	LicensePEM  types.String `tfsdk:"license_pem"`
	LicenseFile types.String `tfsdk:"license_file"`
	LicenseHash types.String `tfsdk:"license_hash"`
	Settings    types.Map    `tfsdk:"settings"`
	Service     types.String `tfsdk:"service"`

	// What readWriteOnly read from the configuration (never in state):
	// without it (refresh) the key and license files render unread.
	cert, key, license string
	wrote              bool
}

func beegfsManagementSchema() schema.Schema {
	attrs := beegfsServiceSchema("beegfs-mgmtd", map[string]schema.Attribute{
		"version": beegfsVersionAttribute(),
		"directory": schema.StringAttribute{Required: true,
			MarkdownDescription: "Management store, on a mounted target. R1 keeps it in a `mgmtd` folder of metadata target 1 " +
				"(e.g. `/data/mdt01/mgmtd`). 7.x: initialised once (`beegfs-setup-mgmtd`), guarded by its `format.conf`. 8: the " +
				"SQLite database `mgmtd.sqlite` in it, created once by `beegfs-mgmtd --init`, or, when the folder holds a 7.x store " +
				"(`format.conf`), by `beegfs-mgmtd --import-from-v7=<directory>` (the 7.4 to 8 upgrade); guarded by the database file."},
		"port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
			MarkdownDescription: "BeeMsg port, TCP and UDP (7.x `connMgmtdPortTCP/UDP`, 8 `beemsg-port`).",
			Validators:          []validator.Int64{int64validator.Between(1024, 65535)}},
		"grpc_port": schema.Int64Attribute{Optional: true, MarkdownDescription: "BeeGFS 8: the gRPC port (`grpc-port`) the `beegfs` " +
			"command and remote services use; unset is 8010. Open it in the firewall.", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"tls_disable": schema.BoolAttribute{Optional: true, MarkdownDescription: "BeeGFS 8: `true` serves gRPC without TLS " +
			"(`tls-disable`). Without it a certificate and key are required: none is generated."},
		"tls_cert_pem": schema.StringAttribute{Optional: true, MarkdownDescription: "BeeGFS 8: the PEM certificate of the gRPC " +
			"server, e.g. the `cert_pem` of a `tls_self_signed_cert` or `tls_locally_signed_cert`; written to `" + beegfs.TLSCertFile +
			"` (copy it to every node that runs the `beegfs` command). Exactly one of this and `tls_cert_file` unless `tls_disable`.",
			Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("tls_cert_file"), path.MatchRoot("tls_disable"))}},
		"tls_cert_file": schema.StringAttribute{Optional: true, MarkdownDescription: "BeeGFS 8: path of a PEM certificate " +
			"file, read on the machine running Terraform.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"tls_key_pem": schema.StringAttribute{Optional: true, WriteOnly: true, Sensitive: true, MarkdownDescription: "BeeGFS 8: " +
			"the certificate's PEM private key (e.g. a `tls_private_key`'s `private_key_pem`), written to `" + beegfs.TLSKeyFile +
			"` (mode `0400`). Write-only: never in state or plan; state keeps its hash in `tls_key_hash`.",
			Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("tls_key_file"), path.MatchRoot("tls_disable"))}},
		"tls_key_file": schema.StringAttribute{Optional: true, MarkdownDescription: "BeeGFS 8: path of the private key file, " +
			"read on the machine running Terraform; only the path and the hash reach state.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"tls_key_hash": schema.StringAttribute{Computed: true, MarkdownDescription: "`scrypt:<hex>` of the TLS key, so a new key shows in plans."},
		"license_pem": schema.StringAttribute{Optional: true, WriteOnly: true, Sensitive: true, MarkdownDescription: "BeeGFS 8: " +
			"the license certificate ThinkParQ issued (`license.pem`; trial and community licenses too), written to `" +
			beegfs.LicenseFile + "` (mode `0400`). BeeGFS 8 enforces it: version 8 without a license is refused at plan. " +
			"Write-only; state keeps its hash in `license_hash`. Exactly one of this and `license_file` with version 8.",
			Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("license_file"))}},
		"license_file": schema.StringAttribute{Optional: true, MarkdownDescription: "BeeGFS 8: path of the license file, read " +
			"on the machine running Terraform.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"license_hash": schema.StringAttribute{Computed: true, MarkdownDescription: "`scrypt:<hex>` of the license."},
		"settings": schema.MapAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "7.x: extra or overriding `beegfs-mgmtd.conf` options (default `sysTargetOfflineTimeoutSecs=900`). " +
				"8: extra `beegfs-mgmtd.toml` keys, one of " + backtickList(beegfs.MgmtdSettingKeys()) + " (values as text: `\"true\"`, " +
				"`\"24\"`, `\"180s\"`); default `node-offline-timeout=900s`, R1's offline timeout. beegfs-mgmtd refuses unknown keys, " +
				"so the plan does."},
		"service": schema.StringAttribute{Computed: true, MarkdownDescription: "The systemd unit, `beegfs-mgmtd`."},
	}, true)
	return schema.Schema{
		MarkdownDescription: "The BeeGFS management service (beegfs-mgmtd) on one node. 7.x: its config " +
			"(`/etc/beegfs/beegfs-mgmtd.conf`, keys overlaid on the packaged file), connection authentication file, the " +
			"one-time store setup and the running, enabled unit. BeeGFS 8 (`version = \"8\"`): the TOML config `" + beegfs.MgmtdTOML +
			"`, the TLS certificate and key and the license (supplied, never generated), the authentication file, the SQLite " +
			"store created once (`--init`, or `--import-from-v7` when a 7.x store is there: changing `version` from `7.4` to `8` " +
			"is the upgrade, see the BeeGFS 8 guide) and the unit. R1 runs it on the metadata servers as an HA pair; " +
			"this resource configures it on one node. Destroy stops and disables the unit and puts the config back; the store is kept.",
		Attributes: attrs,
	}
}

func (m *beegfsManagementModel) owner() string { return "beegfs-mgmtd" }

func (m *beegfsManagementModel) version() string { return m.Version.ValueString() }

func (m *beegfsManagementModel) known() bool {
	for _, v := range []interface{ IsUnknown() bool }{m.Version, m.Directory, m.Port, m.Settings, m.GRPCPort, m.TLSDisable,
		m.TLSCertPEM, m.TLSCertFile, m.TLSKeyPEM, m.TLSKeyFile, m.LicensePEM, m.LicenseFile} {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// v8Only are the attributes a 7.x management service has no use for.
var beegfsV8Only = []string{"grpc_port", "tls_disable", "tls_cert_pem", "tls_cert_file", "tls_key_pem", "tls_key_file", "license_pem", "license_file"}

func (m *beegfsManagementModel) v8Set() string {
	for i, v := range []interface{ IsNull() bool }{m.GRPCPort, m.TLSDisable, m.TLSCertPEM, m.TLSCertFile, m.TLSKeyPEM, m.TLSKeyFile,
		m.LicensePEM, m.LicenseFile} {
		if !v.IsNull() {
			return beegfsV8Only[i]
		}
	}
	return ""
}

func (m *beegfsManagementModel) items(auth secretInput) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	if err := beegfs.CheckVersion(m.version()); err != nil {
		return nil, beegfsErrPath(err), err
	}
	if !beegfs.IsV8(m.version()) {
		if a := m.v8Set(); a != "" {
			err := located.Errorf(located.At(a), "%w: %s is a BeeGFS 8 setting; this service runs %s (set version = \"8\")",
				beegfs.ErrInvalid, a, beegfs.VersionOr(m.version()))
			return nil, beegfsErrPath(err), err
		}
		items, err := beegfs.Management{Directory: m.Directory.ValueString(), Port: intOr(m.Port, beegfs.DefaultMgmtPort), Auth: beegfs.Auth(auth), Settings: settings}.Items()
		return items, errorPath(err, "directory", "port", "settings", "conn_auth_secret"), err
	}
	// Write-only contents render with the connection secret only:
	// renders without secrets (refresh, plan comparisons) leave them unread.
	unread := auth.Unread || !m.wrote
	cert := beegfs.PEM{Text: m.TLSCertPEM.ValueString(), Unread: m.TLSCertPEM.IsNull() && unread}
	if !m.TLSCertFile.IsNull() && !unread {
		cert.Text = m.cert
	}
	items, err := beegfs.Management8{Directory: m.Directory.ValueString(), BeeMsgPort: intOr(m.Port, beegfs.DefaultMgmtPort),
		GRPCPort: intOr(m.GRPCPort, beegfs.DefaultGRPCPort), Auth: beegfs.Auth(auth),
		TLS: beegfs.TLS{Disable: m.TLSDisable.ValueBool(), Cert: cert, Key: beegfs.PEM{Text: m.key, Unread: unread},
			Given:    !m.TLSCertPEM.IsNull() || !m.TLSCertFile.IsNull(),
			KeyGiven: !m.TLSKeyPEM.IsNull() || !m.TLSKeyFile.IsNull() || !m.TLSKeyHash.IsNull() && !m.TLSKeyHash.IsUnknown()},
		License:      beegfs.PEM{Text: m.license, Unread: unread},
		LicenseGiven: !m.LicensePEM.IsNull() || !m.LicenseFile.IsNull() || !m.LicenseHash.IsNull() && !m.LicenseHash.IsUnknown(),
		Settings:     settings}.Items()
	return items, beegfsErrPath(err), err
}

// readWriteOnly takes the key, the license and (from its file) the
// certificate from the configuration and sets the hashes.
func (m *beegfsManagementModel) readWriteOnly(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) {
	m.cert, m.key, m.license, m.wrote = "", "", "", false
	read := func(value, file string, hash *types.String) (string, bool) {
		var v, f types.String
		diags.Append(config.GetAttribute(ctx, path.Root(value), &v)...)
		diags.Append(config.GetAttribute(ctx, path.Root(file), &f)...)
		switch {
		case v.IsUnknown() || f.IsUnknown():
			if hash != nil {
				*hash = types.StringUnknown()
			}
			return "", false
		case !f.IsNull():
			b, err := os.ReadFile(expandHome(f.ValueString()))
			if err != nil {
				addError(diags, path.Root(file), "Unreadable File", "Point "+file+" at a readable PEM file.", err)
				return "", false
			}
			v = types.StringValue(string(b))
		}
		if hash != nil {
			*hash = types.StringNull()
			if !v.IsNull() {
				*hash = types.StringValue(secret.Hash(v.ValueString()))
			}
		}
		return v.ValueString(), true
	}
	var ok [3]bool
	m.cert, ok[0] = read("tls_cert_pem", "tls_cert_file", nil)
	m.key, ok[1] = read("tls_key_pem", "tls_key_file", &m.TLSKeyHash)
	m.license, ok[2] = read("license_pem", "license_file", &m.LicenseHash)
	m.TLSKeyPEM, m.LicensePEM = types.StringNull(), types.StringNull()
	m.wrote = ok[0] && ok[1] && ok[2]
}

// itemPath follows Management.Items (7.x) and Management8.Items.
func (m *beegfsManagementModel) itemPath(i int, _ string) path.Path {
	if !beegfs.IsV8(m.version()) {
		switch i {
		case 0:
			return path.Root("conn_auth_secret")
		case 1:
			return path.Root("settings")
		}
		return path.Root("directory")
	}
	names := []string{"conn_auth_secret"}
	if !m.TLSDisable.ValueBool() {
		names = append(names, "tls_cert_pem", "tls_key_pem")
	}
	names = append(names, "license_pem", "settings", "directory")
	if i < len(names) {
		return path.Root(names[i])
	}
	return path.Root("directory")
}

func (m *beegfsManagementModel) fill() {
	m.Service = types.StringValue("beegfs-mgmtd")
	m.TLSKeyPEM, m.LicensePEM = types.StringNull(), types.StringNull()
	if m.TLSKeyHash.IsUnknown() {
		m.TLSKeyHash = types.StringNull()
	}
	if m.LicenseHash.IsUnknown() {
		m.LicenseHash = types.StringNull()
	}
}
