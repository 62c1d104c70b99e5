package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/benchmark"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/benchmark/report"
)

var (
	_ resource.Resource                   = &benchmarkResource{}
	_ resource.ResourceWithConfigure      = &benchmarkResource{}
	_ resource.ResourceWithModifyPlan     = &benchmarkResource{}
	_ resource.ResourceWithValidateConfig = &benchmarkResource{}
)

// NewBenchmarkResource is the hpcstorage_benchmark resource.
func NewBenchmarkResource() resource.Resource { return &benchmarkResource{} }

// benchmarkResource runs a validation benchmark once per create (or
// trigger change) through the agent on the clients.
type benchmarkResource struct {
	nodes *nodeAccess
}

// benchmarkLocks holds one mutex per client: runs in this provider
// process that share a client take turns (Terraform creates independent
// resources in parallel).
var benchmarkLocks sync.Map // client as configured -> *sync.Mutex

// lockBenchmarkClients takes the clients' locks in sorted order (so two
// runs cannot deadlock) and returns what releases them.
func lockBenchmarkClients(clients []string) func() {
	sorted := slices.Sorted(slices.Values(clients))
	held := make([]*sync.Mutex, 0, len(sorted))
	for _, c := range slices.Compact(sorted) {
		v, _ := benchmarkLocks.LoadOrStore(c, &sync.Mutex{})
		mu := v.(*sync.Mutex)
		mu.Lock()
		held = append(held, mu)
	}
	return func() {
		for _, mu := range slices.Backward(held) {
			mu.Unlock()
		}
	}
}

// benchmarkOwner is the agent owner of the benchmark commands. They are
// read-only command items: the agent records nothing for them.
const benchmarkOwner = "hpcstorage-benchmark"

// defaultBenchmarkTimeout bounds one agent call (one step on one
// client); the papers' 8 TB runs take hours.
const defaultBenchmarkTimeout = 6 * time.Hour

type benchmarkModel struct {
	ID                types.String `tfsdk:"id"`
	Preset            types.String `tfsdk:"preset"`
	Tool              types.String `tfsdk:"tool"`
	Clients           types.List   `tfsdk:"clients"`
	SSH               types.Object `tfsdk:"ssh"`
	Directory         types.String `tfsdk:"directory"`
	Devices           types.List   `tfsdk:"devices"`
	Phases            types.List   `tfsdk:"phases"`
	Threads           types.List   `tfsdk:"threads"`
	BlockSize         types.Int64  `tfsdk:"block_size_bytes"`
	FileSize          types.Int64  `tfsdk:"file_size_bytes"`
	IODepth           types.Int64  `tfsdk:"iodepth"`
	Direct            types.Bool   `tfsdk:"direct"`
	FilePerProcess    types.Bool   `tfsdk:"file_per_process"`
	Files             types.Int64  `tfsdk:"files"`
	FilesPerDirectory types.Int64  `tfsdk:"files_per_directory"`
	FileBytes         types.Int64  `tfsdk:"file_bytes"`
	Runtime           types.String `tfsdk:"runtime"`
	Repeat            types.Int64  `tfsdk:"repeat"`
	DropCaches        types.Bool   `tfsdk:"drop_caches"`
	Remount           types.Bool   `tfsdk:"remount"`
	CreateDirectory   types.Bool   `tfsdk:"create_directory"`
	ExtraArgs         types.List   `tfsdk:"extra_args"`
	Triggers          types.Map    `tfsdk:"triggers"`
	ReportPath        types.String `tfsdk:"report_path"`
	Timeout           types.String `tfsdk:"timeout"`

	Settings    types.Map    `tfsdk:"settings"`
	Expected    types.Map    `tfsdk:"expected"`
	Results     types.List   `tfsdk:"results"`
	Peaks       types.Map    `tfsdk:"peaks"`
	Ratios      types.Map    `tfsdk:"ratios"`
	Commands    types.List   `tfsdk:"commands"`
	ReportTable types.String `tfsdk:"report_table"`
	RanAt       types.String `tfsdk:"ran_at"`
}

// absDirRE accepts absolute paths without NUL or newline.
var absDirRE = regexp.MustCompile(`^/[^\x00\n]*$`)

// benchmarkResultType is one point of the sweep in state.
var benchmarkResultType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"phase": types.StringType, "threads": types.Int64Type, "bandwidth_bytes_per_second": types.Float64Type,
	"iops": types.Float64Type, "ops_per_second": types.Float64Type, "mean_latency_us": types.Float64Type,
	"p9999_latency_us": types.Float64Type,
}}

func (r *benchmarkResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_benchmark"
}

func (r *benchmarkResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replaceS := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceI := []planmodifier.Int64{int64planmodifier.RequiresReplace()}
	replaceB := []planmodifier.Bool{boolplanmodifier.RequiresReplace()}
	replaceL := []planmodifier.List{listplanmodifier.RequiresReplace()}
	var presetDocs []string
	for _, p := range benchmark.Presets() {
		doc := fmt.Sprintf("`%s` (%s, %s): %s Paper: `%s`.", p.Name, p.Design, p.Params.Tool, p.Description, p.Paper)
		if len(p.Notes) > 0 {
			doc += " " + strings.Join(p.Notes, " ")
		}
		presetDocs = append(presetDocs, doc)
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A validation run of a reference design: the paper's benchmark (fio, IOR, mdtest, IOzone or " +
			"elbencho) with the paper's parameters, on the clients, through the agent, swept over the paper's thread " +
			"counts; the results, each phase's peak and its ratio to the paper's figure land in state, and a report " +
			"(SVG chart of each phase against threads beside the paper's figure, and a Markdown table) is written to " +
			"`report_path`.\n\n" +
			"It runs once when created, and again only when an input or `triggers` changes (a replacement); never " +
			"while planning. Plan checks the parameters (a block size of 0, more threads than the clients' CPUs × 4, " +
			"an unknown preset are refused) and reads the clients' facts; apply first checks on every client that " +
			"`directory` exists and lies on a mounted file system other than `/`, and runs nothing when one does not. " +
			"fio runs one process per client (its jobs shared out); IOR and mdtest start from the first client with " +
			"`mpirun --allow-run-as-root` (the agent runs as root); IOzone uses its cluster mode (`-+m`) and elbencho " +
			"`--hosts` from the first client. Files are named `hpcstorage-bench*` and removed by the last phase of " +
			"each point. While it runs, each client's agent lock is held, so other resources on those clients wait, and " +
			"benchmarks that share a client run one after the other (at once, they would measure each other).\n\n" +
			"In the lab (`make demo`, the acceptance tests), **fio runs for real**: the lab's fio runs the real fio " +
			"against files inside the client's node folder (small sizes, seconds). IOR, mdtest, IOzone and elbencho " +
			"are not packaged by Debian: the lab prints their exact output formats with figures scaled from a real " +
			"fio run, and their parsers are tested on published output.\n\nPresets:\n\n- " + strings.Join(presetDocs, "\n- "),
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Identifies this run (its start time).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"preset": schema.StringAttribute{Optional: true, PlanModifiers: replaceS,
				MarkdownDescription: "A design's validation run (below): the paper's tool, phases, thread counts, sizes " +
					"and figures. Every other argument overrides the preset's value. One of: " + backtickList(benchmark.PresetNames()) + "."},
			"tool": schema.StringAttribute{Optional: true, PlanModifiers: replaceS,
				Validators: []validator.String{stringvalidator.OneOf(benchmark.ToolNames()...)},
				MarkdownDescription: "Benchmark program: " + backtickList(benchmark.ToolNames()) + ". Default: the preset's. " +
					"Another tool than the preset's keeps the preset's phases and figures (fio instead of IOzone, say)."},
			"clients": schema.ListAttribute{Required: true, ElementType: types.StringType, PlanModifiers: replaceL,
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
				MarkdownDescription: "Client nodes that run the benchmark (name or address, optionally `name:port`), reached " +
					"over SSH with the provider's `ssh` settings; the first one launches MPI, IOzone and elbencho runs."},
			"ssh": sshResourceAttribute(),
			"directory": schema.StringAttribute{Optional: true, PlanModifiers: replaceS,
				Validators: []validator.String{stringvalidator.RegexMatches(absDirRE, "must be an absolute path"),
					stringvalidator.ExactlyOneOf(path.MatchRoot("devices"))},
				MarkdownDescription: "Target directory on the clients: a directory on a BeeGFS, NFS or GPFS mount (with " +
					"the stripe pattern the paper used, e.g. an `hpcstorage_beegfs_stripe_pattern` directory). It must " +
					"exist (or `create_directory` makes it) and be on a mounted file system other than `/` on every client, " +
					"or nothing runs. Exactly one " +
					"of this and `devices`."},
			"devices": schema.ListAttribute{Optional: true, ElementType: types.StringType, PlanModifiers: replaceL,
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(stringvalidator.RegexMatches(regexp.MustCompile(`^/dev/[^\s]+$`), "must be a /dev path"))},
				MarkdownDescription: "Raw block devices on every client, benchmarked one after the other with fio (R4's " +
					"per-drive baseline before Ceph is installed: presets `r4-raw-drive` and `r4-raw-drive-seq`); a point is " +
					"the mean per device. **Write phases destroy what the devices hold**, so a device that is mounted or " +
					"carries any signature (file system, LVM, RAID member, partition table, as the agent's facts show) is " +
					"refused, at plan and again before anything runs. Exactly one of this and `directory`."},
			"phases": schema.ListAttribute{Optional: true, ElementType: types.StringType, PlanModifiers: replaceL,
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.OneOf(benchmark.Phases()...))},
				MarkdownDescription: "Phases to run, in run order whatever the order given: " + backtickList(benchmark.Phases()) +
					" (`write`..`randread` for the data tools, `create`..`remove` for mdtest). Default: the preset's."},
			"threads": schema.ListAttribute{Optional: true, ElementType: types.Int64Type, PlanModifiers: replaceL,
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueInt64sAre(int64validator.AtLeast(1))},
				MarkdownDescription: "Total thread (process, job) counts to sweep, shared out over the clients; every point " +
					"is kept. Default: the preset's (R1: 1 to 64 doubling). At most the clients' CPUs × 4."},
			"block_size_bytes": schema.Int64Attribute{Optional: true, PlanModifiers: replaceI,
				MarkdownDescription: "Bytes of one I/O (fio `--bs`, IOR `-t`, IOzone `-r`, elbencho `-b`), above 0: 1048576 " +
					"for the papers' sequential runs, 4096 for their random ones. Default: the preset's."},
			"file_size_bytes": schema.Int64Attribute{Optional: true, PlanModifiers: replaceI,
				MarkdownDescription: "Bytes per thread (fio `--size`, IOR `-b`, IOzone `-s`, elbencho `-s`). Replaces the " +
					"preset's rule (R1: 8 TB over all threads from 16 threads on), so keep it well above the clients' and " +
					"servers' memory."},
			"iodepth": schema.Int64Attribute{Optional: true, PlanModifiers: replaceI, Validators: []validator.Int64{int64validator.Between(1, 4096)},
				MarkdownDescription: "I/Os in flight per job (fio and elbencho; fio uses libaio above 1). Default: the preset's, else 1."},
			"direct": schema.BoolAttribute{Optional: true, PlanModifiers: replaceB,
				MarkdownDescription: "Direct I/O (O_DIRECT), bypassing the client page cache. Default: the preset's."},
			"file_per_process": schema.BoolAttribute{Optional: true, PlanModifiers: replaceB,
				MarkdownDescription: "IOR only: one file per process (N-N, `-F`) instead of one shared file (N-1). Default: the preset's."},
			"files": schema.Int64Attribute{Optional: true, PlanModifiers: replaceI, Validators: []validator.Int64{int64validator.AtLeast(1)},
				MarkdownDescription: "mdtest: files over all processes (R2: 960 000; R5: 2^21)."},
			"files_per_directory": schema.Int64Attribute{Optional: true, PlanModifiers: replaceI, Validators: []validator.Int64{int64validator.AtLeast(1)},
				MarkdownDescription: "mdtest `-I`: files per leaf directory (R2: 3 000; R5: 1 024)."},
			"file_bytes": schema.Int64Attribute{Optional: true, PlanModifiers: replaceI, Validators: []validator.Int64{int64validator.AtLeast(0)},
				MarkdownDescription: "mdtest `-w`/`-e`: bytes written and read per file (0: empty files; R5: 4096)."},
			"runtime": schema.StringAttribute{Optional: true, PlanModifiers: replaceS, Validators: []validator.String{durationValidator{}},
				MarkdownDescription: "Caps each fio phase (`--runtime`, whole seconds), a Go duration such as `60s`."},
			"repeat": schema.Int64Attribute{Optional: true, PlanModifiers: replaceI, Validators: []validator.Int64{int64validator.Between(1, 100)},
				MarkdownDescription: "Runs per point, averaged (IOR and mdtest: their `-i`). Default: the preset's (R4: 3), else 1."},
			"drop_caches": schema.BoolAttribute{Optional: true, PlanModifiers: replaceB,
				MarkdownDescription: "Sync and drop the clients' page cache (`sync && echo 3 > /proc/sys/vm/drop_caches`) before " +
					"every phase, as the R1 paper does. Default: the preset's."},
			"remount": schema.BoolAttribute{Optional: true, PlanModifiers: replaceB,
				MarkdownDescription: "Remount the clients' file system before every phase, as the R1 paper does between runs " +
					"(with `drop_caches`, after the remount): for a BeeGFS mount, a stop and start of `beegfs-client`, which unmounts " +
					"and mounts again what `beegfs-mounts.conf` lists; the mount must be back before the phase runs. Other " +
					"file systems are refused. Default: the preset's (R1: true)."},
			"create_directory": schema.BoolAttribute{Optional: true, PlanModifiers: replaceB,
				MarkdownDescription: "Create `directory` (`mkdir -p`) on every client, once the mount is checked, before the " +
					"first phase; a directory that exists is kept as it is (with its stripe pattern). Default false: a missing " +
					"directory fails the run."},
			"extra_args": schema.ListAttribute{Optional: true, ElementType: types.StringType, PlanModifiers: replaceL,
				MarkdownDescription: "Arguments appended to every invocation of the tool; replace the preset's (R5 mdtest: `-v -y -t`)."},
			"triggers": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				PlanModifiers:       []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				MarkdownDescription: "Arbitrary values; changing any of them runs the benchmark again (e.g. the id of a tuning change)."},
			"report_path": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Where to write the SVG chart, on the machine running Terraform (a `.svg` path); the " +
					"Markdown table goes beside it with `.md`. Changing it rewrites the report from state without running again; " +
					"destroy removes both files."},
			"timeout": schema.StringAttribute{Optional: true, Validators: []validator.String{durationValidator{}},
				MarkdownDescription: fmt.Sprintf("Longest one step may run on a client, a Go duration. Default `%s`.", defaultBenchmarkTimeout)},

			"settings": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The parameters the run uses (preset and overrides merged), known at plan time."},
			"expected": schema.MapAttribute{Computed: true, ElementType: types.Float64Type,
				MarkdownDescription: "The paper's figure per phase, in base units (bytes/s, IOPS, op/s); phases without one are absent."},
			"results": schema.ListAttribute{Computed: true, ElementType: benchmarkResultType,
				MarkdownDescription: "Every point of the sweep: phase, threads, bandwidth (bytes/s), IOPS, metadata op/s, " +
					"mean and p99.99 latency (µs, fio only; 0 when the tool does not report it)."},
			"peaks": schema.MapAttribute{Computed: true, ElementType: types.Float64Type,
				MarkdownDescription: "Best value per phase over the sweep, in the phase's metric (bytes/s, IOPS or op/s)."},
			"ratios": schema.MapAttribute{Computed: true, ElementType: types.Float64Type,
				MarkdownDescription: "Peak divided by the paper's figure, per phase that has one (1.0: where the paper is)."},
			"commands": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The commands run, shell-quoted, with the client that ran each."},
			"report_table": schema.StringAttribute{Computed: true, MarkdownDescription: "The report's Markdown table."},
			"ran_at":       schema.StringAttribute{Computed: true, MarkdownDescription: "When the run started (RFC 3339, UTC)."},
		},
	}
}

func (r *benchmarkResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d := configureData(req.ProviderData, &resp.Diagnostics); d != nil {
		r.nodes = d.Nodes
	}
}

func (r *benchmarkResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m benchmarkModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Checks and run under the clients' locks: another run would change
	// the figures (and its remount would pull the mount from this one).
	defer lockBenchmarkClients(listStrings(m.Clients))()
	run, ok := r.prepare(ctx, &m, true, &resp.Diagnostics)
	if !ok {
		return
	}
	start := time.Now().UTC()
	points, commands, ok := run.execute(ctx, &resp.Diagnostics)
	if !ok {
		return
	}
	m.ID = types.StringValue(fmt.Sprintf("benchmark-%d", start.UnixNano()))
	m.RanAt = types.StringValue(start.Format(time.RFC3339))
	m.setResults(points, run.expected, run.title, commands, &resp.Diagnostics)
	if !m.writeReport(points, run.expected, run.title, &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read keeps the recorded run: results do not drift.
func (r *benchmarkResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m benchmarkModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Update only sees report_path or timeout changes (everything else
// replaces): it rewrites the report from the recorded results.
func (r *benchmarkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state benchmarkModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, c := range []struct {
		dst *types.List
		src types.List
	}{{&plan.Results, state.Results}, {&plan.Commands, state.Commands}} {
		*c.dst = c.src
	}
	plan.ID, plan.RanAt, plan.Peaks, plan.Ratios, plan.ReportTable = state.ID, state.RanAt, state.Peaks, state.Ratios, state.ReportTable
	points := pointsFrom(state.Results)
	title := benchmarkTitle(plan.Settings)
	if !plan.writeReport(points, figuresFrom(plan.Expected), title, &resp.Diagnostics) {
		return
	}
	if !state.ReportPath.IsNull() && state.ReportPath.ValueString() != plan.ReportPath.ValueString() {
		removeReport(state.ReportPath.ValueString(), &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete removes the report files; the run left nothing on the clients.
func (r *benchmarkResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m benchmarkModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if !m.ReportPath.IsNull() {
		removeReport(m.ReportPath.ValueString(), &resp.Diagnostics)
	}
}

// ModifyPlan fills the merged settings and the paper's figures, and for a
// planned run checks the thread counts against the clients' CPUs and
// warns when the directory is not mounted yet.
func (r *benchmarkResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m benchmarkModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || !m.inputsKnown() {
		return
	}
	p, exp, ok := m.resolve(&resp.Diagnostics)
	if !ok {
		return
	}
	m.Settings, m.Expected = settingsOf(p, m.Preset.ValueString()), expectedMap(exp, p.Phases)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
	if !req.State.Raw.IsNull() {
		var st benchmarkModel
		resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
		if resp.Diagnostics.HasError() || !m.runChanged(&st) {
			return // no run planned
		}
	}
	if r.nodes == nil || r.nodes.deferred || m.Clients.IsUnknown() {
		return
	}
	r.prepare(ctx, &m, false, &resp.Diagnostics)
}

func (r *benchmarkResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m benchmarkModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || !m.inputsKnown() {
		return
	}
	m.resolve(&resp.Diagnostics)
}

// runChanged reports whether an input that replaces the resource (runs
// the benchmark again) differs from the state's.
func (m *benchmarkModel) runChanged(st *benchmarkModel) bool {
	a := []attr.Value{m.Preset, m.Tool, m.Clients, m.Directory, m.Devices, m.Phases, m.Threads, m.BlockSize, m.FileSize,
		m.IODepth, m.Direct, m.FilePerProcess, m.Files, m.FilesPerDirectory, m.FileBytes, m.Runtime, m.Repeat,
		m.DropCaches, m.Remount, m.CreateDirectory, m.ExtraArgs, m.Triggers}
	b := []attr.Value{st.Preset, st.Tool, st.Clients, st.Directory, st.Devices, st.Phases, st.Threads, st.BlockSize, st.FileSize,
		st.IODepth, st.Direct, st.FilePerProcess, st.Files, st.FilesPerDirectory, st.FileBytes, st.Runtime, st.Repeat,
		st.DropCaches, st.Remount, st.CreateDirectory, st.ExtraArgs, st.Triggers}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return true
		}
	}
	return false
}

// inputsKnown is false while an input is unknown (plan of a configuration
// that feeds it from another resource).
func (m *benchmarkModel) inputsKnown() bool {
	for _, v := range []attr.Value{m.Preset, m.Tool, m.Directory, m.Devices, m.Phases, m.Threads, m.BlockSize, m.FileSize, m.IODepth,
		m.Direct, m.FilePerProcess, m.Files, m.FilesPerDirectory, m.FileBytes, m.Runtime, m.Repeat, m.DropCaches, m.Remount, m.CreateDirectory, m.ExtraArgs} {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// resolve merges the preset and the overrides into the run's parameters
// and validates them (without the clients' CPUs, unknown here).
func (m *benchmarkModel) resolve(diags *diag.Diagnostics) (benchmark.Params, map[string]benchmark.Figure, bool) {
	var p benchmark.Params
	var exp map[string]benchmark.Figure
	if name := m.Preset.ValueString(); !m.Preset.IsNull() {
		pr, near, ok := benchmark.Lookup(name)
		if !ok {
			addError(diags, path.Root("preset"), "Unknown Benchmark Preset", fmt.Sprintf("%q is not a preset; did you mean %q? "+
				"Presets: %s.", name, near, strings.Join(benchmark.PresetNames(), ", ")), nil)
			return p, nil, false
		}
		p, exp = pr.Params, pr.Expected
	} else {
		if m.Tool.IsNull() {
			addError(diags, path.Root("tool"), "Missing Benchmark Tool", "Set tool, or a preset that names one.", nil)
			return p, nil, false
		}
		p = benchmark.Params{Threads: []int{1}, BlockSize: 1 << 20, FileSize: 1 << 30, IODepth: 1, Repeat: 1,
			Files: 1000, FilesPerDir: 100}
	}
	if !m.Tool.IsNull() && benchmark.Tool(m.Tool.ValueString()) != p.Tool {
		p.Tool = benchmark.Tool(m.Tool.ValueString())
		if m.Phases.IsNull() {
			// Keep the preset's phases the new tool can run.
			var keep []string
			for _, ph := range p.Phases {
				if slices.Contains(benchmark.PhasesOf(p.Tool), ph) {
					keep = append(keep, ph)
				}
			}
			if keep == nil {
				keep = benchmark.PhasesOf(p.Tool)
			}
			p.Phases = keep
		}
		if p.Tool == benchmark.Fio || p.Tool == benchmark.Elbencho {
			p.ExtraArgs = nil // the preset's were for its own tool
		}
	}
	if len(p.Phases) == 0 {
		p.Phases = benchmark.PhasesOf(p.Tool)
	}
	if !m.Phases.IsNull() {
		p.Phases = listStrings(m.Phases)
	}
	if !m.Threads.IsNull() {
		p.Threads = nil
		for _, e := range m.Threads.Elements() {
			p.Threads = append(p.Threads, int(e.(types.Int64).ValueInt64()))
		}
	}
	if !m.BlockSize.IsNull() {
		p.BlockSize = m.BlockSize.ValueInt64()
	}
	if !m.FileSize.IsNull() {
		p.FileSize, p.Aggregate = m.FileSize.ValueInt64(), 0
	}
	if !m.FileBytes.IsNull() {
		p.FileBytes = m.FileBytes.ValueInt64()
	}
	if !m.IODepth.IsNull() {
		p.IODepth = int(m.IODepth.ValueInt64())
	}
	if !m.Direct.IsNull() {
		p.Direct = m.Direct.ValueBool()
	}
	if !m.FilePerProcess.IsNull() {
		p.FilePerProcess = m.FilePerProcess.ValueBool()
	}
	if !m.Files.IsNull() {
		p.Files = int(m.Files.ValueInt64())
	}
	if !m.FilesPerDirectory.IsNull() {
		p.FilesPerDir = int(m.FilesPerDirectory.ValueInt64())
	}
	if !m.Runtime.IsNull() {
		d, err := time.ParseDuration(m.Runtime.ValueString())
		if err != nil || d <= 0 {
			addError(diags, path.Root("runtime"), "Invalid Duration", "Use a Go duration such as 60s.", err)
			return p, nil, false
		}
		p.RuntimeSeconds = int((d + time.Second - 1) / time.Second)
	}
	if !m.Repeat.IsNull() {
		p.Repeat = int(m.Repeat.ValueInt64())
	}
	if !m.DropCaches.IsNull() {
		p.DropCaches = m.DropCaches.ValueBool()
	}
	if !m.Remount.IsNull() {
		p.Remount = m.Remount.ValueBool()
	}
	if !m.ExtraArgs.IsNull() {
		p.ExtraArgs = listStrings(m.ExtraArgs)
	}
	if !m.Devices.IsNull() {
		p.Devices = listStrings(m.Devices)
	}
	if err := p.Validate(0); err != nil {
		addLocated(diags, path.Empty(), "Invalid Benchmark Parameter", "Fix the value in the configuration.", err)
		return p, nil, false
	}
	return p, exp, true
}

func listStrings(l types.List) []string {
	var out []string
	for _, e := range l.Elements() {
		out = append(out, e.(types.String).ValueString())
	}
	return out
}

// settingsOf is the merged parameters as strings, for the plan.
func settingsOf(p benchmark.Params, preset string) types.Map {
	threads := make([]string, len(p.Threads))
	for i, t := range p.Threads {
		threads[i] = strconv.Itoa(t)
	}
	s := map[string]string{
		"tool": string(p.Tool), "phases": strings.Join(benchmark.SortPhases(p.Phases), ","), "threads": strings.Join(threads, ","),
		"iodepth": strconv.Itoa(p.IODepth), "direct": strconv.FormatBool(p.Direct), "repeat": strconv.Itoa(p.Repeat),
		"drop_caches": strconv.FormatBool(p.DropCaches), "remount": strconv.FormatBool(p.Remount), "extra_args": strings.Join(p.ExtraArgs, " "),
	}
	if preset != "" {
		s["preset"] = preset
	}
	if len(p.Devices) > 0 {
		s["devices"] = strings.Join(p.Devices, ",")
	}
	if p.Tool == benchmark.Mdtest {
		s["files"], s["files_per_directory"] = strconv.Itoa(p.Files), strconv.Itoa(p.FilesPerDir)
		s["file_bytes"] = strconv.FormatInt(p.FileBytes, 10)
	} else {
		s["block_size_bytes"] = strconv.FormatInt(p.BlockSize, 10)
		if p.Aggregate > 0 {
			s["aggregate_bytes"] = strconv.FormatInt(p.Aggregate, 10)
			s["aggregate_from_threads"] = strconv.Itoa(p.AggregateFrom)
		}
		if p.FileSize > 0 {
			s["file_size_bytes"] = strconv.FormatInt(p.FileSize, 10)
		}
		if p.RuntimeSeconds > 0 {
			s["runtime"] = fmt.Sprintf("%ds", p.RuntimeSeconds)
		}
	}
	if p.Tool == benchmark.IOR {
		s["file_per_process"] = strconv.FormatBool(p.FilePerProcess)
	}
	elems := map[string]attr.Value{}
	for k, v := range s {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func expectedMap(exp map[string]benchmark.Figure, phases []string) types.Map {
	elems := map[string]attr.Value{}
	for ph, f := range exp {
		if slices.Contains(phases, ph) && f.Value > 0 {
			elems[ph] = types.Float64Value(f.Value)
		}
	}
	return types.MapValueMust(types.Float64Type, elems)
}

func figuresFrom(m types.Map) map[string]benchmark.Figure {
	out := map[string]benchmark.Figure{}
	for k, v := range m.Elements() {
		if f, ok := v.(types.Float64); ok {
			out[k] = benchmark.Figure{Value: f.ValueFloat64()}
		}
	}
	return out
}

func benchmarkTitle(settings types.Map) string {
	get := func(k string) string {
		if v, ok := settings.Elements()[k].(types.String); ok {
			return v.ValueString()
		}
		return ""
	}
	if p := get("preset"); p != "" {
		return fmt.Sprintf("%s (%s)", p, get("tool"))
	}
	return get("tool")
}

// benchmarkRun is a run ready to start: parameters, clients and what the
// agent told about them.
type benchmarkRun struct {
	params   benchmark.Params
	expected map[string]benchmark.Figure
	title    string
	dir      string
	clients  []string
	runs     []nodeRun // one per client, through the shared node runner
	hosts    []string  // host names as the clients know each other
	// mounts holds each client's mount of dir (checked at apply), for
	// remounting between phases.
	mounts []protocol.MountEntry
	mkdir  bool
	// diags collects the node runner's reports while the sweep runs.
	diags *diag.Diagnostics
}

// prepare resolves the parameters and reads every client's facts: the
// thread counts must fit the clients' CPUs × 4; at apply (strict) the
// directory must be on a mounted file system other than / on every
// client and exist there, checked before anything runs.
func (r *benchmarkResource) prepare(ctx context.Context, m *benchmarkModel, strict bool, diags *diag.Diagnostics) (*benchmarkRun, bool) {
	if r.nodes == nil {
		diags.AddError("Provider Not Configured", "The hpcstorage provider was not configured before use.")
		return nil, false
	}
	p, exp, ok := m.resolve(diags)
	if !ok {
		return nil, false
	}
	run := &benchmarkRun{params: p, expected: exp, dir: filepath.Clean(m.Directory.ValueString()),
		clients: listStrings(m.Clients), title: benchmarkTitle(settingsOf(p, m.Preset.ValueString())),
		mkdir: m.CreateDirectory.ValueBool()}
	if len(p.Devices) > 0 {
		run.dir = ""
	}
	timeout := defaultBenchmarkTimeout
	if !m.Timeout.IsNull() {
		if d, err := time.ParseDuration(m.Timeout.ValueString()); err == nil {
			timeout = d
		}
	}
	for _, c := range run.clients {
		run.runs = append(run.runs, nodeRun{nodes: r.nodes, host: c, ssh: m.SSH, owner: benchmarkOwner, timeout: timeout})
	}
	facts := run.facts(ctx, diags)
	cpus := 0
	for i := range run.clients {
		if facts[i] == nil {
			continue
		}
		cpus += facts[i].CPUs
		h := facts[i].Hostname
		if h == "" {
			h, _ = splitHostPort(run.clients[i], 0)
		}
		run.hosts = append(run.hosts, h)
	}
	if diags.HasError() {
		return nil, false
	}
	if err := p.Validate(cpus * 4); err != nil {
		addLocated(diags, path.Root("threads"), "Too Many Benchmark Threads", fmt.Sprintf("The %d clients have %d CPUs in "+
			"all (from their facts); lower the thread counts or add clients.", len(run.clients), cpus), err)
		return nil, false
	}
	if len(p.Devices) > 0 {
		// Raw devices: refused with data on them, at plan and apply.
		for i, f := range facts {
			for k, d := range p.Devices {
				if why := deviceInUse(f, d); why != "" {
					addError(diags, path.Root("devices").AtListIndex(k), "Device Not Blank", fmt.Sprintf("Client %s: %s %s. "+
						"A raw-drive benchmark writes over the whole device, so it only runs on blank, unmounted devices; "+
						"nothing was run. Wipe the device first if it really is free.", run.clients[i], d, why), nil)
				}
			}
		}
		return run, !diags.HasError()
	}
	run.mounts = make([]protocol.MountEntry, len(facts))
	for i, f := range facts {
		mnt := mountFor(f.Mounts, run.dir)
		if mnt != nil && mnt.Path != "/" {
			run.mounts[i] = *mnt
			if _, err := benchmark.Remount(mnt.FSType, mnt.Path); p.Remount && err != nil {
				addError(diags, path.Root("remount"), "Cannot Remount Between Phases", fmt.Sprintf("Client %s: nothing was "+
					"run. Set remount = false to drop caches only.", run.clients[i]), err)
			}
			continue
		}
		detail := fmt.Sprintf("Client %s: %s is not on a mounted file system (it lies on the root file system /).", run.clients[i], run.dir)
		if !strict {
			diags.AddAttributeWarning(path.Root("directory"), "Benchmark Directory Not Mounted Yet", detail+" The apply checks "+
				"again before running and fails if it still is not mounted (a mount made earlier in the same apply is fine).")
			continue
		}
		addError(diags, path.Root("directory"), "Benchmark Directory Not Mounted", detail+" Nothing was run. Mount the "+
			"file system first (hpcstorage_beegfs_client, or depends_on the resource that mounts it).", nil)
	}
	if diags.HasError() || !strict {
		return run, !diags.HasError()
	}
	// The directory must exist on every client before the first phase.
	check := []string{"sh", "-c", `[ -d "$1" ] || { echo "$1 is not a directory"; exit 1; }`, "sh", run.dir}
	if run.mkdir {
		check = []string{"mkdir", "-p", run.dir}
	}
	run.diags = diags
	all := make([][]string, len(run.runs))
	for i := range all {
		all[i] = check
	}
	for i, out := range run.Run(ctx, all) {
		if out.Err != nil && !errors.Is(out.Err, errReported) {
			addError(diags, path.Root("directory"), "Benchmark Directory Missing", fmt.Sprintf("Client %s: %v Nothing was run; "+
				"create the directory (hpcstorage_beegfs_stripe_pattern creates one with the paper's stripe pattern).",
				run.clients[i], out.Err), nil)
		}
	}
	return run, !diags.HasError()
}

// deviceInUse says why a device may hold data ("" when it is blank):
// missing, mounted (itself or a partition), or carrying a signature.
func deviceInUse(f *protocol.Facts, dev string) string {
	name := strings.TrimPrefix(dev, "/dev/")
	wwn, byWWN := strings.CutPrefix(dev, "/dev/disk/by-id/wwn-")
	var bd *protocol.BlockDevice
	for i := range f.BlockDevices {
		if f.BlockDevices[i].Name == name || byWWN && strings.EqualFold(f.BlockDevices[i].WWN, wwn) {
			bd = &f.BlockDevices[i]
		}
	}
	if bd == nil {
		return "is not a disk of this node (see its facts' block_devices)"
	}
	if bd.FSType != "" {
		return fmt.Sprintf("carries a %s signature", bd.FSType)
	}
	for _, m := range f.Mounts {
		for _, d := range []string{dev, "/dev/" + bd.Name} {
			if m.Device == d || strings.HasPrefix(m.Device, d) && len(m.Device) > len(d) {
				return "is mounted at " + m.Path
			}
		}
	}
	return ""
}

// mountFor is the mount holding p: the last mounted (so the one on top)
// of the longest mount point that contains it.
func mountFor(mounts []protocol.MountEntry, p string) *protocol.MountEntry {
	var best *protocol.MountEntry
	for i := range mounts {
		mp := mounts[i].Path
		if mp != "/" && p != mp && !strings.HasPrefix(p, strings.TrimSuffix(mp, "/")+"/") {
			continue
		}
		if best == nil || len(mp) >= len(best.Path) {
			best = &mounts[i]
		}
	}
	return best
}

// facts reads every client's facts at once (nil where it failed, which
// diags reports).
func (b *benchmarkRun) facts(ctx context.Context, diags *diag.Diagnostics) []*protocol.Facts {
	out := make([]*protocol.Facts, len(b.runs))
	ds := make([]diag.Diagnostics, len(b.runs))
	var wg sync.WaitGroup
	for i, run := range b.runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], _ = run.facts(ctx, &ds[i])
		}()
	}
	wg.Wait()
	for _, d := range ds {
		diags.Append(d...)
	}
	return out
}

// Run is benchmark.Clients: one read-only command per client (nil: none
// there), the clients at once; stderr is folded into stdout so a failing
// tool's message reaches the error. A client the agent could not run on
// is reported in diags and comes back as errReported.
func (b *benchmarkRun) Run(ctx context.Context, argv [][]string) []benchmark.Output {
	outs := make([]benchmark.Output, len(b.runs))
	ds := make([]diag.Diagnostics, len(b.runs))
	var wg sync.WaitGroup
	for i, run := range b.runs {
		if i >= len(argv) || argv[i] == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			wrapped := append([]string{"sh", "-c", `exec "$@" 2>&1`, "sh"}, argv[i]...)
			item := protocol.Item{Command: &protocol.Command{Name: "benchmark", Argv: wrapped, ReadOnly: true}}
			res, ok := run.execDiff(ctx, []protocol.Item{item}, false, false, &ds[i])
			switch {
			case !ok:
				outs[i].Err = errReported
			case len(res.Items) == 0:
				outs[i].Err = errors.New("the agent printed no result")
			default:
				outs[i].Out = res.Items[0].Output
				if res.Items[0].Error != "" {
					outs[i].Err = errors.New(res.Items[0].Error)
				}
			}
		}()
	}
	wg.Wait()
	for _, d := range ds {
		b.diags.Append(d...)
	}
	return outs
}

// Remount is benchmark.Clients: see remount.
func (b *benchmarkRun) Remount(ctx context.Context) error {
	if !b.remount(ctx, b.diags) {
		return errReported
	}
	return nil
}

// execute runs the sweep (benchmark.Run) on the clients and reports how
// a failed one ended.
func (b *benchmarkRun) execute(ctx context.Context, diags *diag.Diagnostics) ([]benchmark.Point, []string, bool) {
	b.diags = diags
	sweep, err := benchmark.Run(ctx, b.params, b.dir, b.clients, b.hosts, b)
	for _, e := range joined(err) {
		var ce *benchmark.ClientError
		switch {
		case errors.Is(e, errReported):
		case !errors.As(e, &ce):
			diags.AddError("Benchmark Failed", e.Error())
		case ce.Stage == benchmark.StageDropCaches:
			addError(diags, path.Root("drop_caches"), "Dropping Caches Failed", fmt.Sprintf("Client %s: %v", b.clients[ce.Client], ce.Err), nil)
		case ce.Stage == benchmark.StageParse:
			addError(diags, path.Empty(), "Benchmark Output Unreadable", fmt.Sprintf("Client %s, %s at %d threads.",
				b.clients[ce.Client], strings.Join(ce.Phases, "+"), ce.Threads), ce.Err)
		default:
			diags.AddError("Benchmark Failed", fmt.Sprintf("Client %s, %s at %d threads: %v\n%s", b.clients[ce.Client],
				strings.Join(ce.Phases, "+"), ce.Threads, ce.Err, tailLines(ce.Output, 10)))
		}
	}
	if err != nil || diags.HasError() {
		return nil, nil, false
	}
	return sweep.Points, sweep.Commands, true
}

// joined lists the errors of an errors.Join (err itself otherwise).
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// remount unmounts and mounts each client's file system, then reads the
// clients' facts to see the mount back before anything runs on it.
func (b *benchmarkRun) remount(ctx context.Context, diags *diag.Diagnostics) bool {
	for step := range 2 { // stop, then start
		argv := make([][]string, len(b.mounts))
		for i, m := range b.mounts {
			argv[i] = remountStep(m, step)
		}
		for i, o := range b.Run(ctx, argv) {
			if errors.Is(o.Err, errReported) {
				continue
			}
			if o.Err != nil {
				addError(diags, path.Root("remount"), "Remount Failed", fmt.Sprintf("Client %s, %s (%s): %v\n%s\nThe "+
					"run stops here; the file system may be left unmounted on that client.", b.clients[i], b.mounts[i].Path,
					strings.Join(remountStep(b.mounts[i], step), " "), o.Err, tailLines(o.Out, 10)), nil)
			}
		}
		if diags.HasError() {
			return false
		}
	}
	for i, f := range b.facts(ctx, diags) {
		if f == nil {
			continue
		}
		if mnt := mountFor(f.Mounts, b.dir); mnt == nil || mnt.Path != b.mounts[i].Path {
			addError(diags, path.Root("remount"), "Not Mounted After Remount", fmt.Sprintf("Client %s: %s is not mounted "+
				"again after the remount; the run stops here.", b.clients[i], b.mounts[i].Path), nil)
		}
	}
	return !diags.HasError()
}

// remountStep is the step-th remount command for a mount prepare
// accepted (so Remount cannot fail here).
func remountStep(m protocol.MountEntry, step int) []string {
	c, _ := benchmark.Remount(m.FSType, m.Path)
	return c[step]
}

func tailLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// setResults stores the points, peaks, ratios and table.
func (m *benchmarkModel) setResults(points []benchmark.Point, exp map[string]benchmark.Figure, title string, commands []string, diags *diag.Diagnostics) {
	var results []attr.Value
	for _, p := range points {
		v, d := types.ObjectValue(benchmarkResultType.AttrTypes, map[string]attr.Value{
			"phase": types.StringValue(p.Phase), "threads": types.Int64Value(int64(p.Threads)),
			"bandwidth_bytes_per_second": types.Float64Value(p.BandwidthBps), "iops": types.Float64Value(p.IOPS),
			"ops_per_second": types.Float64Value(p.OpsPerSec), "mean_latency_us": types.Float64Value(p.MeanLatencyNs / 1e3),
			"p9999_latency_us": types.Float64Value(p.P9999LatencyNs / 1e3),
		})
		diags.Append(d...)
		results = append(results, v)
	}
	m.Results = types.ListValueMust(benchmarkResultType, results)
	peaks, ratios := map[string]attr.Value{}, map[string]attr.Value{}
	sums := benchmark.Summarize(points, exp)
	for _, s := range sums {
		peaks[s.Phase] = types.Float64Value(s.Peak)
		if s.Expected > 0 {
			ratios[s.Phase] = types.Float64Value(s.Ratio)
		}
	}
	m.Peaks = types.MapValueMust(types.Float64Type, peaks)
	m.Ratios = types.MapValueMust(types.Float64Type, ratios)
	m.Commands = stringList(commands)
	m.ReportTable = types.StringValue(report.Report{Title: title, Points: points, Summaries: sums, Expected: exp}.Table())
}

// pointsFrom reads the recorded points back from state.
func pointsFrom(l types.List) []benchmark.Point {
	var out []benchmark.Point
	for _, e := range l.Elements() {
		o, ok := e.(types.Object)
		if !ok {
			continue
		}
		a := o.Attributes()
		f := func(k string) float64 { v, _ := a[k].(types.Float64); return v.ValueFloat64() }
		ph, _ := a["phase"].(types.String)
		th, _ := a["threads"].(types.Int64)
		out = append(out, benchmark.Point{Threads: int(th.ValueInt64()), Measurement: benchmark.Measurement{Phase: ph.ValueString(),
			BandwidthBps: f("bandwidth_bytes_per_second"), IOPS: f("iops"), OpsPerSec: f("ops_per_second"),
			MeanLatencyNs: f("mean_latency_us") * 1e3, P9999LatencyNs: f("p9999_latency_us") * 1e3}})
	}
	return out
}

// writeReport writes the SVG at report_path and the table beside it.
func (m *benchmarkModel) writeReport(points []benchmark.Point, exp map[string]benchmark.Figure, title string, diags *diag.Diagnostics) bool {
	if m.ReportPath.IsNull() || len(points) == 0 {
		return true
	}
	rep := report.Report{Title: title, Points: points, Summaries: benchmark.Summarize(points, exp), Expected: exp}
	svg, err := rep.SVG()
	if err != nil {
		addError(diags, path.Root("report_path"), "Report Not Drawn", "The run's results are kept; report this.", err)
		return false
	}
	p := expandHome(m.ReportPath.ValueString())
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		addError(diags, path.Root("report_path"), "Report Not Written", "Point report_path at a writable place.", err)
		return false
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{p, svg}, {tablePath(p), []byte(rep.Table())}} {
		if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
			addError(diags, path.Root("report_path"), "Report Not Written", "Point report_path at a writable place.", err)
			return false
		}
	}
	return true
}

func tablePath(svg string) string { return strings.TrimSuffix(svg, filepath.Ext(svg)) + ".md" }

func removeReport(p string, diags *diag.Diagnostics) {
	p = expandHome(p)
	for _, f := range []string{p, tablePath(p)} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			diags.AddWarning("Report Not Removed", fmt.Sprintf("%s: %v", f, err))
		}
	}
}
