package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ action.ActionWithConfigure = (*rollingRebootAction)(nil)

// NewRollingRebootAction reboots servers one failure domain member at a
// time.
func NewRollingRebootAction() action.Action { return &rollingRebootAction{} }

type rollingRebootAction struct{ actionBase }

type rollingRebootModel struct {
	Servers []actionServerModel `tfsdk:"servers"`
	Timeout types.String        `tfsdk:"timeout"`
}

func (m *rollingRebootModel) servers() []actionServerModel { return m.Servers }
func (m *rollingRebootModel) timeout() types.String        { return m.Timeout }

func (a *rollingRebootAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rolling_reboot"
}

func (a *rollingRebootAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reboots servers through their BMCs, one after the other, each member of a failure domain " +
			"inside its domain's maintenance sequence (pacemaker: standby, reboot, back online, unstandby, failback), so a " +
			"cluster keeps its services through a reboot of all its servers. Terraform 1.14 and later run actions " +
			"(`terraform apply -invoke=action.hpcstorage_rolling_reboot.NAME`).",
		Attributes: map[string]schema.Attribute{
			"servers": actionServersSchema("down"),
			"timeout": actionTimeoutSchema(),
		},
	}
}

func (a *rollingRebootAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m rollingRebootModel
	ts, timeout, ok := a.begin(ctx, req, resp, &m)
	if !ok {
		return
	}
	progress := progressTo(resp)
	for _, t := range ts {
		progress(fmt.Sprintf("%s: rebooting", t.ep.Name()))
		err := a.roll(ctx, t, timeout, progress, func(ctx context.Context) error {
			return t.ep.Restart(ctx, t.id, a.data.waiter(timeout))
		})
		if err != nil {
			stepError(&resp.Diagnostics, t.at, err)
			return
		}
		progress(fmt.Sprintf("%s: rebooted", t.ep.Name()))
	}
}
