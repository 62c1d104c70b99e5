package provider

// The provider's side of day-2 sequences (internal/day2): a server's
// failure_domain block, the runner that sends the sequence's commands over
// the node's agent session, the process-wide turns that keep Terraform's
// parallel updates of one domain apart, and the plan's words for it.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/day2"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// day2Turns serialises the members of each failure domain across every
// resource this provider process updates.
var day2Turns = &day2.Turns{}

// The failure domain's wait timeout: default and bounds.
const (
	defaultDomainTimeout = 20 * time.Minute
	minDomainTimeout     = 10 * time.Second
	maxDomainTimeout     = 4 * time.Hour
)

type failureDomainModel struct {
	Name      types.String `tfsdk:"name"`
	Kind      types.String `tfsdk:"kind"`
	Host      types.String `tfsdk:"host"`
	Node      types.String `tfsdk:"node"`
	AdminHost types.String `tfsdk:"admin_host"`
	Timeout   types.String `tfsdk:"timeout"`
}

func failureDomainSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The failure domain this server belongs to: the cluster whose service must survive its " +
			"maintenance. With it, a change that reboots the server (a BIOS change) runs inside the domain's sequence: " +
			"take the domain's lock (held in the cluster itself, so two `terraform apply` runs cannot take two members " +
			"out), check the other members are in service, take this one out (pacemaker: standby) and wait until nothing " +
			"runs on it, reboot, wait until it is back, put it back in service, move back what ran on it, release the " +
			"lock. Members of one domain go one at a time whatever Terraform's parallelism, in name order when they wait " +
			"together. A step that does not finish within `timeout` fails the apply naming the server and the step, " +
			"leaves the server as that step found it and keeps the lock; the next apply resumes it (see " +
			"`maintenance_pending`). See the day-2 guide.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The domain's name, the same on every member (letters, digits, `_`, `.`, `-`; " +
					"pacemaker: the lock is the cluster property set `" + pacemaker.MaintenanceLockPrefix + "<name>`).",
				Validators: []validator.String{stringvalidator.RegexMatches(pacemaker.ValidDomain, "must start with a letter; letters, digits, _ . - only, at most 63")},
			},
			"kind": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "What the domain is: " + backtickList(day2.Kinds) + ": a pacemaker/corosync cluster (standby), " +
					"a Storage Scale cluster (mmshutdown, quorum and NSD servers kept), Ceph OSD hosts (noout, PGs clean) or " +
					"BeeGFS buddy-mirrored servers (groups Good before and after).",
				Validators: []validator.String{stringvalidator.OneOf(day2.Kinds...)},
			},
			"host": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "SSH host of this server's operating system (as in the node resources' `host`).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"node": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "This server's name in the cluster (pacemaker: its node name).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"admin_host": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "SSH host where the domain's cluster-wide commands run (another member). Unset: " +
					"`host`.",
			},
			"timeout": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("How long each step may wait (the lock, the drain, the member's return, "+
					"the failback), as a Go duration, from %s to %s. Default `%s`.", shortDuration(minDomainTimeout),
					shortDuration(maxDomainTimeout), shortDuration(defaultDomainTimeout)),
				Validators: []validator.String{durationValidator{min: minDomainTimeout, max: maxDomainTimeout}},
			},
		},
	}
}

func (f *failureDomainModel) member() day2.Member {
	return day2.Member{Domain: f.Name.ValueString(), Kind: f.Kind.ValueString(), Host: f.Host.ValueString(),
		Node: f.Node.ValueString(), Admin: f.AdminHost.ValueString()}
}

func (f *failureDomainModel) known() bool {
	for _, v := range []types.String{f.Name, f.Kind, f.Host, f.Node, f.AdminHost, f.Timeout} {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

func (f *failureDomainModel) options(d *providerData) day2.Options {
	o := day2.Options{Timeout: defaultDomainTimeout}
	if t, err := time.ParseDuration(f.Timeout.ValueString()); err == nil && t > 0 {
		o.Timeout = t
	}
	if d != nil && d.PollInterval > 0 {
		o.Poll = d.PollInterval
	}
	return o
}

// nodeRunner sends a sequence's items over each node's agent session.
type nodeRunner struct {
	nodes *nodeAccess
	owner string
}

func (n nodeRunner) Run(ctx context.Context, host string, items []protocol.Item, check bool) (*protocol.Result, error) {
	var diags diag.Diagnostics
	res, ok := nodeRun{nodes: n.nodes, host: host, owner: n.owner}.exec(ctx, items, check, &diags)
	if !ok {
		return nil, errors.New(diagText(diags))
	}
	return res, nil
}

func day2Owner(domain string) string { return "day2-" + domain }

// sequenceText is what the plan says a member's maintenance will do.
func sequenceText(m day2.Member, why string) string {
	return fmt.Sprintf("%s leaves failure domain %q (%s) for maintenance:\n%s", m.Node, m.Domain, m.Kind,
		strings.Join(day2.Numbered(day2.Steps(m, why)), "\n"))
}

// stepError reports a stopped sequence on the attribute that caused it.
func stepError(diags *diag.Diagnostics, at path.Path, err error) {
	var se *day2.StepError
	detail := err.Error()
	if errors.As(err, &se) && se.Step != day2.StepLock && se.Step != day2.StepCheck {
		detail += fmt.Sprintf("\n%s keeps the domain's lock and stays as the step %q left it; the next terraform apply "+
			"resumes it from there (the plan shows maintenance_pending).", se.Member.Node, se.Step)
	}
	addError(diags, at, "Maintenance Sequence Stopped", detail, nil)
}

// updateFirmware sends each update (a component at its version already is
// left alone) and returns the components staged to run after a reboot.
func updateFirmware(ctx context.Context, ep *redfish.Endpoint, sys *redfish.System, ups []redfish.FirmwareUpdate, w redfish.Waiter) (map[string]string, error) {
	staged := map[string]string{}
	for i, u := range ups {
		res, err := ep.UpdateFirmware(ctx, sys, u, w)
		if err != nil {
			return nil, fmt.Errorf("firmware[%d] %s: %w", i, u.Component, err)
		}
		if res.ResetRequired {
			staged[u.Component] = u.Version
		}
	}
	return staged, nil
}
