package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
)

// NewBeegfsMonitorResource is the hpcstorage_beegfs_monitor resource:
// beegfs-mon on one node.
func NewBeegfsMonitorResource() resource.Resource {
	return &beegfsMonitorResource{&nodeService[beegfsMonitorModel, *beegfsMonitorModel]{name: "_beegfs_monitor", kind: beegfsKind, schema: beegfsMonitorSchema,
		claim: func(n *nodeAccess, m *beegfsMonitorModel, diags *diag.Diagnostics) {
			beegfsClaimVersion(n, m.MgmtdHost.ValueString(), m.Version.ValueString(), diags)
		}}}
}

// beegfsMonitorResource overrides what the shell does not do for it.
type beegfsMonitorResource struct {
	*nodeService[beegfsMonitorModel, *beegfsMonitorModel]
}

type beegfsMonitorModel struct {
	NodeService
	BeegfsSecret
	BeegfsMgmtd
	InfluxdbHost         types.String `tfsdk:"influxdb_host"`
	InfluxdbPort         types.Int64  `tfsdk:"influxdb_port"`
	InfluxdbDatabase     types.String `tfsdk:"influxdb_database"`
	InfluxdbUsername     types.String `tfsdk:"influxdb_username"`
	InfluxdbPassword     types.String `tfsdk:"influxdb_password"`
	InfluxdbPasswordFile types.String `tfsdk:"influxdb_password_file"`
	InfluxdbPasswordHash types.String `tfsdk:"influxdb_password_hash"`
	Settings             types.Map    `tfsdk:"settings"`
	Version              types.String `tfsdk:"version"`
	Service              types.String `tfsdk:"service"`

	// The password as read from the configuration (readWriteOnly); never
	// in state. Without it (refresh) the credentials file renders unread.
	password     string
	passwordRead bool
}

func beegfsMonitorSchema() schema.Schema {
	attrs := beegfsServiceSchema("beegfs-mon", map[string]schema.Attribute{
		"influxdb_host": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(beegfs.DefaultMonDBHost),
			MarkdownDescription: "InfluxDB 1.x server (`dbHostName`): host name or address, or an `http://` or `https://` URL " +
				"of one. Default `localhost`: R1 runs InfluxDB on the management server beside beegfs-mon.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"influxdb_port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMonDBPort),
			MarkdownDescription: "InfluxDB HTTP port (`dbHostPort`). Default `8086`.", Validators: []validator.Int64{int64validator.Between(1, 65535)}},
		"influxdb_database": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(beegfs.DefaultMonDatabase),
			MarkdownDescription: "InfluxDB database (`dbDatabase`), the one the BeeGFS Grafana dashboards read: 1 to 64 of " +
				"`A-Z a-z 0-9 _ . -`, starting with a letter or `_`. Default `beegfs_mon`."},
		"influxdb_username": schema.StringAttribute{Optional: true,
			MarkdownDescription: "InfluxDB user, for a database with authentication. With it, the login is written to `" +
				beegfs.MonDBAuthFile + "` (the package's `dbAuthFile`, `username = ...` and `password = ...` lines, root-only " +
				"mode `0400`) and `dbAuthFile` points to it; without it `dbAuthFile` is empty and that file is left as it is. " +
				"Needs `influxdb_password` or `influxdb_password_file`.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"influxdb_password": schema.StringAttribute{Optional: true, WriteOnly: true, Sensitive: true,
			MarkdownDescription: "Password of `influxdb_username`. Write-only (Terraform 1.11 or later): never stored in state or " +
				"plan, and never shown in errors or diffs; state keeps only its SHA-256 in `influxdb_password_hash`, so a new " +
				"password shows as an update. One line, no leading or trailing blanks (beegfs-mon trims them). At most one of " +
				"this and `influxdb_password_file`.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1),
				stringvalidator.ConflictsWith(path.MatchRoot("influxdb_password_file")),
				stringvalidator.AlsoRequires(path.MatchRoot("influxdb_username"))}},
		"influxdb_password_file": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Path of a file holding the password (first line), read on the machine running Terraform at " +
				"plan and apply time, for a secret kept in a file. Only the path and the hash reach state.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1), stringvalidator.AlsoRequires(path.MatchRoot("influxdb_username"))}},
		"influxdb_password_hash": schema.StringAttribute{Computed: true,
			MarkdownDescription: "`scrypt:<hex>` of the InfluxDB password (null without a login), so plans see a new password " +
				"without storing it. A refresh checks the credentials file's mode and owner, not its content."},
		"settings": schema.MapAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Extra or overriding `beegfs-mon.conf` options, e.g. the collection settings " +
				"`collectClientOpsByNode`, `collectClientOpsByUser`, `statsRequestIntervalSecs`, `nodelistRequestIntervalSecs` " +
				"and the retention `dbSetRetentionPolicy`, `dbRetentionDuration` (the package defaults apply otherwise). Keys " +
				"set by other attributes (`sysMgmtdHost`, `connMgmtdPortTCP/UDP`, `connAuthFile`, `dbType`, `dbHostName`, " +
				"`dbHostPort`, `dbDatabase`, `dbAuthFile`) are refused."},
		"version": beegfsVersionAttribute(),
		"service": schema.StringAttribute{Computed: true, MarkdownDescription: "The systemd unit, `beegfs-mon`."},
	}, true)
	beegfsMgmtdAttributes(attrs, "Port of the management service (`connMgmtdPortTCP/UDP`).")
	return schema.Schema{
		MarkdownDescription: "The BeeGFS monitoring service (beegfs-mon; BeeGFS 7.x, or 8 with `version = \"8\"`) on one node: it polls the management, " +
			"metadata and storage services and writes their statistics to InfluxDB 1.x, which the ready-made BeeGFS Grafana " +
			"dashboards read. R1 runs it on the management server. This resource writes its config (`" + beegfs.MonConf +
			"`, keys overlaid on the packaged file), the connection authentication file (`/etc/beegfs/beegfs-mon-conn.auth`: " +
			"the package's `beegfs-mon.auth` is the InfluxDB login file), the InfluxDB login when there is one, and keeps " +
			"the unit running and enabled. InfluxDB and Grafana themselves are not installed. Destroy stops " +
			"and disables the unit and puts the files back.",
		Attributes: attrs,
	}
}

func (m *beegfsMonitorModel) owner() string { return beegfs.MonService }

func (m *beegfsMonitorModel) known() bool {
	return m.mgmtdKnown() && !m.InfluxdbHost.IsUnknown() && !m.InfluxdbPort.IsUnknown() &&
		!m.InfluxdbDatabase.IsUnknown() && !m.InfluxdbUsername.IsUnknown() && !m.Settings.IsUnknown() && !m.Version.IsUnknown()
}

func (m *beegfsMonitorModel) items(auth secretInput) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	if err := beegfs.CheckVersion(m.Version.ValueString()); err != nil {
		return nil, beegfsErrPath(err), err
	}
	var login *beegfs.MonDBAuth
	if !m.InfluxdbUsername.IsNull() {
		// The password only renders with the connection secret: renders
		// without secrets (refresh, plan comparisons) leave both unread.
		login = &beegfs.MonDBAuth{Username: m.InfluxdbUsername.ValueString(), Password: m.password, Unread: auth.Unread || !m.passwordRead}
	}
	items, err := beegfs.Monitor{MgmtdHost: m.MgmtdHost.ValueString(), MgmtdPort: m.mgmtdPort(),
		DBHost: stringOr(m.InfluxdbHost, beegfs.DefaultMonDBHost), DBPort: intOr(m.InfluxdbPort, beegfs.DefaultMonDBPort),
		DBDatabase: stringOr(m.InfluxdbDatabase, beegfs.DefaultMonDatabase), DBAuth: login, Auth: beegfs.Auth(auth), Settings: settings,
		Version: m.Version.ValueString()}.Items()
	return items, errorPath(err, "mgmtd_host", "mgmtd_port", "influxdb_host", "influxdb_port", "influxdb_database", "influxdb_username",
		"influxdb_password", "settings", "conn_auth_secret"), err
}

// itemPath follows Monitor.Items: conn auth, config, [login], service.
func (m *beegfsMonitorModel) itemPath(i int, _ string) path.Path {
	switch {
	case i == 0:
		return path.Root("conn_auth_secret")
	case i == 1:
		return path.Root("settings")
	case i == 2 && !m.InfluxdbUsername.IsNull():
		return path.Root("influxdb_password")
	}
	return path.Root("host")
}

// readWriteOnly takes the InfluxDB password from the configuration (the
// write-only attribute or the file it names) and sets its hash.
func (m *beegfsMonitorModel) readWriteOnly(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) {
	var user, pw, file types.String
	diags.Append(config.GetAttribute(ctx, path.Root("influxdb_username"), &user)...)
	diags.Append(config.GetAttribute(ctx, path.Root("influxdb_password"), &pw)...)
	diags.Append(config.GetAttribute(ctx, path.Root("influxdb_password_file"), &file)...)
	m.InfluxdbPassword = types.StringNull()
	m.password, m.passwordRead = "", false
	switch {
	case user.IsUnknown() || pw.IsUnknown() || file.IsUnknown():
		m.InfluxdbPasswordHash = types.StringUnknown()
		return
	case user.IsNull():
		m.InfluxdbPasswordHash = types.StringNull()
		m.passwordRead = true
		return
	}
	at, password := path.Root("influxdb_password"), pw.ValueString()
	if !file.IsNull() {
		at = path.Root("influxdb_password_file")
		var ok bool
		if password, ok = firstLineOf(file.ValueString(), at, "Unreadable Password File", diags); !ok {
			return
		}
	}
	if password == "" {
		addError(diags, at, "Missing InfluxDB Password", "Set influxdb_password, or influxdb_password_file naming a file whose "+
			"first line is the password, with influxdb_username.", nil)
		return
	}
	if err := beegfs.CheckMonPassword(password); err != nil {
		beegfsInvalid(diags, at, err)
		return
	}
	m.password, m.passwordRead = password, true
	m.InfluxdbPasswordHash = types.StringValue(secret.Hash(password))
}

func (m *beegfsMonitorModel) fill() {
	m.Service = types.StringValue(beegfs.MonService)
	m.InfluxdbPassword = types.StringNull()
}

// ModifyPlan refuses an unsupported version change, then plans as the shell.
func (r *beegfsMonitorResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if beegfsUpgradeCheck(ctx, req, resp) {
		r.nodeService.ModifyPlan(ctx, req, resp)
	}
}

// ValidateConfig renders the configuration like the other BeeGFS services
// and checks the login: a user needs a password, and a password given in
// the configuration must be one the credentials file can hold (the error
// never shows it).
func (r *beegfsMonitorResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	r.nodeService.ValidateConfig(ctx, req, resp)
	var cfg beegfsMonitorModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !cfg.InfluxdbUsername.IsNull() && !cfg.InfluxdbUsername.IsUnknown() && cfg.InfluxdbPassword.IsNull() && cfg.InfluxdbPasswordFile.IsNull() {
		addError(&resp.Diagnostics, path.Root("influxdb_username"), "Missing InfluxDB Password",
			"Set influxdb_password or influxdb_password_file with influxdb_username.", nil)
	}
	if !cfg.InfluxdbPassword.IsNull() && !cfg.InfluxdbPassword.IsUnknown() {
		if err := beegfs.CheckMonPassword(cfg.InfluxdbPassword.ValueString()); err != nil {
			beegfsInvalid(&resp.Diagnostics, path.Root("influxdb_password"), err)
		}
	}
}
