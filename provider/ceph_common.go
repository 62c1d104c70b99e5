package provider

// What the Ceph resources share beyond the cluster-service shell
// (cluster_service.go): the node holding the admin keyring (the bootstrap
// monitor) runs every ceph and rbd command through the agent.

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/ceph"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
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

// cephInvalid reports internal/ceph's located errors on their attributes
// (an unlocated one on the resource).
func cephInvalid(diags *diag.Diagnostics, err error) {
	addLocated(diags, path.Empty(), "Invalid Ceph Setting", "Fix the value in the configuration.", err)
}

// relocate puts every located error of err at p instead (a mon or mgr
// spec's problems belong to the cluster's label and count attributes).
func relocate(p located.Path, err error) error {
	all := located.All(err)
	if len(all) == 0 {
		return located.Wrap(p, err)
	}
	out := make([]error, len(all))
	for i, le := range all {
		out[i] = located.Wrap(p, le.Err)
	}
	return errors.Join(out...)
}

// cephReleaseAttribute is a Ceph release choice, the paper's (Pacific) by
// default; changing it never replaces anything (an upgrade is cephadm's).
func cephReleaseAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(ceph.DefaultRelease),
		Validators:          []validator.String{stringvalidator.OneOf(ceph.Releases...)},
		MarkdownDescription: desc + " One of " + enumDoc(ceph.Releases) + "; default `" + ceph.DefaultRelease + "` (the R4 paper's)."}
}

// cephRunner is internal/ceph's Runner on the shell: failures become
// diagnostics here (with the host and the command), and the sequence
// sees errReported, so nothing is reported twice.
type cephRunner struct {
	sh      clusterShell
	summary string
	diags   *diag.Diagnostics
}

func (c cephRunner) Query(ctx context.Context, items ...protocol.Item) (map[string]string, error) {
	out, ok := c.sh.query(ctx, c.diags, items...)
	if !ok {
		return nil, errReported
	}
	return out, nil
}

func (c cephRunner) Apply(ctx context.Context, owner string, items []protocol.Item) error {
	if !c.sh.apply(ctx, owner, items, c.summary, c.diags) {
		return errReported
	}
	return nil
}

// addCephErr reports a sequence's error unless the runner did already.
func addCephErr(diags *diag.Diagnostics, fallback path.Path, summary, detail string, err error) {
	if err != nil && !errors.Is(err, errReported) {
		addLocated(diags, fallback, summary, detail, err)
	}
}
