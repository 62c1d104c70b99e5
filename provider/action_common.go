package provider

// What the day-2 actions share: the servers they work on (a BMC endpoint
// and, for members of a failure domain, the domain), the timeout, and the
// provider data they run with.

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/day2"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

type actionServerModel struct {
	Endpoint      types.String        `tfsdk:"endpoint"`
	SystemID      types.String        `tfsdk:"system_id"`
	FailureDomain *failureDomainModel `tfsdk:"failure_domain"`
}

// actionServersSchema: the servers an action works on, in order.
func actionServersSchema(what string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Required: true,
		MarkdownDescription: "The servers, in the order they go " + what + ". A server with a `failure_domain` goes through " +
			"its domain's maintenance sequence (as `hpcstorage_server` does), so members of one domain never go together " +
			"and another run holding the domain is waited for; a server without one goes as it is.",
		Validators: []validator.List{listvalidator.SizeAtLeast(1)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the BMC in the provider's `endpoints` map."},
			"system_id": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Id of the ComputerSystem. Default: the only system of the BMC."},
			"failure_domain": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "The server's failure domain, as in `hpcstorage_server`.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "The domain's name.",
						Validators: []validator.String{stringvalidator.RegexMatches(pacemaker.ValidDomain, "must start with a letter; letters, digits, _ . - only, at most 63")}},
					"kind": schema.StringAttribute{Required: true, MarkdownDescription: "What the domain is: " + backtickList(day2.Kinds) + ".",
						Validators: []validator.String{stringvalidator.OneOf(day2.Kinds...)}},
					"host":       schema.StringAttribute{Required: true, MarkdownDescription: "SSH host of the server's operating system."},
					"node":       schema.StringAttribute{Required: true, MarkdownDescription: "The server's name in the cluster."},
					"admin_host": schema.StringAttribute{Optional: true, MarkdownDescription: "SSH host of another member, where cluster-wide commands run."},
					"timeout":    schema.StringAttribute{Optional: true, MarkdownDescription: "Unused here: the action's `timeout` bounds each step."},
				}},
		}},
	}
}

func actionTimeoutSchema() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: fmt.Sprintf("How long each step may take (a reboot, a domain's wait), as a Go duration from %s "+
			"to %s. Default `%s`.", shortDuration(minDomainTimeout), shortDuration(maxDomainTimeout), shortDuration(defaultDomainTimeout)),
		Validators: []validator.String{durationValidator{min: minDomainTimeout, max: maxDomainTimeout}},
	}
}

func actionTimeout(v types.String) time.Duration {
	if d, err := time.ParseDuration(v.ValueString()); err == nil && d > 0 {
		return d
	}
	return defaultDomainTimeout
}

// actionModel is what every day-2 action's configuration has.
type actionModel interface {
	servers() []actionServerModel
	timeout() types.String
}

// begin reads the action's configuration into m and resolves its servers
// and timeout; false when the diagnostics say why not.
func (a *actionBase) begin(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse, m actionModel) ([]target, time.Duration, bool) {
	resp.Diagnostics.Append(req.Config.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return nil, 0, false
	}
	ts := a.targets(ctx, m.servers(), &resp.Diagnostics)
	return ts, actionTimeout(m.timeout()), !resp.Diagnostics.HasError()
}

// actionBase is what every day-2 action holds.
type actionBase struct{ data *providerData }

func (a *actionBase) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// target is one server of an action, resolved.
type target struct {
	ep     *redfish.Endpoint
	id     string
	member *day2.Member
	at     path.Path
}

// targets resolves the servers (endpoint names, systems) before anything
// is done, so a typo stops the action before its first server goes.
func (a *actionBase) targets(ctx context.Context, servers []actionServerModel, diags *diag.Diagnostics) []target {
	if a.data == nil {
		diags.AddError("Provider Not Configured", "The hpcstorage provider was not configured before the action ran.")
		return nil
	}
	var out []target
	for i, s := range servers {
		at := path.Root("servers").AtListIndex(i)
		ep := a.data.endpoint(s.Endpoint.ValueString(), at.AtName("endpoint"), diags)
		if ep == nil {
			continue
		}
		id, err := ep.FindSystem(ctx, s.SystemID.ValueString())
		if err != nil {
			redfishError(diags, at.AtName("system_id"), "Cannot Find The Server", err)
			continue
		}
		t := target{ep: ep, id: id, at: at}
		if f := s.FailureDomain; f != nil {
			m := f.member()
			t.member = &m
		}
		out = append(out, t)
	}
	return out
}

// roll runs work on t, inside its failure domain's sequence when it has
// one; progress hears each step.
func (a *actionBase) roll(ctx context.Context, t target, timeout time.Duration, progress func(string), work func(context.Context) error) error {
	if t.member == nil {
		return work(ctx)
	}
	o := day2.Options{Timeout: timeout, Poll: a.data.PollInterval, Log: func(m day2.Member, step, msg string) {
		progress(fmt.Sprintf("%s (%s): %s %s", m.Node, m.Domain, step, msg))
	}}
	return day2.Roll(ctx, nodeRunner{nodes: a.data.Nodes, owner: day2Owner(t.member.Domain)}, *t.member, o, day2Turns, work)
}

func progressTo(resp *action.InvokeResponse) func(string) {
	return func(msg string) {
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		}
	}
}
