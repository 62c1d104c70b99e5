package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// NewBeegfsClientResource is the hpcstorage_beegfs_client resource:
// beegfs-client and beegfs-helperd on one node.
func NewBeegfsClientResource() resource.Resource {
	return &beegfsVersioned[beegfsClientModel, *beegfsClientModel]{&nodeService[beegfsClientModel, *beegfsClientModel]{name: "_beegfs_client",
		kind: beegfsKind, schema: beegfsClientSchema, claim: claimClientVersion}}
}

type beegfsClientModel struct {
	NodeService
	BeegfsSecret
	BeegfsMgmtd
	MountPoint types.String `tfsdk:"mount_point"`
	CacheType  types.String `tfsdk:"cache_type"`
	Version    types.Int64  `tfsdk:"beegfs_version"`
	Release    types.String `tfsdk:"version"`
	TLSCertPEM types.String `tfsdk:"tls_cert_pem"`
	Settings   types.Map    `tfsdk:"settings"`
	Services   types.List   `tfsdk:"services"`
}

func beegfsClientSchema() schema.Schema {
	attrs := beegfsServiceSchema("the client", map[string]schema.Attribute{
		"mount_point": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(beegfs.DefaultMountPoint),
			MarkdownDescription: "Where the file system is mounted (listed in `/etc/beegfs/beegfs-mounts.conf`, not fstab)."},
		"cache_type": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("buffered"),
			MarkdownDescription: "`tuneFileCacheType`: " + backtickList(beegfs.CacheTypes) + ". R3: `native` uses the Linux page " +
				"cache, so re-reads (deep-learning epochs) are served from local memory.",
			Validators: []validator.String{stringvalidator.OneOf(beegfs.CacheTypes...)}},
		"version": beegfsVersionAttribute(),
		"tls_cert_pem": schema.StringAttribute{Optional: true, MarkdownDescription: "BeeGFS 8: the management service's " +
			"certificate (its `tls_cert_pem`), written to `" + beegfs.TLSCertFile + "`: the `beegfs` command on this node " +
			"(stripe patterns, mirror groups) verifies the gRPC connection with it. Not needed to mount, nor with `tls_disable` there."},
		"beegfs_version": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(7),
			DeprecationMessage: "Use version (\"8\" renders BeeGFS 8's client config, not only the missing helperd).",
			MarkdownDescription: "Deprecated: use `version`, which takes precedence. BeeGFS major version of the client packages, one of " +
				intList(beegfs.Versions) + ": `7` runs beegfs-helperd beside the client; `8` has no helperd (7.x config keys).",
			Validators: []validator.Int64{int64validator.OneOf(beegfs.Versions...)}},
		"settings": beegfsSettingsAttribute(beegfs.ClientTuning),
		"services": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "`beegfs-helperd`, `beegfs-client`."},
	}, true)
	beegfsMgmtdAttributes(attrs, "Port of the management service.")
	return schema.Schema{
		MarkdownDescription: "The BeeGFS client (BeeGFS 7.x; `version = \"8\"`: 8's config written whole, no helperd) on one node: `beegfs-client.conf` and `beegfs-helperd.conf` " +
			"(keys overlaid on the packaged files, R1 tuning `connMaxInternodeNum=24`, `connBufSize=720896`), " +
			"`beegfs-mounts.conf`, the connection authentication file, and the running, enabled beegfs-helperd and " +
			"beegfs-client units (the client unit builds the kernel module after kernel updates and mounts the file " +
			"system). Destroy stops the units and puts the files back. With `beegfs_version = 8` there is no helperd.",
		Attributes: attrs,
	}
}

func (m *beegfsClientModel) owner() string { return "beegfs-client" }

func (m *beegfsClientModel) known() bool {
	return m.mgmtdKnown() && !m.MountPoint.IsUnknown() && !m.CacheType.IsUnknown() && !m.Settings.IsUnknown() && !m.Version.IsUnknown() &&
		!m.Release.IsUnknown() &&
		!m.TLSCertPEM.IsUnknown()
}

func (m *beegfsClientModel) items(auth secretInput) ([]protocol.Item, path.Path, error) {
	settings, _ := settingsMap(m.Settings)
	items, err := beegfs.Client{MgmtdHost: m.MgmtdHost.ValueString(), MgmtdPort: m.mgmtdPort(), MountPoint: stringOr(m.MountPoint, beegfs.DefaultMountPoint),
		CacheType: stringOr(m.CacheType, beegfs.CacheTypes[0]), Auth: beegfs.Auth(auth), Settings: settings, Version: intOr(m.Version, 7),
		Release: m.Release.ValueString(), TLSCert: m.TLSCertPEM.ValueString()}.Items()
	if _, ok := located.Find(err); ok {
		return items, beegfsErrPath(err), err
	}
	return items, errorPath(err, "mount_point", "mgmtd_host", "mgmtd_port", "cache_type", "beegfs_version", "settings", "conn_auth_secret"), err
}

func (m *beegfsClientModel) itemPath(i int, _ string) path.Path {
	switch i {
	case 0:
		return path.Root("conn_auth_secret")
	case 1, 2:
		return path.Root("settings")
	case 3:
		return path.Root("mount_point")
	}
	return path.Root("host")
}

// claimClientVersion refuses a client whose major release differs from
// the services' of its file system in this configuration.
func claimClientVersion(nodes *nodeAccess, m *beegfsClientModel, diags *diag.Diagnostics) {
	// beegfs_version (deprecated) keeps its old meaning: helperd only.
	beegfsClaimVersion(nodes, m.MgmtdHost.ValueString(), m.Release.ValueString(), diags)
}

func intList(l []int64) string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = fmt.Sprintf("`%d`", v)
	}
	return strings.Join(out, ", ")
}

func (m *beegfsClientModel) fill() {
	if beegfs.IsV8(m.Release.ValueString()) {
		m.Services = stringList([]string{"beegfs-client"})
		return
	}
	m.Services = stringList([]string{"beegfs-helperd", "beegfs-client"})
}
