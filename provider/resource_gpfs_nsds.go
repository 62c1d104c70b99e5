package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

var (
	_ resource.ResourceWithConfigure      = (*gpfsNSDsResource)(nil)
	_ resource.ResourceWithImportState    = (*gpfsNSDsResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*gpfsNSDsResource)(nil)
	_ resource.ResourceWithValidateConfig = (*gpfsNSDsResource)(nil)
)

// NewGpfsNSDsResource is the hpcstorage_gpfs_nsds resource.
func NewGpfsNSDsResource() resource.Resource {
	return &gpfsNSDsResource{clusterResource{name: "_gpfs_nsds"}}
}

type gpfsNSDsResource struct{ clusterResource }

type gpfsNSDsModel struct {
	ID           types.String `tfsdk:"id"`
	Host         types.String `tfsdk:"host"`
	SSH          types.Object `tfsdk:"ssh"`
	Name         types.String `tfsdk:"name"`
	ClusterNodes types.List   `tfsdk:"cluster_nodes"`
	ServerHosts  types.Map    `tfsdk:"server_hosts"`
	NSDs         types.List   `tfsdk:"nsds"`
	Wipe         types.Bool   `tfsdk:"wipe"`
	Delete       types.Bool   `tfsdk:"delete_on_destroy"`
	Stanzas      types.String `tfsdk:"stanzas"`
	Drift        types.Map    `tfsdk:"drift"`
}

type gpfsNSDModel struct {
	Name         types.String `tfsdk:"name"`
	WWN          types.String `tfsdk:"wwn"`
	Device       types.String `tfsdk:"device"`
	Servers      types.List   `tfsdk:"servers"`
	Usage        types.String `tfsdk:"usage"`
	FailureGroup types.Int64  `tfsdk:"failure_group"`
	Pool         types.String `tfsdk:"pool"`
}

func (r *gpfsNSDsResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Spectrum Scale NSDs (network shared disks): one per array volume, found on its servers by " +
			"WWN (`/dev/disk/by-id/wwn-0x<wwn>`, or a multipath alias given as `device`). The apply reads `mmlsnsd -X -Y` and " +
			"creates the NSDs it does not list with one `mmcrnsd -F <stanzas> -v yes` (GPFS then refuses a disk that already " +
			"holds an NSD descriptor), and deletes those removed from `nsds` with one `mmdelnsd` (GPFS refuses while a file " +
			"system uses them: remove them from the file system first).\n\nAt plan time, for each NSD not yet created, every " +
			"server in `server_hosts` must see the volume (else the plan fails on its `wwn`, naming the server: map it to " +
			"that host), and a volume carrying any signature (`blkid -p`) fails the plan unless `wipe = true`.\n\nServers " +
			"are ordered so primaries alternate: among NSDs served by the same nodes, the first NSD lists them as given, " +
			"the second starts with the next server, and so on (`stanzas` shows the result).\n\nDestroy keeps the NSDs " +
			"(they may hold a file system's data) unless `delete_on_destroy = true`: then it deletes the NSDs of this set " +
			"that `mmlsnsd` lists with one `mmdelnsd`, and refuses, before any command, while one of them still belongs to a " +
			"file system (a file system kept by its own destroy). Either way the stanza files and the record on the admin " +
			"node are removed.",
		Attributes: map[string]schema.Attribute{
			"host": nodeHostAttribute("the mm commands (the cluster's admin node)"),
			"ssh":  sshResourceAttribute(),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "A name for this set of NSDs (its stanza " +
				"files live under `" + gpfsDir + "/nsds-<name>`).", Validators: []validator.String{stringvalidator.RegexMatches(reSafeName, "letters, digits, dashes and underscores")}},
			"cluster_nodes": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "The cluster's node names (`hpcstorage_gpfs_cluster.node_names`): an NSD server that is not " +
					"one fails the plan. Referencing the cluster also orders the NSDs after it."},
			"server_hosts": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "SSH address of each NSD server, by node name, for the plan-time checks (volume mapped " +
					"to the server, no signature). Servers not listed are not checked."},
			"nsds": schema.ListNestedAttribute{Required: true, Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				MarkdownDescription: "The NSDs.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "NSD name, unique in the cluster."},
					"wwn":  schema.StringAttribute{Required: true, MarkdownDescription: "WWN of the volume (`hpcstorage_volume.wwn`)."},
					"device": schema.StringAttribute{Optional: true, MarkdownDescription: "Block device on the servers; default " +
						"`/dev/disk/by-id/wwn-0x<wwn>`. Use `/dev/mapper/<alias>` for a multipath alias."},
					"servers": schema.ListAttribute{Required: true, ElementType: types.StringType,
						MarkdownDescription: "NSD servers (at most 8), e.g. the HA pair `[\"nsd1\", \"nsd2\"]`."},
					"usage": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(gpfs.DataOnly),
						MarkdownDescription: "One of " + backtickList(gpfs.Usages) + "."},
					"failure_group": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1),
						MarkdownDescription: "Failure group: NSDs sharing a point of failure (an array) share one."},
					"pool": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(gpfs.SystemPool),
						MarkdownDescription: "Storage pool; metadata NSDs are in `system`."},
				}},
			},
			"wipe": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Allow volumes that carry a signature or an old NSD descriptor (`mmcrnsd -v no`, which " +
					"overwrites it). Off by default: such a volume fails the plan."},
			"delete_on_destroy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Delete the NSDs on destroy (`mmdelnsd`: their descriptors are erased, the volumes free " +
					"for reuse). Off by default: destroy keeps them."},
			"stanzas": schema.StringAttribute{Computed: true, MarkdownDescription: "The `%nsd` stanzas of every NSD, servers in their final order."},
			"id":      nodeIDAttribute("The name."),
			"drift":   nodeDriftAttribute(),
		},
	}
}

// decode: the NSDs have no raw attributes.
func (m *gpfsNSDsModel) decode(context.Context, *diag.Diagnostics) {}

func (r *gpfsNSDsResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg gpfsNSDsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	nsds, wwns, _, ok := cfg.nsdList(ctx, &resp.Diagnostics)
	cluster, cok := cfg.clusterNodes(ctx, &resp.Diagnostics)
	if ok && cok {
		gpfsProblems(&resp.Diagnostics, gpfs.ValidateNSDs(nsds, wwns, cluster))
	}
}

// ModifyPlan checks the rules and, for NSDs to be created, that every
// server sees the volume and that it is blank (unless wipe).
func (r *gpfsNSDsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() && !req.State.Raw.IsNull() {
		var state gpfsNSDsModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		nsds, _, _, _ := state.nsdList(ctx, &resp.Diagnostics)
		if state.Delete.ValueBool() {
			resp.Diagnostics.AddWarning("NSDs Deleted", fmt.Sprintf("delete_on_destroy is set: destroy deletes NSDs %s "+
				"(mmdelnsd); it refuses while a file system still uses one.", strings.Join(nsdNames(nsds), ", ")))
		} else {
			resp.Diagnostics.AddWarning("NSDs Kept", fmt.Sprintf("Destroy keeps NSDs %s (only the stanza files on the admin "+
				"node go); set delete_on_destroy = true (and apply) first to delete them.", strings.Join(nsdNames(nsds), ", ")))
		}
	}
	clusterPlan(ctx, req, resp, r.adjust)
}

func (r *gpfsNSDsResource) adjust(ctx context.Context, plan, state *gpfsNSDsModel, diags *diag.Diagnostics) bool {
	plan.Drift = emptyDrift()
	plan.ID = plan.Name
	// Rules that need no WWN run even while volumes are created in this
	// apply; the ones that do run again before the apply's first command.
	nsds, wwns, known, ok := plan.nsdList(ctx, diags)
	cluster, cok := plan.clusterNodes(ctx, diags)
	if !ok || !cok {
		return true
	}
	gpfsProblems(diags, gpfs.ValidateNSDs(nsds, wwns, cluster))
	if diags.HasError() {
		return false
	}
	if known {
		plan.fill(nsds)
	}
	var existing []string
	if state != nil {
		before, _, _, _ := state.nsdList(ctx, diags)
		existing = nsdNames(before)
		for _, n := range existing {
			if !slices.Contains(nsdNames(nsds), n) {
				diags.AddAttributeWarning(path.Root("nsds"), "NSD Deleted",
					fmt.Sprintf("NSD %s is no longer configured: the apply deletes it (mmdelnsd). GPFS refuses while a file "+
						"system uses it; hpcstorage_gpfs_filesystem removes it from the file system only when allow_disk_removal is set.", n))
			}
		}
	}
	r.checkServers(ctx, plan, nsds, wwns, existing, diags)
	return !diags.HasError()
}

func (r *gpfsNSDsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	clusterCreate(ctx, req, resp, func(ctx context.Context, plan *gpfsNSDsModel, diags *diag.Diagnostics) bool {
		return r.converge(ctx, plan, nil, diags)
	})
}

func (r *gpfsNSDsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if _, ok := readRecorded(ctx, r, r.nodes, &req, resp, "nsds", "host", func(name string) string { return (&gpfsNSDsModel{Name: types.StringValue(name)}).owner() }); ok {
		clusterRead(ctx, req, resp, r.refresh)
	}
}

// refresh reads the NSDs back into drift (a missing NSD is drift, not gone).
func (r *gpfsNSDsResource) refresh(ctx context.Context, state *gpfsNSDsModel, diags *diag.Diagnostics) (found, ok bool) {
	nsds, _, _, ok := state.nsdList(ctx, diags)
	if !ok {
		return true, false
	}
	seen, ok := readNSDs(ctx, newGPFSAdmin(r.nodes, state.Host, state.SSH), diags)
	if !ok {
		return true, false
	}
	if state.Stanzas.IsNull() { // just imported
		state.fill(nsds)
	}
	if state.Delete.IsNull() { // a record written before it existed
		state.Delete = types.BoolValue(false)
	}
	state.Drift = driftMap(gpfs.NSDDrift(nsds, seen))
	return true, true
}

func (r *gpfsNSDsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	clusterUpdate(ctx, req, resp, func(ctx context.Context, plan, prior *gpfsNSDsModel, diags *diag.Diagnostics) bool {
		before, _, _, _ := prior.nsdList(ctx, diags)
		after, _, _, _ := plan.nsdList(ctx, diags)
		var dropped []string
		for _, n := range nsdNames(before) {
			if !slices.Contains(nsdNames(after), n) {
				dropped = append(dropped, n)
			}
		}
		return !diags.HasError() && r.converge(ctx, plan, dropped, diags)
	})
}

func (r *gpfsNSDsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	clusterDelete(ctx, req, resp, r.destroy)
}

// destroy deletes the set's NSDs with delete_on_destroy (those mmlsnsd
// still lists, so a re-run after a kill sends only what is left; none
// while a file system uses one); the files this resource wrote go either way.
func (r *gpfsNSDsResource) destroy(ctx context.Context, state *gpfsNSDsModel, diags *diag.Diagnostics) {
	a := newGPFSAdmin(r.nodes, state.Host, state.SSH)
	if state.Delete.ValueBool() {
		nsds, _, _, ok := state.nsdList(ctx, diags)
		if !ok {
			return
		}
		seen, ok := listedNSDs(ctx, a, diags)
		if !ok {
			return
		}
		steps, err := gpfs.DeleteNSDSteps(nsdNames(nsds), seen)
		if err != nil {
			addLocated(diags, path.Root("delete_on_destroy"), "NSDs In Use", "Nothing was deleted: take the NSDs out of the "+
				"file system (hpcstorage_gpfs_filesystem disks with allow_disk_removal, or its destroy with delete_on_destroy), "+
				"then destroy again.", err)
			return
		}
		if len(steps) > 0 {
			if !a.apply(ctx, state.owner()+"-delete", stepItems(steps), diags) {
				return
			}
			a.remove(ctx, state.owner()+"-delete", diags)
			if seen, ok = listedNSDs(ctx, a, diags); !ok {
				return
			}
			for _, n := range nsdNames(nsds) {
				if _, left := seen[n]; left {
					diags.AddError("NSD Not Deleted", fmt.Sprintf("Host %s: mmlsnsd still lists %s after mmdelnsd.", a.host, n))
					return
				}
			}
		}
	}
	a.remove(ctx, state.owner(), diags)
}

// nsdList converts the model's NSDs (servers in alternating order) with
// their WWNs; ok is false while a name, server, usage, failure group or
// pool is unknown. A WWN not known yet (a volume created in the same
// apply) is "" and known is false: its device is "" too unless given.
func (m *gpfsNSDsModel) nsdList(ctx context.Context, diags *diag.Diagnostics) (nsds []gpfs.NSD, wwns []string, known, ok bool) {
	if m.NSDs.IsUnknown() {
		return nil, nil, false, false
	}
	var raw []gpfsNSDModel
	diags.Append(m.NSDs.ElementsAs(ctx, &raw, false)...)
	if diags.HasError() {
		return nil, nil, false, false
	}
	out := make([]gpfs.NSD, len(raw))
	wwns = make([]string, len(raw))
	known = true
	for i, n := range raw {
		if n.Name.IsUnknown() || n.Device.IsUnknown() || n.Servers.IsUnknown() || n.Usage.IsUnknown() ||
			n.FailureGroup.IsUnknown() || n.Pool.IsUnknown() {
			return nil, nil, false, false
		}
		var servers []string
		diags.Append(n.Servers.ElementsAs(ctx, &servers, false)...)
		dev := n.Device.ValueString()
		if n.WWN.IsUnknown() {
			known = false
		} else {
			wwns[i] = gpfs.NormWWN(n.WWN.ValueString())
			if dev == "" {
				dev = gpfs.WWNDevice(n.WWN.ValueString())
			}
		}
		out[i] = gpfs.NSD{Name: n.Name.ValueString(), Device: dev, Servers: servers, Usage: stringOr(n.Usage, gpfs.DataOnly),
			FailureGroup: intOr(n.FailureGroup, 1), Pool: stringOr(n.Pool, gpfs.SystemPool)}
	}
	return gpfs.OrderServers(out), wwns, known, true
}

func (m *gpfsNSDsModel) clusterNodes(ctx context.Context, diags *diag.Diagnostics) ([]string, bool) {
	if m.ClusterNodes.IsUnknown() {
		return nil, false
	}
	if m.ClusterNodes.IsNull() {
		return nil, true
	}
	var l []string
	diags.Append(m.ClusterNodes.ElementsAs(ctx, &l, false)...)
	return l, true
}

func (m *gpfsNSDsModel) dir() string   { return gpfsPath("nsds-" + m.Name.ValueString()) }
func (m *gpfsNSDsModel) owner() string { return "gpfs-nsds-" + m.Name.ValueString() }

func readNSDs(ctx context.Context, a gpfsAdmin, diags *diag.Diagnostics) (map[string]gpfs.NSDInfo, bool) {
	out, failed, ok := a.query(ctx, diags, "mmlsnsd", "-X", "-Y")
	if !ok {
		return nil, false
	}
	if failed != "" {
		// GPFS answers non-zero when no NSD exists yet (6027-1370 "No disks were found").
		if strings.Contains(failed, "No disks were found") || strings.Contains(failed, "6027-1370") {
			return map[string]gpfs.NSDInfo{}, true
		}
		diags.AddError(gpfsKind+" Query Failed", fmt.Sprintf("Host %s: %s", a.host, failed))
		return nil, false
	}
	seen, err := gpfs.ParseNSDs(out)
	if err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmlsnsd -X -Y: %v", a.host, err))
		return nil, false
	}
	return seen, true
}

func (r *gpfsNSDsResource) converge(ctx context.Context, m *gpfsNSDsModel, dropped []string, diags *diag.Diagnostics) bool {
	nsds, wwns, _, ok := m.nsdList(ctx, diags)
	if !ok {
		return false
	}
	// The plan's checks that waited for the volumes' WWNs, before any
	// command: nothing is half-applied.
	cluster, _ := m.clusterNodes(ctx, diags)
	if gpfsProblems(diags, gpfs.ValidateNSDs(nsds, wwns, cluster)); diags.HasError() {
		return false
	}
	if r.checkServers(ctx, m, nsds, wwns, nil, diags); diags.HasError() {
		return false
	}
	a := newGPFSAdmin(r.nodes, m.Host, m.SSH)
	seen, ok := readNSDs(ctx, a, diags)
	if !ok {
		return false
	}
	all := gpfsFile(m.dir()+"/all.stanza", gpfs.StanzaFile(nsds, nil))
	items := dedupeFiles(append([]protocol.Item{all}, stepItems(gpfs.NSDSteps(nsds, seen, dropped, m.dir(), m.Wipe.ValueBool()))...))
	items = append(items, clusterRecord(ctx, r, m.owner(), m)...)
	if !a.apply(ctx, m.owner(), items, diags) {
		return false
	}
	if seen, ok = readNSDs(ctx, a, diags); !ok {
		return false
	}
	if d := gpfs.NSDDrift(nsds, seen); len(d) > 0 {
		diags.AddError("Change Not Verified", fmt.Sprintf("Host %s: after apply, mmlsnsd still differs: %s", a.host, driftText(d)))
		return false
	}
	m.fill(nsds)
	return true
}

func (m *gpfsNSDsModel) fill(nsds []gpfs.NSD) {
	m.ID = types.StringValue(m.Name.ValueString())
	m.Stanzas = types.StringValue(gpfs.StanzaFile(nsds, nil))
	m.Drift = emptyDrift()
}

func nsdNames(nsds []gpfs.NSD) []string {
	out := make([]string, len(nsds))
	for i, n := range nsds {
		out[i] = n.Name
	}
	return out
}

// checkServers asks each server's agent for its block devices (facts) and
// refuses a new NSD whose volume a server does not see, that is already
// another NSD (mmlsnsd -X: the device a server sees it as), or that
// carries a signature without wipe. NSDs in existing or already listed
// by mmlsnsd are not new; a WWN not known yet ("") is not checked (the
// apply checks it before its first command).
func (r *gpfsNSDsResource) checkServers(ctx context.Context, plan *gpfsNSDsModel, nsds []gpfs.NSD, wwns, existing []string, diags *diag.Diagnostics) {
	if r.nodes == nil || r.nodes.deferred || plan.ServerHosts.IsNull() || plan.ServerHosts.IsUnknown() || plan.Host.IsUnknown() {
		return
	}
	hosts, ok := settingsMap(plan.ServerHosts)
	if !ok {
		return
	}
	var todo []int
	for i, n := range nsds {
		if !slices.Contains(existing, n.Name) && wwns[i] != "" {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return
	}
	listed, ok := listedNSDs(ctx, newGPFSAdmin(r.nodes, plan.Host, plan.SSH), diags)
	if !ok {
		return
	}
	facts := map[string]*protocol.Facts{}
	for _, i := range todo {
		n := nsds[i]
		if _, made := listed[n.Name]; made {
			continue // made by an earlier run (killed before it saved its state)
		}
		for _, s := range n.Servers {
			h, ok := hosts[s]
			if !ok {
				continue
			}
			f, seen := facts[s]
			if !seen {
				run := nodeRun{nodes: r.nodes, host: h, ssh: plan.SSH, owner: gpfsQueryOwner}
				if f, ok = run.facts(ctx, diags); !ok {
					return
				}
				facts[s] = f
			}
			var dev *protocol.BlockDevice
			for j := range f.BlockDevices {
				if gpfs.NormWWN(f.BlockDevices[j].WWN) == wwns[i] {
					dev = &f.BlockDevices[j]
					break
				}
			}
			at := located.At("nsds").Index(i).Name("wwn")
			if dev == nil {
				addLocated(diags, path.Empty(), "Volume Not Mapped To NSD Server", nothingSent, located.Errorf(at, "NSD %s: server %s (%s) "+
					"does not see a volume with WWN %s. Every server of an NSD must see its volume: map the volume to that host "+
					"(hpcstorage_volume mappings) or remove the server from the NSD.", n.Name, s, h, wwns[i]))
				continue
			}
			if other := nsdOnDevice(listed, s, dev.Name); other != "" {
				addLocated(diags, path.Empty(), "Volume Already An NSD", nothingSent, located.Errorf(at, "NSD %s: the volume with WWN %s "+
					"(/dev/%s on %s) is already NSD %s (mmlsnsd -X). A volume holds one NSD: use another volume, or name "+
					"this NSD %s.", n.Name, wwns[i], dev.Name, s, other, other))
				continue
			}
			if dev.FSType != "" && !plan.Wipe.ValueBool() {
				addLocated(diags, path.Empty(), "Volume Already Has A Signature", nothingSent, located.Errorf(located.At("wipe"),
					"NSD %s: on server %s, /dev/%s (WWN %s) holds a %s signature. Making it an NSD would destroy what it "+
						"holds. Set wipe = true to overwrite it, or use another volume.", n.Name, s, dev.Name, wwns[i], dev.FSType))
			}
		}
	}
}

// listedNSDs reads mmlsnsd -X; a node in no cluster yet lists none.
func listedNSDs(ctx context.Context, a gpfsAdmin, diags *diag.Diagnostics) (map[string]gpfs.NSDInfo, bool) {
	out, failed, ok := a.query(ctx, diags, "mmlsnsd", "-X", "-Y")
	if !ok {
		return nil, false
	}
	if failed != "" {
		return map[string]gpfs.NSDInfo{}, true
	}
	seen, err := gpfs.ParseNSDs(out)
	if err != nil {
		diags.AddError("Unreadable "+gpfsKind+" Output", fmt.Sprintf("Host %s: mmlsnsd -X -Y: %v", a.host, err))
		return nil, false
	}
	return seen, true
}

// nsdOnDevice is the NSD that server sees as /dev/<kernel>, "" if none.
func nsdOnDevice(listed map[string]gpfs.NSDInfo, server, kernel string) string {
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		if d := listed[name].Devices[server]; d != "" && strings.TrimPrefix(d, "/dev/") == kernel {
			return name
		}
	}
	return ""
}

// ImportState takes HOST/NAME; the Read that follows fills the rest from
// the record the last apply left on the admin node.
func (r *gpfsNSDsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importHostName(ctx, req, resp, "HOST/NAME: the admin node as SSH reaches it, then the NSD set's name, e.g. 10.0.0.5:22/r5",
		"host", "name", "id")
}
