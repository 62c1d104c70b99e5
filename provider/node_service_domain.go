package provider

// A node service's failure_domain: a change to a service on a member of a
// live cluster (a configuration file its daemon reads only when it
// starts, a restart the change notifies) runs inside the domain's day-2
// sequence (internal/day2), so two members of one domain never restart
// together. With a pacemaker domain the member is put in standby: the
// cluster moves what ran there to its peer, the change lands while the
// member serves nothing, and the failback starts the services there again
// with the new files.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/day2"
)

// nodeDomainModel is failure_domain on a node service: the server's block
// without host, which is the resource's own.
type nodeDomainModel struct {
	Name      types.String `tfsdk:"name"`
	Kind      types.String `tfsdk:"kind"`
	Node      types.String `tfsdk:"node"`
	AdminHost types.String `tfsdk:"admin_host"`
	Timeout   types.String `tfsdk:"timeout"`
}

// pendingDriftKey is the drift entry of a member whose sequence stopped
// half-way: the plan shows an update, and the apply resumes it.
const pendingDriftKey = "failure_domain"

func nodeDomainSchema() schema.SingleNestedAttribute {
	s := failureDomainSchema()
	attrs := map[string]schema.Attribute{}
	for k, a := range s.Attributes {
		if k != "host" {
			attrs[k] = a
		}
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The failure domain of the node, as on its `hpcstorage_server`: set it on a member of a live " +
			"cluster whose service this resource configures. A change that the node's check finds (a file the " +
			"service reads when it starts, a restart it notifies) then runs inside the domain's sequence: the " +
			"domain's lock, the check that the other members serve, the member taken out (pacemaker: standby, so " +
			"the cluster moves what ran there), the change, the member back and what ran there moved back (started " +
			"again with the new files), the lock released. Members of one domain go one at a time, in `node` order, " +
			"and the plan names each with its steps. A resource being created, or a cluster not running yet, has no " +
			"service to keep: the change runs alone. A sequence that stops keeps the lock and shows in `drift`, and " +
			"the next apply resumes it. See the day-2 guide.",
		Attributes: attrs,
	}
}

func (f *nodeDomainModel) known() bool {
	for _, v := range []types.String{f.Name, f.Kind, f.Node, f.AdminHost, f.Timeout} {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

func (f *nodeDomainModel) member(host string) day2.Member {
	return day2.Member{Domain: f.Name.ValueString(), Kind: f.Kind.ValueString(), Host: host,
		Node: f.Node.ValueString(), Admin: f.AdminHost.ValueString()}
}

func (f *nodeDomainModel) server() *failureDomainModel {
	return &failureDomainModel{Name: f.Name, Kind: f.Kind, Node: f.Node, AdminHost: f.AdminHost, Timeout: f.Timeout}
}

// nodeStartupFiles is implemented by models whose daemons run under a
// cluster and read some of their files only when they start: a change to
// one of those items takes the member out (the failover starts the
// daemon again with it) though no restart is notified. An id ending in
// "/" stands for every item under it.
type nodeStartupFiles interface {
	startupItems() []string
}

// startupSet holds item ids and, ending in "/", id prefixes.
type startupSet []string

func startupItems(m nodeModel) startupSet {
	if s, ok := m.(nodeStartupFiles); ok {
		return s.startupItems()
	}
	return nil
}

func (s startupSet) has(id string) bool {
	for _, x := range s {
		if x == id || strings.HasSuffix(x, "/") && strings.HasPrefix(id, x) {
			return true
		}
	}
	return false
}

// disruption says what of a check result takes the member out of
// service: a restart a change notifies, a file its clustered daemon reads
// only at start; "" when nothing (a setting applied live, the provider's
// import record). New options of a loaded kernel module wait for the next
// boot (the agent never reloads a driver under a running service): the
// hpcstorage_rolling_reboot action takes them through the same sequence.
func disruption(res *protocol.Result, startup startupSet) string {
	if res == nil {
		return ""
	}
	var changed, restarts []string
	for _, ir := range res.Items {
		if ir.Changed && startup.has(ir.ID) {
			changed = append(changed, ir.ID)
		}
	}
	for _, h := range res.Handlers {
		if h.Action != "" {
			restarts = append(restarts, h.ID)
		}
	}
	switch {
	case len(changed) == 0 && len(restarts) == 0:
		return ""
	case len(restarts) == 0:
		return "change " + strings.Join(changed, ", ") + " (read when the service starts)"
	case len(changed) == 0:
		return "restart " + strings.Join(restarts, ", ")
	}
	return "change " + strings.Join(changed, ", ") + "; restart " + strings.Join(restarts, ", ")
}

// readDomainPending adds the pending entry to drift when this member
// holds its domain's lock (a sequence stopped half-way).
func readDomainPending(ctx context.Context, nodes *nodeAccess, f *nodeDomainModel, host string, drift *types.Map, diags *diag.Diagnostics) {
	if f == nil || !f.known() || nodes == nil {
		return
	}
	m := f.member(host)
	pending, err := day2.Pending(ctx, nodeRunner{nodes: nodes, owner: day2Owner(m.Domain)}, m)
	if err != nil {
		diags.AddAttributeWarning(path.Root("failure_domain"), "Failure Domain Not Read",
			fmt.Sprintf("Whether a maintenance sequence of %s stopped half-way could not be read: %v", m.Node, err))
		return
	}
	if !pending {
		return
	}
	d := map[string]string{}
	for k, v := range drift.Elements() {
		if s, ok := v.(types.String); ok {
			d[k] = s.ValueString()
		}
	}
	d[pendingDriftKey] = fmt.Sprintf("%s holds the lock of domain %q: a maintenance sequence stopped half-way; the next apply resumes it", m.Node, m.Domain)
	*drift = driftMap(d)
}

// planDomain says in the plan what a change of a domain member will do:
// the sequence it runs in, or a refusal when the domain as built cannot
// lose the member. res is the plan's node check (nil: none ran).
func planDomain(ctx context.Context, nodes *nodeAccess, f *nodeDomainModel, host string, priorDrift types.Map, res *protocol.Result, startup startupSet, diags *diag.Diagnostics) {
	if f == nil || !f.known() || nodes == nil {
		return
	}
	m := f.member(host)
	if _, ok := priorDrift.Elements()[pendingDriftKey]; ok {
		diags.AddAttributeWarning(path.Root("failure_domain"), fmt.Sprintf("%s Resumes Its Maintenance In %s", m.Node, m.Domain),
			"A maintenance sequence of this member stopped half-way and it still holds the domain's lock; this apply "+
				"resumes it:\n"+sequenceText(m, "apply what is left of the change"))
		return
	}
	what := disruption(res, startup)
	if what == "" {
		return
	}
	err := day2.Precheck(ctx, nodeRunner{nodes: nodes, owner: day2Owner(m.Domain)}, m)
	switch {
	case errors.Is(err, day2.ErrRefused):
		addError(diags, path.Root("failure_domain"), "Failure Domain Cannot Lose This Member",
			fmt.Sprintf("This change takes %s out of service, and its domain %q as built cannot keep its service without it.", m.Node, m.Domain), err)
		return
	case errors.Is(err, day2.ErrNoCluster):
		// Not formed yet, or stopped: the change runs alone, as the apply says.
		return
	case err != nil:
		diags.AddAttributeWarning(path.Root("failure_domain"), fmt.Sprintf("%s Cannot Leave Failure Domain %s Now", m.Node, m.Domain),
			fmt.Sprintf("The domain's check says %v. The apply waits (failure_domain.timeout) for it to pass before it takes %s out.", err, m.Node))
	}
	// One summary per member: Terraform folds warnings that share one.
	diags.AddAttributeWarning(path.Root("failure_domain"), fmt.Sprintf("%s Restarts In Failure Domain %s", m.Node, m.Domain),
		sequenceText(m, fmt.Sprintf("%s on %s", what, m.Node)))
}

// convergeInDomain converges items, inside the member's sequence when the
// node's check finds a change that takes it out, or when the prior state's
// drift says a stopped sequence waits to resume.
func (b nodeRun) convergeInDomain(ctx context.Context, f *nodeDomainModel, startup startupSet, pd *providerData, priorDrift types.Map, items, previous []protocol.Item, diags *diag.Diagnostics) bool {
	if f == nil || !f.known() {
		return b.converge(ctx, items, previous, diags)
	}
	mem := f.member(b.host)
	runner := nodeRunner{nodes: b.nodes, owner: day2Owner(mem.Domain)}
	// The refresh before this apply read the lock into drift: no second
	// query of the domain.
	_, pending := priorDrift.Elements()[pendingDriftKey]
	if !pending {
		res, ok := b.check(ctx, items, diags)
		if !ok {
			return false
		}
		if disruption(res, startup) == "" {
			// Checked already: one node round trip less.
			return b.applyChecked(ctx, items, previous, diags)
		}
	}
	var workDiags diag.Diagnostics
	worked := false
	work := func(ctx context.Context) error {
		worked = true
		if !b.converge(ctx, items, previous, &workDiags) {
			return fmt.Errorf("host %s: the change did not apply: %s", b.host, diagText(workDiags.Errors()))
		}
		return nil
	}
	err := day2.Roll(ctx, runner, mem, f.server().options(pd), day2Turns, work)
	var se *day2.StepError
	if errors.As(err, &se) && se.Step == day2.StepLock && errors.Is(err, day2.ErrNoCluster) && !worked {
		diags.AddAttributeWarning(path.Root("failure_domain"), "Failure Domain Not Running",
			fmt.Sprintf("The %s cluster of domain %q does not run on %s, so %s serves nothing in it and was changed without "+
				"the maintenance sequence: %v", mem.Kind, mem.Domain, mem.Host, mem.Node, err))
		return b.converge(ctx, items, previous, diags)
	}
	// The converge's own findings (warnings, a rollback) go to the user
	// whatever the sequence did.
	diags.Append(workDiags...)
	if err != nil {
		if !workDiags.HasError() || !errors.As(err, &se) || se.Step != day2.StepWork {
			stepError(diags, path.Root("failure_domain"), err)
		}
		return false
	}
	return true
}
