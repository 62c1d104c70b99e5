package provider

// What the Ceph resources share beyond the cluster-service shell
// (cluster_service.go): the node holding the admin keyring (the bootstrap
// monitor) runs every ceph and rbd command through the agent.

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
)

const cephKind = "Ceph"

var cephFamily = clusterFamily{kind: cephKind, queryOwner: "ceph-query"}

func cephAdminHostAttribute() schema.StringAttribute {
	return schema.StringAttribute{Required: true,
		MarkdownDescription: "Node holding the cluster's admin keyring (`hpcstorage_ceph_cluster.admin_host`, the bootstrap " +
			"monitor): name or address, optionally `name:port`, reached over SSH with the provider's `ssh` settings. Every " +
			"`ceph` and `rbd` command of this resource runs there, through the agent.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
}

// cephOn is the shell on one node (the admin host, or a client reading its
// own mappings).
func cephOn(nodes *nodeAccess, host types.String, ssh types.Object) clusterShell {
	return cephFamily.on(nodes, host.ValueString(), ssh)
}

// cephInvalid reports a renderer's validation error on an attribute.
func cephInvalid(diags *diag.Diagnostics, at string, err error) {
	invalidSetting(diags, cephKind, attrPath(at), err)
}

// cephReleaseAttribute is a Ceph release choice, the paper's (Pacific) by
// default; changing it never replaces anything (an upgrade is cephadm's).
func cephReleaseAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(ceph.DefaultRelease),
		Validators:          []validator.String{stringvalidator.OneOf(ceph.Releases...)},
		MarkdownDescription: desc + " One of " + enumDoc(ceph.Releases) + "; default `" + ceph.DefaultRelease + "` (the R4 paper's)."}
}
