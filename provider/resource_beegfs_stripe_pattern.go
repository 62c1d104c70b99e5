package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// NewBeegfsStripePatternResource is the hpcstorage_beegfs_stripe_pattern resource:
// the stripe pattern of one directory.
func NewBeegfsStripePatternResource() resource.Resource {
	return &beegfsStripePatternResource{&nodeService[beegfsStripePatternModel, *beegfsStripePatternModel]{name: "_beegfs_stripe_pattern", kind: beegfsKind, schema: beegfsStripePatternSchema}}
}

// beegfsStripePatternResource overrides what the shell does not do for it.
type beegfsStripePatternResource struct {
	*nodeService[beegfsStripePatternModel, *beegfsStripePatternModel]
}

type beegfsStripePatternModel struct {
	NodeService
	MountPoint  types.String `tfsdk:"mount_point"`
	Path        types.String `tfsdk:"path"`
	ChunkSize   types.Int64  `tfsdk:"chunk_size_bytes"`
	NumTargets  types.Int64  `tfsdk:"num_targets"`
	Pool        types.Int64  `tfsdk:"pool"`
	BuddyMirror types.Bool   `tfsdk:"buddy_mirror"`
	Version     types.String `tfsdk:"version"`
	TLSDisable  types.Bool   `tfsdk:"tls_disable"`
	Command     types.List   `tfsdk:"command"`
}

func beegfsStripePatternSchema() schema.Schema {
	attrs := beegfsServiceSchema("a BeeGFS client that mounts the file system", map[string]schema.Attribute{
		"mount_point": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(beegfs.DefaultMountPoint),
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			MarkdownDescription: "The client's mount point."},
		"path": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			MarkdownDescription: "Directory inside the mount (relative; `.` is the root). Created if missing."},
		"chunk_size_bytes": schema.Int64Attribute{Required: true, MarkdownDescription: "Chunk size in bytes, a power of two from 64 KiB " +
			"(R1 and R3 benchmarks: 1 MiB = 1048576).", Validators: []validator.Int64{int64validator.AtLeast(64 << 10)}},
		"num_targets": schema.Int64Attribute{Required: true, MarkdownDescription: "Storage targets per file (BeeGFS default 4; " +
			"R1 benchmarks 1; R3 single-client tests 8).", Validators: []validator.Int64{int64validator.Between(1, 1024)}},
		"pool": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1),
			MarkdownDescription: "Storage pool ID.", Validators: []validator.Int64{int64validator.Between(1, 65535)}},
		"buddy_mirror": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "Stripe over storage buddy mirror groups (`--pattern=buddymirror`; `num_targets` then counts groups): " +
				"every chunk is written to both targets of a group (`hpcstorage_beegfs_mirror_group`), so files here take twice " +
				"their size. Needs storage mirror groups in `pool`."},
		"version":     beegfsVersionAttribute(),
		"tls_disable": beegfsCLITLSAttribute(),
		"command": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The argv run on the " +
			"client: `beegfs-ctl --setpattern` (7.x) or `beegfs entry set` (8)."},
	}, false)
	return schema.Schema{
		MarkdownDescription: "Stripe pattern (RAID0 chunk size, targets per file, storage pool) of one BeeGFS directory, " +
			"set with `beegfs-ctl --setpattern` on a client without restarting anything; new files in the directory " +
			"get it. The pattern is read back with `beegfs-ctl --getentryinfo` on every refresh: `chunk_size_bytes`, `num_targets` " +
			"`pool` and `buddy_mirror` in state are what the client shows, so a pattern changed by hand shows in the next plan and the " +
			"apply sets it again (setpattern runs only when the read-back differs). Destroy leaves the directory and its " +
			"pattern. The client needs `beegfs-ctl` (7.x); with `version = \"8\"` the `beegfs` command: `beegfs entry set` " +
			"(`--pattern=raid0|mirrored`), read back with `beegfs entry info --retro`.",
		Attributes: attrs,
	}
}

// Read reads the pattern back from the client (`beegfs-ctl --getentryinfo`,
// a read-only query the agent runs) and stores what the node shows, so a
// pattern changed by hand shows as a change in the next plan.
func (r *beegfsStripePatternResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state beegfsStripePatternModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	items, ok := r.renderItems(&state, req.State.Raw, secretInput{Unread: true}, &resp.Diagnostics)
	if !ok {
		return
	}
	probe := state.stripe().ProbeItem()
	drift, out, ran, ok := nodeRunFor(r.nodes, &state).driftProbe(ctx, items, probe, &resp.Diagnostics)
	if !ok {
		return
	}
	if ran {
		if p, err := beegfs.ParseEntryInfo(out); err != nil {
			drift[probe.ID()] = "error: " + err.Error()
		} else {
			state.ChunkSize = types.Int64Value(p.ChunkSize)
			state.NumTargets = types.Int64Value(int64(p.NumTargets))
			state.Pool = types.Int64Value(int64(p.Pool))
			state.BuddyMirror = types.BoolValue(p.IsBuddyMirror())
		}
	}
	state.Drift = driftMap(drift)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// ModifyPlan refuses an unsupported version change, then plans as the shell.
func (r *beegfsStripePatternResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if beegfsUpgradeCheck(ctx, req, resp) {
		r.nodeService.ModifyPlan(ctx, req, resp)
	}
}

func (m *beegfsStripePatternModel) secret() serviceSecret { return nil }

// owner is per directory, so patterns of several directories on one client
// are separate resources.
func (m *beegfsStripePatternModel) owner() string {
	return "beegfs-stripe-" + beegfs.StripeOwnerSuffix(stringOr(m.MountPoint, beegfs.DefaultMountPoint), m.Path.ValueString())
}

func (m *beegfsStripePatternModel) known() bool {
	return !m.MountPoint.IsUnknown() && !m.Path.IsUnknown() && !m.ChunkSize.IsUnknown() && !m.NumTargets.IsUnknown() && !m.Pool.IsUnknown() &&
		!m.BuddyMirror.IsUnknown() && !m.Version.IsUnknown() && !m.TLSDisable.IsUnknown()
}

func (m *beegfsStripePatternModel) stripe() beegfs.Stripe {
	return beegfs.Stripe{MountPoint: stringOr(m.MountPoint, beegfs.DefaultMountPoint), Path: m.Path.ValueString(), ChunkSize: m.ChunkSize.ValueInt64(),
		NumTargets: int(m.NumTargets.ValueInt64()), Pool: intOr(m.Pool, 1), BuddyMirror: m.BuddyMirror.ValueBool(),
		Version: m.Version.ValueString(), TLSDisable: m.TLSDisable.ValueBool()}
}

func (m *beegfsStripePatternModel) items(secretInput) ([]protocol.Item, path.Path, error) {
	items, err := m.stripe().Items()
	if _, ok := located.Find(err); ok {
		return items, beegfsErrPath(err), err
	}
	return items, errorPath(err, "path", "mount_point", "chunk_size_bytes", "num_targets", "pool"), err
}

func (m *beegfsStripePatternModel) itemPath(int, string) path.Path { return path.Root("path") }

func (m *beegfsStripePatternModel) fill() { m.Command = stringList(m.stripe().SetPatternArgv()) }
