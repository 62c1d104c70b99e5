package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/firmware"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

var _ action.ActionWithConfigure = (*firmwareUpdateAction)(nil)

// NewFirmwareUpdateAction updates servers' firmware, rolling through their
// failure domains.
func NewFirmwareUpdateAction() action.Action { return &firmwareUpdateAction{} }

type firmwareUpdateAction struct{ actionBase }

type firmwareUpdateModel struct {
	Servers  []actionServerModel `tfsdk:"servers"`
	Firmware []firmwareModel     `tfsdk:"firmware"`
	Timeout  types.String        `tfsdk:"timeout"`
}

func (m *firmwareUpdateModel) servers() []actionServerModel { return m.Servers }
func (m *firmwareUpdateModel) timeout() types.String        { return m.Timeout }

func (a *firmwareUpdateAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firmware_update"
}

func (a *firmwareUpdateAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Updates firmware through the servers' BMCs (UpdateService SimpleUpdate), one server after the " +
			"other: a server whose components all run their versions already is left alone; otherwise the images are sent, " +
			"and firmware that runs only after a reboot (the BIOS) runs after one reboot, inside the server's failure domain " +
			"sequence when it has one. An image for another model than a server's is refused before anything is sent. " +
			"Use it for a one-off update; `hpcstorage_server`'s `firmware` keeps versions as configuration.",
		Attributes: map[string]schema.Attribute{
			"servers": actionServersSchema("through the update"),
			"firmware": schema.ListNestedAttribute{
				Required:            true,
				MarkdownDescription: "The firmware every server gets, as in `hpcstorage_server`'s `firmware`.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"component": schema.StringAttribute{Required: true, MarkdownDescription: "`BIOS`, `BMC`, or an inventory id, name, software id or Dell FQDD."},
					"version":   schema.StringAttribute{Required: true, MarkdownDescription: "The version the image carries."},
					"image_uri": schema.StringAttribute{Required: true, MarkdownDescription: "Where the BMC fetches the image.",
						Validators: []validator.String{stringvalidator.RegexMatches(imageURIRE, "must be an http, https, nfs, cifs or tftp URI")}},
					"transfer_protocol": schema.StringAttribute{Optional: true, MarkdownDescription: "SimpleUpdate's `TransferProtocol`. Unset: the URI's scheme."},
					"models": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "The system models the image is for; another model is refused."},
				}},
			},
			"timeout": actionTimeoutSchema(),
		},
	}
}

func (a *firmwareUpdateAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m firmwareUpdateModel
	ts, timeout, ok := a.begin(ctx, req, resp, &m)
	if !ok {
		return
	}
	w := a.data.waiter(timeout)
	progress := progressTo(resp)
	// Every server is checked before the first is touched: a wrong model
	// or an unknown component stops the action with nothing sent.
	type todo struct {
		t   target
		sys *redfish.System
		ups []redfish.FirmwareUpdate
	}
	var work []todo
	for _, t := range ts {
		sys, err := t.ep.GetSystem(ctx, t.id)
		if err != nil {
			redfishError(&resp.Diagnostics, t.at, "Cannot Read The Server", err)
			return
		}
		inv, err := t.ep.FirmwareInventory(ctx, sys.URI)
		if err != nil {
			redfishError(&resp.Diagnostics, t.at, "Cannot Read The Firmware Inventory", err)
			return
		}
		var ups []redfish.FirmwareUpdate
		for i, f := range m.Firmware {
			at := path.Root("firmware").AtListIndex(i)
			u := redfish.FirmwareUpdate{Component: f.Component.ValueString(), Version: f.Version.ValueString(),
				ImageURI: f.ImageURI.ValueString(), TransferProtocol: f.TransferProtocol.ValueString()}
			if !f.Models.IsNull() {
				resp.Diagnostics.Append(f.Models.ElementsAs(ctx, &u.Models, false)...)
			}
			if err := firmware.CheckImageModel(firmware.Image{URI: u.ImageURI, Component: u.Component, Version: u.Version, Models: u.Models}, sys.Model); err != nil {
				addError(&resp.Diagnostics, at.AtName("models"), "Firmware Image For Another Model",
					fmt.Sprintf("%s is a %s.", t.ep.Name(), sys.Model), err)
				continue
			}
			c, err := firmware.Find(inv, u.Component)
			if err != nil {
				addError(&resp.Diagnostics, at.AtName("component"), "Unknown Firmware Component",
					fmt.Sprintf("%s has no such component.", t.ep.Name()), err)
				continue
			}
			if firmware.Compare(c.Version, u.Version) != 0 {
				ups = append(ups, u)
			}
		}
		work = append(work, todo{t: t, sys: sys, ups: ups})
	}
	if resp.Diagnostics.HasError() {
		return
	}
	for _, x := range work {
		if len(x.ups) == 0 {
			progress(fmt.Sprintf("%s: every component runs its version already", x.t.ep.Name()))
			continue
		}
		progress(fmt.Sprintf("%s: updating %d component(s)", x.t.ep.Name(), len(x.ups)))
		err := a.roll(ctx, x.t, timeout, progress, func(ctx context.Context) error {
			staged, err := updateFirmware(ctx, x.t.ep, x.sys, x.ups, w)
			if err != nil || len(staged) == 0 {
				return err
			}
			return x.t.ep.RestartForFirmware(ctx, x.sys, staged, w)
		})
		if err != nil {
			stepError(&resp.Diagnostics, x.t.at, err)
			return
		}
		progress(fmt.Sprintf("%s: firmware updated", x.t.ep.Name()))
	}
}
