package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/day2"
)

var _ action.ActionWithConfigure = (*failoverDrillAction)(nil)

// NewFailoverDrillAction exercises an HA pair's failovers.
func NewFailoverDrillAction() action.Action { return &failoverDrillAction{} }

type failoverDrillAction struct{ actionBase }

type failoverDrillModel struct {
	Servers  []actionServerModel `tfsdk:"servers"`
	PowerOff types.Bool          `tfsdk:"power_off"`
	Timeout  types.String        `tfsdk:"timeout"`
}

func (m *failoverDrillModel) servers() []actionServerModel { return m.Servers }
func (m *failoverDrillModel) timeout() types.String        { return m.Timeout }

func (a *failoverDrillAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_failover_drill"
}

func (a *failoverDrillAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The HA functional tests of the reference designs, on a live pacemaker cluster: each server in " +
			"turn goes to standby and back, then (with `power_off`) loses its power through its BMC, is fenced and boots " +
			"again, its failed actions and fencing history are cleaned up and its services moved home. Meanwhile the cluster " +
			"is read from the server's peer (`failure_domain.admin_host`), and the action reports how long each service ran " +
			"nowhere in each exercise. Run it in a maintenance window: clients see each failover.",
		Attributes: map[string]schema.Attribute{
			"servers": actionServersSchema("through the drill (each with a pacemaker `failure_domain` naming a peer in `admin_host`)"),
			"power_off": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Also cut each server's power through its BMC (ForceOff), as a crash. Default `true`."},
			"timeout": actionTimeoutSchema(),
		},
	}
}

func (a *failoverDrillAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m failoverDrillModel
	ts, timeout, ok := a.begin(ctx, req, resp, &m)
	if !ok {
		return
	}
	w := a.data.waiter(timeout)
	var members []day2.Member
	byNode := map[string]target{}
	for i, t := range ts {
		if t.member == nil || t.member.Kind != day2.KindPacemaker || t.member.Admin == "" || t.member.Admin == t.member.Host {
			addError(&resp.Diagnostics, path.Root("servers").AtListIndex(i).AtName("failure_domain"), "Server Cannot Be Drilled",
				"The drill needs a pacemaker failure_domain whose admin_host is another member, from where the cluster is watched.", nil)
			continue
		}
		members = append(members, *t.member)
		byNode[t.member.Node] = t
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var power day2.Power
	if m.PowerOff.IsNull() || m.PowerOff.ValueBool() {
		power = func(ctx context.Context, mb day2.Member, reset string) error {
			t := byNode[mb.Node]
			if reset == "ForceOff" {
				return t.ep.PowerOff(ctx, t.id, w)
			}
			return t.ep.SetPower(ctx, t.id, "On", w)
		}
	}
	o := day2.Options{Timeout: timeout, Poll: a.data.PollInterval}
	results, err := day2.Drill(ctx, nodeRunner{nodes: a.data.Nodes, owner: "day2-drill"}, power, members, o, day2Turns, progressTo(resp))
	var lines []string
	for _, r := range results {
		lines = append(lines, fmt.Sprintf("%s %s", r.Member, r))
	}
	if err != nil {
		stepError(&resp.Diagnostics, path.Root("servers"), fmt.Errorf("%w\nDone before it stopped:\n%s", err, strings.Join(lines, "\n")))
		return
	}
	resp.Diagnostics.AddWarning("Failover Drill Report", strings.Join(lines, "\n"))
}
