package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/layout"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// The array seam: array resources reach either kind of array through
// internal/arrays, the endpoint's declared api choosing the client.

func apiAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "API the endpoint speaks: `" + strings.Join(arrays.APIs, "`, `") + "`. Default `redfish` " +
			"(BMCs, Swordfish arrays such as PowerVault ME4); `santricity` for NetApp E-Series controllers (SANtricity Web " +
			"Services, usually `https://<controller>:8443`), where drives are named `<tray>.<slot>` (`99.0`). Falls back " +
			"to `HPCSTORAGE_<NAME>_API`.",
		Validators: []validator.String{stringvalidator.OneOf(arrays.APIs...)},
	}
}

// endpointAPI is the endpoint's declared API, or its environment fallback.
func (p *hpcstorageProvider) endpointAPI(name string, m endpointModel, diags *diag.Diagnostics) string {
	if !m.API.IsNull() && !m.API.IsUnknown() && m.API.ValueString() != "" {
		return m.API.ValueString()
	}
	v, ok := p.lookupEnv(name, "API")
	if !ok {
		return arrays.APIRedfish
	}
	for _, a := range arrays.APIs {
		if strings.EqualFold(v, a) {
			return a
		}
	}
	addError(diags, path.Root("endpoints").AtMapKey(name).AtName("api"), "Invalid Endpoint API",
		fmt.Sprintf("Set %s (or %sAPI) to one of %s.", envName(name, "API"), envPrefix, strings.Join(arrays.APIs, ", ")),
		fmt.Errorf("got %q", v))
	return arrays.APIRedfish
}

// santricityClient builds the E-Series client from the endpoint's settings.
func santricityClient(c redfish.Config, name string, diags *diag.Diagnostics) *santricity.Client {
	sc, err := santricity.New(santricity.Config{Name: c.Name, URL: c.URL, Username: c.Username, Password: c.Password,
		CACertPEM: c.CACertPEM, Insecure: c.Insecure, MaxConcurrent: c.MaxConcurrent, Timeout: c.Timeout, Retry: c.Retry,
		Log: c.Log, Sleep: c.Sleep})
	if err != nil {
		addError(diags, path.Root("endpoints").AtMapKey(name), "Invalid Endpoint Configuration",
			"An E-Series endpoint needs an https url and a username.", err)
		return nil
	}
	return sc
}

// liveESeries remembers the E-Series clients, to log out at exit.
var liveESeries sync.Map // *santricity.Client -> struct{}

func registerESeries(m map[string]*santricity.Client) {
	for _, c := range m {
		liveESeries.Store(c, struct{}{})
	}
}

func closeESeries(ctx context.Context) error {
	var errs []error
	liveESeries.Range(func(k, _ any) bool {
		errs = append(errs, k.(*santricity.Client).Close(ctx))
		liveESeries.Delete(k)
		return true
	})
	return errors.Join(errs...)
}

// speaksSantricity reports whether name is an E-Series endpoint, for
// resources that reach arrays only through Redfish so far.
func (d *providerData) speaksSantricity(name string) bool {
	if d == nil {
		return false
	}
	_, ok := d.ESeries[name]
	return ok
}

// arrayFor returns the array behind endpoint name and the storage id it is
// known by in state: the Swordfish Storage id (storageID, or the only one),
// or "1" for an embedded E-Series endpoint.
func (d *providerData) arrayFor(ctx context.Context, name string, storageID types.String, diags *diag.Diagnostics) (arrays.Array, string) {
	if d.speaksSantricity(name) {
		c := d.ESeries[name]
		sid, err := c.SystemID(ctx)
		if err != nil {
			redfishError(diags, path.Root("endpoint"), "Cannot Reach The Array", err)
			return nil, ""
		}
		if !storageID.IsNull() && !storageID.IsUnknown() && storageID.ValueString() != "" && storageID.ValueString() != sid {
			addError(diags, path.Root("storage_id"), "Wrong Storage System",
				fmt.Sprintf("E-Series endpoint %q serves storage system %q; leave storage_id unset or set it to that.", name, sid), nil)
			return nil, ""
		}
		return arrays.ESeries(c), sid
	}
	ep, sid := arrayOf(ctx, d, types.StringValue(name), storageID, diags)
	if ep == nil {
		return nil, ""
	}
	return arrays.Swordfish(ep, sid), sid
}

// eseriesName is what SANtricity accepts as a label: at most 30 of
// letters, digits, _ # - (NetApp's netapp_e_volume module documents it).
var eseriesName = regexp.MustCompile(`^[A-Za-z0-9_#-]{1,30}$`)

const eseriesNameDoc = "at most 30 letters, digits, `_`, `#`, `-` (checked at plan; `#` is still refused by the name rule " +
	"shared with Redfish arrays, so in practice letters, digits, `_`, `-`)"

const eseriesCountDoc = "`RAID0` 1 or more drives, `RAID1` exactly 2, `RAID10` an even number from 4 (a raid1 volume group), " +
	"`RAID5` 3 to 30, `RAID6` 5 to 30, `DDP` 11 or more"

// groupLevels are the raid_level values of either kind of array.
func groupLevels() []string { return layout.PoolLevelStrings() }

// checkESeriesName refuses at plan a new name an E-Series array would.
func checkESeriesName(at path.Path, name types.String, diags *diag.Diagnostics) {
	if name.IsNull() || name.IsUnknown() || eseriesName.MatchString(name.ValueString()) {
		return
	}
	addError(diags, at, "Invalid Name For An E-Series Array",
		"SANtricity names take "+strings.ReplaceAll(eseriesNameDoc, "`", "")+".", fmt.Errorf("got %q", name.ValueString()))
}

// pickFreeDrives returns the first n free drives (no group, not a spare) of
// media type (any when empty), in bay order.
func pickFreeDrives(drives []arrays.Drive, n int, media string) []string {
	var out []string
	for _, d := range drives {
		if len(out) == n {
			break
		}
		if d.GroupID == "" && !d.Spare && (media == "" || strings.EqualFold(d.MediaType, media)) {
			out = append(out, d.ID)
		}
	}
	return out
}
