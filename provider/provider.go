// Package provider maps Terraform configuration onto the hpcstorage
// internals: Redfish for BMCs and arrays, the agent over SSH for nodes.
package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

var (
	_ provider.Provider                  = (*hpcstorageProvider)(nil)
	_ provider.ProviderWithActions       = (*hpcstorageProvider)(nil)
	_ provider.ProviderWithListResources = (*hpcstorageProvider)(nil)
)

// hpcstorageProvider is the provider implementation.
type hpcstorageProvider struct {
	version string
	hooks   testHooks
}

// testHooks lets tests speed up waits; zero in production.
type testHooks struct {
	sleep        func(ctx context.Context, d time.Duration) error
	pollInterval time.Duration
	// env replaces the process environment for the endpoints' variables,
	// so tests that serve providers for different labs can run at once.
	env func(string) (string, bool)
}

// providerData is the one bundle Configure hands to resources and data
// sources.
type providerData struct {
	Redfish *redfish.Pool
	// Deferred endpoints have settings not known until apply.
	Deferred map[string]bool
	Nodes    *nodeAccess // SSH to nodes (provider_ssh.go)
	// Now and Sleep drive every wait (reboots, tasks), so tests can shorten them.
	Now          func() time.Time
	Sleep        func(ctx context.Context, d time.Duration) error
	PollInterval time.Duration
	// DriveClaims records, during one plan, which disk group (or the spare
	// set) each drive is planned for, so one drive planned twice fails.
	DriveClaims *driveClaims
	// ESeries are the endpoints declared api = "santricity" (arrays_seam.go).
	ESeries map[string]*santricity.Client
	// PlannedGroups holds the capacity of disk groups planned in this plan.
	PlannedGroups *plannedGroups
	// Endpoints are the Redfish endpoints' settings by name: cluster fence
	// devices take a BMC's address and credentials from them.
	Endpoints map[string]redfish.Config
}

// New returns a constructor for the provider, as providerserver expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &hpcstorageProvider{version: version}
	}
}

// Defaults and environment variables of the provider block.
const (
	defaultMaxConcurrent  = 4
	defaultRequestTimeout = 30 * time.Second
	maxRequestTimeout     = time.Hour
	defaultMaxRetries     = 5
	envPrefix             = "HPCSTORAGE_"
)

type providerModel struct {
	Endpoints      map[string]endpointModel `tfsdk:"endpoints"`
	RequestTimeout types.String             `tfsdk:"request_timeout"`
	SSH            types.Object             `tfsdk:"ssh"`
	MaxRetries     types.Int64              `tfsdk:"max_retries"`
}

type endpointModel struct {
	URL                   types.String `tfsdk:"url"`
	Username              types.String `tfsdk:"username"`
	Password              types.String `tfsdk:"password"`
	CACertificate         types.String `tfsdk:"ca_certificate"`
	Insecure              types.Bool   `tfsdk:"insecure"`
	MaxConcurrentRequests types.Int64  `tfsdk:"max_concurrent_requests"`
	API                   types.String `tfsdk:"api"`
}

func (p *hpcstorageProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = providerTypeName
	resp.Version = p.version
}

func (p *hpcstorageProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Turns HPC storage reference designs into infrastructure as code: " +
			"servers and arrays through Redfish and Swordfish, node configuration through the hpcstorage agent over SSH.",
		Attributes: map[string]schema.Attribute{
			"endpoints": schema.MapNestedAttribute{
				Optional: true,
				MarkdownDescription: "Redfish and Swordfish services (BMCs, array controllers) by name. Resources say " +
					"`endpoint = \"<name>\"` and never carry credentials, so rotating a password touches only this block. " +
					"Each attribute falls back to an environment variable: `HPCSTORAGE_<NAME>_<ATTRIBUTE>` (the name in upper " +
					"case, other characters as `_`, e.g. `HPCSTORAGE_MDS1_BMC_PASSWORD`), then `HPCSTORAGE_<ATTRIBUTE>` for all " +
					"endpoints (`HPCSTORAGE_USERNAME`, `HPCSTORAGE_PASSWORD`, `HPCSTORAGE_CA_CERTIFICATE`, `HPCSTORAGE_INSECURE`, " +
					"`HPCSTORAGE_MAX_CONCURRENT_REQUESTS`). One session per endpoint is opened per provider run and reused.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"url": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Base URL, `https://host[:port]`. Falls back to `HPCSTORAGE_<NAME>_URL`.",
					},
					"username": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "User name. Without one (and no environment fallback) requests are sent unauthenticated.",
					},
					"password": schema.StringAttribute{
						Optional:            true,
						Sensitive:           true,
						MarkdownDescription: "Password. Sensitive: never shown in plans nor written to logs, `TF_LOG=trace` included.",
					},
					"ca_certificate": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "PEM CA bundle that signs the service's TLS certificate (for BMCs with site or " +
							"self-signed certificates). Without it the system trust store is used. The environment fallback " +
							"may also be a path to a PEM file.",
					},
					"insecure": schema.BoolAttribute{
						Optional:            true,
						MarkdownDescription: "Skip TLS certificate verification. Off unless set; prefer `ca_certificate`.",
					},
					"max_concurrent_requests": schema.Int64Attribute{
						Optional: true,
						MarkdownDescription: fmt.Sprintf("Requests in flight to this endpoint at once, whatever Terraform's "+
							"`-parallelism` (BMCs answer 503 when crowded). Default %d.", defaultMaxConcurrent),
						Validators: []validator.Int64{int64validator.Between(1, 64)},
					},
					"api": apiAttribute(),
				}},
			},
			"ssh": sshProviderAttribute(),
			"request_timeout": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Timeout of one HTTP attempt, a Go duration (`30s`, `2m`; at most `%s`), "+
					"like the `ssh` timeouts. Default `%s`; environment `HPCSTORAGE_REQUEST_TIMEOUT`.", maxRequestTimeout, defaultRequestTimeout),
				Validators: []validator.String{durationValidator{}},
			},
			"max_retries": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Attempts of an idempotent request (GET, DELETE, PATCH with If-Match) on "+
					"429, 5xx or a dropped connection, with exponential backoff and jitter, waiting as long as a `Retry-After` "+
					"header asks. A POST is never re-sent blindly: the object is looked up by name first. Default %d; "+
					"environment `HPCSTORAGE_MAX_RETRIES`.", defaultMaxRetries),
				Validators: []validator.Int64{int64validator.Between(1, 20)},
			},
		},
	}
}

func (p *hpcstorageProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Unknown values (an endpoint URL from another resource) can't be used
	// yet; Terraform configures the provider again once they are known.
	timeout := durationOrEnv(cfg.RequestTimeout, "REQUEST_TIMEOUT", defaultRequestTimeout, maxRequestTimeout, path.Root("request_timeout"), &resp.Diagnostics)
	retries := int64OrEnv(cfg.MaxRetries, "MAX_RETRIES", defaultMaxRetries, path.Root("max_retries"), &resp.Diagnostics)

	names := make([]string, 0, len(cfg.Endpoints))
	for n := range cfg.Endpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	var cfgs []redfish.Config
	endpoints := map[string]redfish.Config{}
	eseries := map[string]*santricity.Client{}
	deferred := map[string]bool{}
	for _, name := range names {
		if m := cfg.Endpoints[name]; m.URL.IsUnknown() || m.Username.IsUnknown() || m.Password.IsUnknown() || m.CACertificate.IsUnknown() || m.API.IsUnknown() {
			// Settings that come from resources not applied yet: the plan
			// skips this endpoint's checks; apply configures it for real.
			deferred[name] = true
			continue
		}
		c := p.endpointConfig(ctx, name, cfg.Endpoints[name], &resp.Diagnostics)
		c.Timeout = timeout
		c.Retry.MaxAttempts = int(retries)
		if p.endpointAPI(name, cfg.Endpoints[name], &resp.Diagnostics) == arrays.APISantricity {
			if sc := santricityClient(c, name, &resp.Diagnostics); sc != nil {
				eseries[name] = sc
			}
			continue
		}
		cfgs = append(cfgs, c)
		endpoints[name] = c
	}
	if resp.Diagnostics.HasError() {
		return
	}
	pool, err := redfish.NewPool(cfgs)
	if err != nil {
		addError(&resp.Diagnostics, path.Root("endpoints"), "Invalid Endpoint Configuration",
			"Fix the endpoints block of the provider.", err)
		return
	}
	registerPool(pool)
	registerESeries(eseries)
	data := &providerData{Redfish: pool, ESeries: eseries, Deferred: deferred, DriveClaims: &driveClaims{}, PlannedGroups: &plannedGroups{}, Endpoints: endpoints, Now: time.Now, Sleep: p.hooks.sleep, PollInterval: p.hooks.pollInterval}
	if data.Sleep == nil {
		data.Sleep = sleep
	}
	if data.PollInterval == 0 {
		data.PollInterval = 5 * time.Second
	}
	data.Nodes = p.configureNodes(ctx, cfg.SSH, &resp.Diagnostics)
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.ActionData = data
	resp.ListResourceData = data
	tflog.Debug(ctx, "hpcstorage provider configured", map[string]any{"endpoints": names})
}

var nonAlnum = regexp.MustCompile(`[^A-Z0-9]+`)

// envName is the per-endpoint environment variable of attr.
func envName(endpoint, attr string) string {
	return envPrefix + nonAlnum.ReplaceAllString(strings.ToUpper(endpoint), "_") + "_" + attr
}

// lookupEnv returns the endpoint's variable, else the provider-wide one.
func (p *hpcstorageProvider) lookupEnv(endpoint, attr string) (string, bool) {
	get := os.LookupEnv
	if p.hooks.env != nil {
		get = p.hooks.env
	}
	if v, ok := get(envName(endpoint, attr)); ok && v != "" {
		return v, true
	}
	if v, ok := get(envPrefix + attr); ok && v != "" {
		return v, true
	}
	return "", false
}

func (p *hpcstorageProvider) endpointConfig(ctx context.Context, name string, m endpointModel, diags *diag.Diagnostics) redfish.Config {
	at := func(attr string) path.Path { return path.Root("endpoints").AtMapKey(name).AtName(attr) }
	str := func(v types.String, attr string) string {
		if !v.IsNull() && !v.IsUnknown() {
			return v.ValueString()
		}
		s, _ := p.lookupEnv(name, strings.ToUpper(attr))
		return s
	}
	c := redfish.Config{
		Name:     name,
		URL:      str(m.URL, "url"),
		Username: str(m.Username, "username"),
		Password: str(m.Password, "password"),
		Sleep:    p.hooks.sleep,
		// Only redacted lines reach this sink (see redfish.RedactBody).
		Log: traceSink(ctx),
	}
	if c.URL == "" {
		diags.AddAttributeError(at("url"), "Missing Endpoint URL",
			fmt.Sprintf("Endpoint %q has no url: set it, or set %s.", name, envName(name, "URL")))
	}
	if ca := str(m.CACertificate, "ca_certificate"); ca != "" {
		if !strings.Contains(ca, "-----BEGIN") {
			b, err := os.ReadFile(ca)
			if err != nil {
				addError(diags, at("ca_certificate"), "Unreadable CA Certificate",
					"ca_certificate (or its environment fallback) must be PEM text or the path of a PEM file.", err)
			}
			ca = string(b)
		}
		c.CACertPEM = []byte(ca)
	}
	switch {
	case !m.Insecure.IsNull() && !m.Insecure.IsUnknown():
		c.Insecure = m.Insecure.ValueBool()
	default:
		if v, ok := p.lookupEnv(name, "INSECURE"); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				addError(diags, at("insecure"), "Invalid Insecure Flag", "Set HPCSTORAGE_*INSECURE to true or false.", err)
			}
			c.Insecure = b
		}
	}
	c.MaxConcurrent = defaultMaxConcurrent
	if !m.MaxConcurrentRequests.IsNull() && !m.MaxConcurrentRequests.IsUnknown() {
		c.MaxConcurrent = int(m.MaxConcurrentRequests.ValueInt64())
	} else if v, ok := p.lookupEnv(name, "MAX_CONCURRENT_REQUESTS"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			addError(diags, at("max_concurrent_requests"), "Invalid Concurrency Limit",
				"Set HPCSTORAGE_*MAX_CONCURRENT_REQUESTS to a positive integer.", fmt.Errorf("%q: %v", v, err))
		}
		c.MaxConcurrent = n
	}
	return c
}

// durationOrEnv is the attribute's duration, else the environment's, else
// def; at most max.
func durationOrEnv(v types.String, env string, def, max time.Duration, at path.Path, diags *diag.Diagnostics) time.Duration {
	s, from := v.ValueString(), "Attribute "+at.String()
	if v.IsNull() || v.IsUnknown() {
		s, from = os.Getenv(envPrefix+env), envPrefix+env
	}
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > max {
		addError(diags, at, "Invalid Duration", fmt.Sprintf("%s: %q: want a positive Go duration such as 30s or 2m, at most %s.", from, s, max), nil)
		return def
	}
	return d
}

func int64OrEnv(v types.Int64, env string, def int64, at path.Path, diags *diag.Diagnostics) int64 {
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueInt64()
	}
	if s, ok := os.LookupEnv(envPrefix + env); ok && s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			addError(diags, at, "Invalid Environment Variable", fmt.Sprintf("Set %s%s to a positive integer.", envPrefix, env),
				fmt.Errorf("%q: %v", s, err))
			return def
		}
		return n
	}
	return def
}

// Actions are the day-2 operations (Terraform 1.14 and later).
func (p *hpcstorageProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		NewRollingRebootAction,
		NewFirmwareUpdateAction,
		NewFailoverDrillAction,
	}
}

func (p *hpcstorageProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		identified(NewNodeConfigResource),
		identified(NewServerResource),
		identified(NewDiskGroupResource),
		identified(NewSpareDrivesResource),
		identified(NewVolumeResource),
		identified(NewBeegfsTargetResource),
		identified(NewBeegfsManagementResource),
		identified(NewBeegfsMonitorResource),
		identified(NewBeegfsMetadataResource),
		identified(NewBeegfsStorageResource),
		identified(NewBeegfsClientResource),
		identified(NewBeegfsStripePatternResource),
		identified(NewBeegfsMirrorGroupResource),
		identified(NewBeegfsHAServicesResource),
		identified(NewBenchmarkResource),
		identified(NewMultipathResource),
		identified(NewHALVMResource),
		identified(NewNFSServerResource),
		identified(NewGpfsClusterResource),
		identified(NewGpfsNSDsResource),
		identified(NewGpfsFilesystemResource),
		identified(NewGpfsGatewaysResource),
		identified(NewHAClusterResource),
		identified(NewCephClusterResource),
		identified(NewCephOSDSpecResource),
		identified(NewCephPoolResource),
		identified(NewRbdImagesResource),
		identified(NewRbdClientResource),
	}
}

// ListResources say what devices hold, for `terraform query` (Terraform
// 1.14 and later).
func (p *hpcstorageProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		NewServerList,
		NewDiskGroupList,
		NewVolumeList,
		NewSpareDrivesList,
		NewBeegfsClientList,
		NewBeegfsHAServicesList,
		NewBeegfsManagementList,
		NewBeegfsMetadataList,
		NewBeegfsStorageList,
		NewBeegfsTargetList,
		NewMultipathList,
		NewHALVMList,
		NewNFSServerList,
	}
}

func (p *hpcstorageProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewArrayLayoutDataSource,
		NewDrivesDataSource,
		NewFirmwareInventoryDataSource,
		NewServerDataSource,
		NewTuningProfileDataSource,
		NewNodeFactsDataSource,
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
