package provider

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// NewBeegfsHAServicesResource is the hpcstorage_beegfs_ha_services
// resource: the BeeGFS services of one HA pair, on one node of it.
func NewBeegfsHAServicesResource() resource.Resource {
	return &beegfsHAServicesResource{&nodeService[beegfsHAServicesModel, *beegfsHAServicesModel]{name: "_beegfs_ha_services",
		kind: beegfsKind, schema: beegfsHAServicesSchema}}
}

// beegfsHAServicesResource adds plan-time refusals while volume WWNs are
// still unknown (a first apply).
type beegfsHAServicesResource struct {
	*nodeService[beegfsHAServicesModel, *beegfsHAServicesModel]
}

type beegfsHAServicesModel struct {
	NodeService
	BeegfsSecret
	Node         types.String `tfsdk:"node"`
	Nodes        types.List   `tfsdk:"nodes"`
	ClusterNodes types.List   `tfsdk:"cluster_nodes"`
	MgmtdIP      types.String `tfsdk:"mgmtd_ip"`
	MgmtdPort    types.Int64  `tfsdk:"mgmtd_port"`
	Services     types.List   `tfsdk:"services"`
	Groups       types.List   `tfsdk:"groups"`
	Locations    types.List   `tfsdk:"locations"`
	Colocations  types.List   `tfsdk:"colocations"`
	Orders       types.List   `tfsdk:"orders"`
	Units        types.Map    `tfsdk:"units"`
}

type beegfsHAServiceModel struct {
	Kind           types.String `tfsdk:"kind"`
	Name           types.String `tfsdk:"name"`
	FloatingIP     types.String `tfsdk:"floating_ip"`
	Interface      types.String `tfsdk:"interface"`
	PreferredNode  types.String `tfsdk:"preferred_node"`
	With           types.String `tfsdk:"with"`
	Directory      types.String `tfsdk:"directory"`
	NodeID         types.Int64  `tfsdk:"node_id"`
	Port           types.Int64  `tfsdk:"port"`
	NumaZone       types.Int64  `tfsdk:"numa_zone"`
	Settings       types.Map    `tfsdk:"settings"`
	Targets        types.List   `tfsdk:"targets"`
	StorageTargets types.List   `tfsdk:"storage_targets"`
}

type beegfsHATargetModel struct {
	WWN          types.String `tfsdk:"wwn"`
	MountPoint   types.String `tfsdk:"mount_point"`
	SegmentBytes types.Int64  `tfsdk:"segment_size_bytes"`
	DataDrives   types.Int64  `tfsdk:"data_drives"`
	MountOptions types.List   `tfsdk:"mount_options"`
	MappedTo     types.List   `tfsdk:"mapped_to"`
}

type beegfsHAStorageTargetModel struct {
	ID        types.Int64  `tfsdk:"id"`
	Directory types.String `tfsdk:"directory"`
	Pool      types.Int64  `tfsdk:"pool"`
}

// The computed outputs, in hpcstorage_ha_cluster's shapes.
var (
	haOpType   = types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType, "interval": types.StringType, "timeout": types.StringType}}
	haPrimType = types.ObjectType{AttrTypes: map[string]attr.Type{"id": types.StringType, "class": types.StringType, "provider": types.StringType,
		"type": types.StringType, "params": types.MapType{ElemType: types.StringType}, "meta": types.MapType{ElemType: types.StringType},
		"ops": types.ListType{ElemType: haOpType}}}
	haGroupType = types.ObjectType{AttrTypes: map[string]attr.Type{"id": types.StringType, "meta": types.MapType{ElemType: types.StringType},
		"members": types.ListType{ElemType: haPrimType}}}
	haLocType = types.ObjectType{AttrTypes: map[string]attr.Type{"id": types.StringType, "rsc": types.StringType, "node": types.StringType,
		"score": types.StringType}}
	haColType = types.ObjectType{AttrTypes: map[string]attr.Type{"id": types.StringType, "rsc": types.StringType, "with_rsc": types.StringType,
		"score": types.StringType}}
	haOrdType = types.ObjectType{AttrTypes: map[string]attr.Type{"id": types.StringType, "first": types.StringType, "then": types.StringType,
		"kind": types.StringType}}
)

func beegfsHAServicesSchema() schema.Schema {
	attrs := beegfsServiceSchema("this node of the pair", map[string]schema.Attribute{
		"node": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			MarkdownDescription: "This node's name in the cluster (one of `nodes`)."},
		"nodes": schema.ListAttribute{Required: true, ElementType: types.StringType,
			MarkdownDescription: "The pair's node names, as the cluster (`hpcstorage_ha_cluster`'s `nodes`) and the arrays' host " +
				"mappings name them.", Validators: []validator.List{listvalidator.SizeAtLeast(2)}},
		"cluster_nodes": schema.ListAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Every node of the cluster the pair's groups go into, when it is more than the pair (one cluster " +
				"for a whole file system, as NetApp's BeeGFS HA role builds it): the groups get `-INFINITY` on the others, which do " +
				"not see the pair's volumes. Default: the pair."},
		"mgmtd_ip": schema.StringAttribute{Optional: true, MarkdownDescription: "The management group's floating IP (`sysMgmtdHost` of " +
			"every service). Default: the floating IP of the management service in `services`; pairs without it must set it."},
		"mgmtd_port": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(beegfs.DefaultMgmtPort),
			MarkdownDescription: "Port of the management service.", Validators: []validator.Int64{int64validator.Between(1024, 65535)}},
		"services": schema.ListNestedAttribute{Required: true, Validators: []validator.List{listvalidator.SizeAtLeast(1)},
			MarkdownDescription: "The pair's BeeGFS services, one resource group each.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"kind": schema.StringAttribute{Required: true, MarkdownDescription: "`management`, `metadata` or `storage`.",
					Validators: []validator.String{stringvalidator.OneOf(beegfs.TargetKinds...)}},
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "Instance name: the unit is `beegfs-<mgmtd|meta|storage>@<name>`, " +
					"the group id `<name>` (R1: `metaA-numa0-1`, ...)."},
				"floating_ip": schema.StringAttribute{Required: true, MarkdownDescription: "Address with prefix length (`10.10.0.101/16`), " +
					"raised with the group; the service listens on it only. Unique in the pair."},
				"interface": schema.StringAttribute{Required: true, MarkdownDescription: "Interface for the floating IP (`ib0`); its label " +
					"`<interface>:<md|st><node_id>` (`:mg` for management) must fit Linux's 15 characters."},
				"preferred_node": schema.StringAttribute{Required: true, MarkdownDescription: "The node the group runs on when it can (R1: " +
					"server A's instances prefer A); it may run on any other node of the pair."},
				"with": schema.StringAttribute{Optional: true, MarkdownDescription: "Name of the service whose targets hold this one's store " +
					"(R1's management store on metadata target 1): the group runs with it and starts after it."},
				"directory": schema.StringAttribute{Optional: true, MarkdownDescription: "Management or metadata store, on one of the group's " +
					"targets (or those of `with`)."},
				"node_id":   schema.Int64Attribute{Optional: true, MarkdownDescription: "Numeric node id (metadata, storage)."},
				"port":      schema.Int64Attribute{Optional: true, MarkdownDescription: "TCP and UDP port. Default: 8008, 8005 or 8003 by kind."},
				"numa_zone": schema.Int64Attribute{Optional: true, MarkdownDescription: "`tuneBindToNumaZone`; unset leaves it unbound."},
				"settings":  schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Extra or overriding config options."},
				"targets": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Volumes the group mounts, in order, before the service.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"wwn":         schema.StringAttribute{Required: true, MarkdownDescription: "Volume WWN (mounted as `/dev/disk/by-id/wwn-0x<wwn>`)."},
						"mount_point": schema.StringAttribute{Required: true, MarkdownDescription: "Mount point (the same on both nodes)."},
						"segment_size_bytes": schema.Int64Attribute{Optional: true, MarkdownDescription: "Storage targets: the array segment size " +
							"(xfs `su`)."},
						"data_drives": schema.Int64Attribute{Optional: true, MarkdownDescription: "Storage targets: data drives per stripe (xfs `sw`)."},
						"mount_options": schema.ListAttribute{Optional: true, ElementType: types.StringType,
							MarkdownDescription: "Mount options; default the role's (as `hpcstorage_beegfs_target`), without `nofail`."},
						"mapped_to": schema.ListAttribute{Required: true, ElementType: types.StringType, MarkdownDescription: "Hosts the array " +
							"maps the volume to (`hpcstorage_volume`'s `host_mappings[*].host`): every node of the pair, or the plan is refused."},
					}}},
				"storage_targets": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Storage services: the BeeGFS targets.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"id":        schema.Int64Attribute{Required: true, MarkdownDescription: "Numeric target id."},
						"directory": schema.StringAttribute{Required: true, MarkdownDescription: "Chunk directory on one of the group's targets."},
						"pool":      schema.Int64Attribute{Optional: true, MarkdownDescription: "Storage pool (default 1)."},
					}}},
			}}},
		"groups": schema.ListAttribute{Computed: true, ElementType: haGroupType, MarkdownDescription: "The resource groups, for " +
			"`hpcstorage_ha_cluster`'s `groups`: floating IP (`IPaddr2`), target mounts (`Filesystem`), the service (`systemd`)."},
		"locations": schema.ListAttribute{Computed: true, ElementType: haLocType, MarkdownDescription: "Preferred (score " +
			beegfs.HAPreferredScore + ") and other (" + beegfs.HASecondaryScore + ") node of each group, for `locations`."},
		"colocations": schema.ListAttribute{Computed: true, ElementType: haColType, MarkdownDescription: "For `colocations` (`with`)."},
		"orders":      schema.ListAttribute{Computed: true, ElementType: haOrdType, MarkdownDescription: "For `orders` (`with`)."},
		"units":       schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "systemd unit per service name."},
	}, true)
	return schema.Schema{
		MarkdownDescription: "The BeeGFS services of one HA pair (R1's server pairs, R3's building blocks) on one node of it, as " +
			"NetApp's BeeGFS HA role and Dell's BeeGFS HA guide run them under pacemaker: one resource per node of the pair. Every " +
			"node gets the config of every instance of the pair (either node may run it) in `/etc/beegfs/<name>.d/` with its own " +
			"auth file, `connInterfacesFile` (the floating IP's interface label) and `connNetFilterFile` (its network), so the " +
			"service listens on its floating IP only and clients follow it; the units are disabled at boot and never started " +
			"here (the cluster starts them). On a service's preferred node its targets are formatted once and its store " +
			"initialised once (`beegfs-setup-*`, the target mounted just for that); from then on only the cluster mounts them, " +
			"never fstab.\n\nThe computed `groups`, `locations`, `colocations` and `orders` go into the pair's " +
			"`hpcstorage_ha_cluster`. Refused at plan: a target volume not mapped to every node of the pair, two groups with one " +
			"floating IP, a volume in two groups, a store off the group's targets. Clients of an HA file system need " +
			"`sysSessionChecksEnabled = false` (`hpcstorage_beegfs_client`'s `settings`). Destroy removes the configs and units; " +
			"targets are never wiped.",
		Attributes: attrs,
	}
}

func (m *beegfsHAServicesModel) owner() string { return "beegfs-ha" }

// startupItems: the cluster starts the services, which read their config
// and auth files only then; nothing restarts them from here.
func (m *beegfsHAServicesModel) startupItems() []string {
	return []string{"file:" + beegfs.ConfDir + "/"}
}

func (m *beegfsHAServicesModel) known() bool {
	for _, v := range []attr.Value{m.Node, m.Nodes, m.ClusterNodes, m.MgmtdIP, m.MgmtdPort, m.Services} {
		if !fullyKnown(v) {
			return false
		}
	}
	return true
}

func fullyKnown(v attr.Value) bool {
	tv, err := v.ToTerraformValue(context.Background())
	return err == nil && tv.IsFullyKnown()
}

// ha converts the model; placeholders stand in for unknown WWNs (for the
// plan-time refusals of a first apply only).
func (m *beegfsHAServicesModel) ha(auth secretInput, placeholders bool) beegfs.HA {
	ctx := context.Background()
	h := beegfs.HA{MgmtdIP: m.MgmtdIP.ValueString(), MgmtdPort: intOr(m.MgmtdPort, beegfs.DefaultMgmtPort), Auth: beegfs.Auth(auth)}
	_ = m.Nodes.ElementsAs(ctx, &h.Nodes, true)
	var all []string
	_ = m.ClusterNodes.ElementsAs(ctx, &all, true)
	for _, n := range all {
		if !slices.Contains(h.Nodes, n) {
			h.Others = append(h.Others, n)
		}
	}
	var svcs []beegfsHAServiceModel
	_ = m.Services.ElementsAs(ctx, &svcs, true)
	ports := map[string]int{beegfs.KindManagement: beegfs.DefaultMgmtPort, beegfs.KindMetadata: beegfs.DefaultMetaPort, beegfs.KindStorage: beegfs.DefaultStorPort}
	vol := 0
	for _, s := range svcs {
		kind := s.Kind.ValueString()
		settings, _ := settingsMap(s.Settings)
		svc := beegfs.HAService{Kind: kind, Name: s.Name.ValueString(), FloatingIP: s.FloatingIP.ValueString(), Interface: s.Interface.ValueString(),
			Preferred: s.PreferredNode.ValueString(), With: s.With.ValueString(), Directory: s.Directory.ValueString(),
			NodeID: int(s.NodeID.ValueInt64()), Port: intOr(s.Port, ports[kind]), Settings: settings}
		if !s.NumaZone.IsNull() && !s.NumaZone.IsUnknown() {
			z := int(s.NumaZone.ValueInt64())
			svc.NumaZone = &z
		}
		var ts []beegfsHATargetModel
		_ = s.Targets.ElementsAs(ctx, &ts, true)
		for _, t := range ts {
			vol++
			wwn := t.WWN.ValueString()
			if t.WWN.IsUnknown() && placeholders {
				wwn = fmt.Sprintf("%032x", vol)
			}
			ht := beegfs.HATarget{Target: beegfs.Target{WWN: wwn, Kind: kind, MountPoint: t.MountPoint.ValueString(),
				SegmentBytes: t.SegmentBytes.ValueInt64(), DataDrives: int(t.DataDrives.ValueInt64())}}
			_ = t.MountOptions.ElementsAs(ctx, &ht.MountOptions, true)
			_ = t.MappedTo.ElementsAs(ctx, &ht.MappedTo, true)
			svc.Targets = append(svc.Targets, ht)
		}
		var sts []beegfsHAStorageTargetModel
		_ = s.StorageTargets.ElementsAs(ctx, &sts, true)
		for _, st := range sts {
			svc.StorageTargets = append(svc.StorageTargets, beegfs.StorageTarget{ID: int(st.ID.ValueInt64()), Directory: st.Directory.ValueString(),
				Pool: intOr(st.Pool, 1)})
		}
		h.Services = append(h.Services, svc)
	}
	return h
}

func (m *beegfsHAServicesModel) items(auth secretInput) ([]protocol.Item, path.Path, error) {
	items, err := m.ha(auth, false).NodeItems(m.Node.ValueString())
	return items, haErrorPath(err), err
}

// haErrorPath follows the whole field a render error names
// ("services[1].targets[0].mapped_to") down to its attribute.
func haErrorPath(err error) path.Path {
	if err == nil {
		return path.Empty()
	}
	field, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), beegfs.ErrInvalid.Error()+": "), " ")
	field = strings.TrimSuffix(field, ":")
	top := map[string]bool{"services": true, "nodes": true, "node": true, "cluster_nodes": true, "mgmtd_ip": true, "mgmtd_port": true, "conn_auth_secret": true}
	at := path.Empty()
	for i, part := range strings.Split(field, ".") {
		name, idx, hasIdx := part, 0, false
		if j := strings.Index(part, "["); j > 0 && strings.HasSuffix(part, "]") {
			if n, err := strconv.Atoi(part[j+1 : len(part)-1]); err == nil {
				name, idx, hasIdx = part[:j], n, true
			}
		}
		if i == 0 {
			if !top[name] {
				return path.Root("services")
			}
			at = path.Root(name)
		} else {
			at = at.AtName(name)
		}
		if hasIdx {
			at = at.AtListIndex(idx)
		}
	}
	return at
}

func (m *beegfsHAServicesModel) itemPath(int, string) path.Path { return path.Root("services") }

func (m *beegfsHAServicesModel) fill() {
	h := m.ha(secretInput{Unread: true}, false)
	r, err := h.Resources()
	if err != nil {
		return
	}
	str := func(s string) attr.Value {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	strMap := func(mm map[string]string) attr.Value {
		if len(mm) == 0 {
			return types.MapNull(types.StringType)
		}
		return types.MapValueMust(types.StringType, stringMapValues(mm))
	}
	var groups []attr.Value
	for _, g := range r.Groups {
		var members []attr.Value
		for _, p := range g.Members {
			members = append(members, types.ObjectValueMust(haPrimType.AttrTypes, map[string]attr.Value{"id": str(p.ID), "class": str(p.Class),
				"provider": str(p.Provider), "type": str(p.Type), "params": strMap(p.Params), "meta": strMap(p.Meta), "ops": opsValue(p.Ops)}))
		}
		groups = append(groups, types.ObjectValueMust(haGroupType.AttrTypes, map[string]attr.Value{"id": str(g.ID), "meta": strMap(g.Meta),
			"members": types.ListValueMust(haPrimType, members)}))
	}
	m.Groups = types.ListValueMust(haGroupType, groups)
	var locs, cols, ords []attr.Value
	for _, l := range r.Locations {
		locs = append(locs, types.ObjectValueMust(haLocType.AttrTypes, map[string]attr.Value{"id": str(l.ID), "rsc": str(l.Rsc), "node": str(l.Node), "score": str(l.Score)}))
	}
	for _, c := range r.Colocations {
		cols = append(cols, types.ObjectValueMust(haColType.AttrTypes, map[string]attr.Value{"id": str(c.ID), "rsc": str(c.Rsc), "with_rsc": str(c.WithRsc), "score": str(c.Score)}))
	}
	for _, o := range r.Orders {
		ords = append(ords, types.ObjectValueMust(haOrdType.AttrTypes, map[string]attr.Value{"id": str(o.ID), "first": str(o.First), "then": str(o.Then), "kind": str(o.Kind)}))
	}
	m.Locations = types.ListValueMust(haLocType, locs)
	m.Colocations = types.ListValueMust(haColType, cols)
	m.Orders = types.ListValueMust(haOrdType, ords)
	units := map[string]string{}
	for _, s := range h.Services {
		units[s.Name] = s.Unit()
	}
	m.Units = types.MapValueMust(types.StringType, stringMapValues(units))
}

func opsValue(ops []pacemaker.Operation) attr.Value {
	if len(ops) == 0 {
		return types.ListNull(haOpType)
	}
	var out []attr.Value
	for _, op := range ops {
		out = append(out, types.ObjectValueMust(haOpType.AttrTypes, map[string]attr.Value{"name": types.StringValue(op.Name),
			"interval": types.StringValue(op.Interval), "timeout": types.StringValue(op.Timeout)}))
	}
	return types.ListValueMust(haOpType, out)
}

func stringMapValues(m map[string]string) map[string]attr.Value {
	out := map[string]attr.Value{}
	for k, v := range m {
		out[k] = types.StringValue(v)
	}
	return out
}

// ModifyPlan refuses a bad pair at plan even while volume WWNs are unknown
// (before the arrays have made them): mapping, floating IPs, nodes and
// stores do not depend on them.
func (r *beegfsHAServicesResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.nodeService.ModifyPlan(ctx, req, resp)
	if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() {
		return
	}
	var plan beegfsHAServicesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.known() {
		return // rendered (and checked) by the shell
	}
	for _, v := range []attr.Value{plan.Node, plan.Nodes, plan.ClusterNodes, plan.MgmtdIP, plan.MgmtdPort} {
		if !fullyKnown(v) {
			return
		}
	}
	h := plan.ha(secretInput{Secret: "placeholder-secret-0123456789"}, true)
	if !structureKnown(ctx, plan.Services) {
		return
	}
	if _, err := h.NodeItems(plan.Node.ValueString()); err != nil {
		beegfsInvalid(&resp.Diagnostics, haErrorPath(err), err)
	}
}

// structureKnown: every service attribute but target WWNs is known.
func structureKnown(ctx context.Context, services types.List) bool {
	if services.IsUnknown() {
		return false
	}
	var svcs []beegfsHAServiceModel
	if d := services.ElementsAs(ctx, &svcs, true); d.HasError() {
		return false
	}
	for _, s := range svcs {
		for _, v := range []attr.Value{s.Kind, s.Name, s.FloatingIP, s.Interface, s.PreferredNode, s.With, s.Directory, s.NodeID, s.Port,
			s.NumaZone, s.Settings, s.StorageTargets} {
			if !fullyKnown(v) {
				return false
			}
		}
		if s.Targets.IsUnknown() {
			return false
		}
		var ts []beegfsHATargetModel
		if d := s.Targets.ElementsAs(ctx, &ts, true); d.HasError() {
			return false
		}
		for _, t := range ts {
			for _, v := range []attr.Value{t.MountPoint, t.SegmentBytes, t.DataDrives, t.MountOptions, t.MappedTo} {
				if !fullyKnown(v) {
					return false
				}
			}
		}
	}
	return true
}
