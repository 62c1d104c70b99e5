package provider

// hpcstorage_ha_cluster: a pacemaker/corosync cluster. Every node gets
// corosync.conf, the authkey, the fence password files and the two units
// through the node-service shell (nodeRun, one owner per node); the CIB is
// read and patched from one node only (the lowest node id), with a diff
// crm_diff makes there, so a change of one parameter sends one change.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
)

// NewHAClusterResource is the hpcstorage_ha_cluster resource.
func NewHAClusterResource() resource.Resource { return &haClusterResource{} }

type haClusterResource struct {
	data *providerData
}

type haClusterModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Transport         types.String `tfsdk:"transport"`
	PacemakerVersion  types.String `tfsdk:"pacemaker_version"`
	TwoNode           types.Bool   `tfsdk:"two_node"`
	Networks          types.List   `tfsdk:"networks"`
	Authkey           types.String `tfsdk:"authkey"`
	AuthkeyFile       types.String `tfsdk:"authkey_file"`
	AuthkeyHash       types.String `tfsdk:"authkey_hash"`
	FencePasswordHash types.String `tfsdk:"fence_password_hash"`
	SSH               types.Object `tfsdk:"ssh"`
	Nodes             types.Map    `tfsdk:"nodes"`
	Properties        types.Map    `tfsdk:"properties"`
	ResourceDefaults  types.Map    `tfsdk:"resource_defaults"`
	Groups            types.List   `tfsdk:"groups"`
	Primitives        types.List   `tfsdk:"primitives"`
	Locations         types.List   `tfsdk:"locations"`
	Colocations       types.List   `tfsdk:"colocations"`
	Orders            types.List   `tfsdk:"orders"`
	PushNode          types.String `tfsdk:"push_node"`
	Placement         types.Map    `tfsdk:"placement"`
	FailedActions     types.List   `tfsdk:"failed_actions"`
	FenceHistory      types.List   `tfsdk:"fence_history"`
	Drift             types.Map    `tfsdk:"drift"`
}

type haNodeModel struct {
	Host    types.String `tfsdk:"host"`
	NodeID  types.Int64  `tfsdk:"node_id"`
	Addrs   types.List   `tfsdk:"addrs"`
	Standby types.Bool   `tfsdk:"standby"`
	Fence   types.Object `tfsdk:"fence"`
}

type haFenceModel struct {
	Endpoint     types.String `tfsdk:"endpoint"`
	IP           types.String `tfsdk:"ip"`
	SystemsURI   types.String `tfsdk:"systems_uri"`
	SSLInsecure  types.Bool   `tfsdk:"ssl_insecure"`
	Username     types.String `tfsdk:"username"`
	PasswordFile types.String `tfsdk:"password_file"`
	Params       types.Map    `tfsdk:"params"`
}

type haPrimitiveModel struct {
	ID       types.String `tfsdk:"id"`
	Class    types.String `tfsdk:"class"`
	Provider types.String `tfsdk:"provider"`
	Type     types.String `tfsdk:"type"`
	Params   types.Map    `tfsdk:"params"`
	Meta     types.Map    `tfsdk:"meta"`
	Ops      types.List   `tfsdk:"ops"`
}

type haOpModel struct {
	Name     types.String `tfsdk:"name"`
	Interval types.String `tfsdk:"interval"`
	Timeout  types.String `tfsdk:"timeout"`
}

type haGroupModel struct {
	ID      types.String `tfsdk:"id"`
	Meta    types.Map    `tfsdk:"meta"`
	Members types.List   `tfsdk:"members"`
}

type haLocationModel struct {
	ID    types.String `tfsdk:"id"`
	Rsc   types.String `tfsdk:"rsc"`
	Node  types.String `tfsdk:"node"`
	Score types.String `tfsdk:"score"`
}

type haColocationModel struct {
	ID      types.String `tfsdk:"id"`
	Rsc     types.String `tfsdk:"rsc"`
	WithRsc types.String `tfsdk:"with_rsc"`
	Score   types.String `tfsdk:"score"`
}

type haOrderModel struct {
	ID    types.String `tfsdk:"id"`
	First types.String `tfsdk:"first"`
	Then  types.String `tfsdk:"then"`
	Kind  types.String `tfsdk:"kind"`
}

var reClusterName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,31}$`)

// primitiveClasses are what groups and primitives take; fence devices are
// made from each node's fence block.
var primitiveClasses = []string{"ocf", "systemd", "service"}

func (r *haClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ha_cluster"
}

func haPrimitiveAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{Required: true, MarkdownDescription: "Resource id, unique in the cluster (an XML id)."},
		"class": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("ocf"),
			MarkdownDescription: "Resource class: " + strings.Join(quoteAll(primitiveClasses), ", ") + ". Default `ocf`. Fence " +
				"devices are not declared here: each node's `fence` block makes one.",
			Validators: []validator.String{stringvalidator.OneOf(primitiveClasses...)}},
		"provider": schema.StringAttribute{Optional: true,
			MarkdownDescription: "OCF provider (`heartbeat`, `pacemaker`); `ocf` resources without one use `heartbeat`."},
		"type": schema.StringAttribute{Required: true,
			MarkdownDescription: "Agent (`Filesystem`, `IPaddr2`...) or unit name for `systemd`. OCF agents and their parameters " +
				"are checked at plan time against the agents' own meta-data (resource-agents and pacemaker), so a misspelt parameter " +
				"fails the plan where `crm_verify` would let it through."},
		"params": schema.MapAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Instance parameters. Required parameters of the agent must be set and not empty."},
		"meta": schema.MapAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Meta attributes (`target-role`, `resource-stickiness`...)."},
		"ops": schema.ListNestedAttribute{Optional: true,
			MarkdownDescription: "Operations. Without any, the agent's own start, stop and monitor timeouts are used (what pcs " +
				"copies from the meta-data).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":     schema.StringAttribute{Required: true, MarkdownDescription: "`start`, `stop`, `monitor`..."},
				"interval": schema.StringAttribute{Optional: true, MarkdownDescription: "Interval, e.g. `30s` (monitor)."},
				"timeout":  schema.StringAttribute{Optional: true, MarkdownDescription: "Timeout, e.g. `90s`."},
			}}},
	}
}

func (r *haClusterResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	strMap := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A pacemaker/corosync cluster (pacemaker 1.1 on RHEL 7 and 2.x; 3.x with `pacemaker_version = \"3\"`), " +
			"as an administrator used to `pcs` " +
			"would build it: `corosync.conf` (rings on the cluster network, `two_node` for a pair) and the authkey (mode " +
			"`0400`) on every node, corosync and pacemaker enabled and running, and the CIB made from these attributes: one " +
			"`fence_redfish` device per node through its BMC (never allowed on the node it fences, its password in a " +
			"root-only file read by `password_script`, never in the CIB), resource groups, primitives, constraints, " +
			"properties and per-node standby.\n\n" +
			"The CIB is read and changed from one node only (`push_node`, the lowest node id), never from two: apply reads " +
			"the live configuration, `crm_diff --no-version` makes a patch on that node and `cibadmin --patch` applies it " +
			"(what `pcs cluster cib-push diff-against` does), so one changed parameter sends one change and resources that " +
			"did not change are not touched. A configuration changed by hand (`pcs resource update`, `crm_resource`) shows " +
			"in `drift` at the next plan, which then puts it back. `placement` says where each resource runs.\n\n" +
			"After an unplanned failover (a node crashed and was fenced, a resource failed), the next plan is not empty: " +
			"`failed_actions` and `fence_history` list what happened, and `drift` has `failed_actions`, `fence_history` and, " +
			"when a resource runs away from the node its location constraints prefer while that node is back (stickiness " +
			"keeps it where it failed over to), `placement`. Applying that plan does what an administrator of NetApp's BeeGFS " +
			"HA role does: `pcs resource cleanup` (`crm_resource --cleanup`), `pcs stonith history cleanup` (`stonith_admin " +
			"--history '*' --cleanup`), then `pcs resource relocate run` for the resources away from home (`crm_resource " +
			"--move` to the preferred node, then `--clear` once it runs there). Every apply ends with that failback, so " +
			"`standby = false` after planned maintenance brings the node's groups back even when stickiness would keep them " +
			"on the peer. To keep a resource where it is, give its node the higher location score.\n\n" +
			"Refused at plan time: a cluster without fencing, a one-node or two-node cluster without `two_node`, a fence " +
			"device constrained onto the node it fences, an unknown agent or parameter, an empty required parameter (an " +
			"`exportfs` without `clientspec`). Destroy removes every resource from the CIB (they stop; file systems are " +
			"unmounted, never wiped), stops and disables pacemaker and corosync and removes the files it wrote.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The cluster name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				MarkdownDescription: "Cluster name (corosync `cluster_name`, the CIB's `cluster-name`): lower case, digits, `_ . -`, " +
					"up to 32 characters. Changing it makes a new cluster.",
				Validators:    []validator.String{stringvalidator.RegexMatches(reClusterName, "want 1-32 of a-z 0-9 _ . -, starting with a letter or digit")},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"transport": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("knet"),
				MarkdownDescription: "Corosync transport: `knet` (corosync 3, RHEL 8) or `udpu` (corosync 2, RHEL 7). Default `knet`.",
				Validators:          []validator.String{stringvalidator.OneOf(pacemaker.Transports...)}},
			"pacemaker_version": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(pacemaker.DefaultVersion),
				MarkdownDescription: "The nodes' Pacemaker major version: " + strings.Join(quoteAll(pacemaker.Versions), ", ") + ". Default `" +
					pacemaker.DefaultVersion + "`, what the designs were validated with (Pacemaker 1.1 on RHEL 7, 2.x on RHEL 8 and 9). `3` " +
					"is Pacemaker 3 (RHEL 10): the CIB declares `validate-with=\"pacemaker-4.0\"`, and a setting Pacemaker 3 removed fails " +
					"the plan naming its attribute: `stonith-action = \"poweroff\"` (use `off`), the `crmd-finalization-timeout`, " +
					"`crmd-integration-timeout` and `crmd-transition-delay` properties (use `join-finalization-timeout`, " +
					"`join-integration-timeout`, `transition-delay`), `remove-after-stop`, the `restart-type` meta attribute, a negative " +
					"`migration-threshold`, and fence parameters the agent marks deprecated (`ipaddr`, `login`, `passwd`: use `ip`, " +
					"`username`, `password_script`). Apply refuses a cluster whose running Pacemaker (the `dc-version` its controller " +
					"writes) is of another version.",
				Validators: []validator.String{stringvalidator.OneOf(pacemaker.Versions...)}},
			"two_node": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Corosync `two_node`: the survivor of a pair keeps quorum and fencing decides who survives. " +
					"Required for two nodes (and for one node whose partner joins later)."},
			"networks": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Cluster networks (CIDR), one per ring: each node's ring addresses must lie in them."},
			"authkey": schema.StringAttribute{Optional: true, WriteOnly: true, Sensitive: true,
				MarkdownDescription: fmt.Sprintf("Corosync authkey (%d to %d bytes), written to `%s` (mode `0400`) on every node. "+
					"Write-only (Terraform 1.11 or later): state keeps only `authkey_hash`. Exactly one of this and `authkey_file`.",
					pacemaker.MinAuthkeyBytes, pacemaker.MaxAuthkeyBytes, pacemaker.AuthKey),
				Validators: []validator.String{stringvalidator.ExactlyOneOf(path.MatchRoot("authkey_file"))}},
			"authkey_file": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Path of a key file (e.g. made by `corosync-keygen -k FILE`), read whole on the machine running " +
					"Terraform at plan and apply time. Only the path and the hash reach state."},
			"authkey_hash": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`scrypt:<hex>` of the authkey, so a new key shows as an update without being stored."},
			"fence_password_hash": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`scrypt:<hex>` of the BMC passwords the fence devices use, so a rotated password shows as an update."},
			"ssh": sshResourceAttribute(),
			"nodes": schema.MapNestedAttribute{Required: true,
				MarkdownDescription: "Cluster nodes by name (the name corosync and fencing know, usually the host name).",
				Validators:          []validator.Map{mapvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"host": schema.StringAttribute{Required: true,
						MarkdownDescription: "SSH address of the node (`name`, `address` or `name:port`), with the provider's `ssh` settings."},
					"node_id": schema.Int64Attribute{Optional: true,
						MarkdownDescription: "Corosync node id. Default: 1, 2... in the order of the node names."},
					"addrs": schema.ListAttribute{Required: true, ElementType: types.StringType,
						MarkdownDescription: "Ring addresses, ring 0 first (`knet` up to 8, `udpu` up to 2).",
						Validators:          []validator.List{listvalidator.SizeAtLeast(1)}},
					"standby": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Node standby (`pcs node standby`): its resources move to the other nodes. For " +
							"planned maintenance; set it back to `false` to let them return (by their location preferences)."},
					"fence": schema.SingleNestedAttribute{Optional: true,
						MarkdownDescription: "The node's `fence_redfish` device, through its BMC. Every node needs one: a cluster " +
							"without fencing is refused.",
						Attributes: map[string]schema.Attribute{
							"endpoint": schema.StringAttribute{Optional: true,
								MarkdownDescription: "Provider endpoint of the node's BMC (the `endpoint` of its `hpcstorage_server`): " +
									"`ip`, `username`, the password and `ssl_insecure` default to its settings."},
							"ip": schema.StringAttribute{Optional: true,
								MarkdownDescription: "BMC address as the cluster nodes reach it, `host` or `host:port`. Default: the endpoint's URL."},
							"systems_uri": schema.StringAttribute{Required: true,
								MarkdownDescription: "The node's Redfish system, `/redfish/v1/Systems/<system_id of its hpcstorage_server>`. " +
									"Always set: without it `fence_redfish` powers the last system the BMC lists."},
							"ssl_insecure": schema.BoolAttribute{Optional: true,
								MarkdownDescription: "Skip the BMC certificate check (`fence_redfish` has no CA option; a verified BMC " +
									"needs its CA in the nodes' trust store). Default: the endpoint's `insecure`."},
							"username": schema.StringAttribute{Optional: true, MarkdownDescription: "BMC user. Default: the endpoint's."},
							"password_file": schema.StringAttribute{Optional: true,
								MarkdownDescription: "File (first line) with the BMC password, read where Terraform runs. Default: " +
									"the endpoint's password. It is written on every node to a `0400` file that `password_script` reads."},
							"params": schema.MapAttribute{Optional: true, ElementType: types.StringType,
								MarkdownDescription: "More `fence_redfish` parameters, e.g. `pcmk_delay_base = \"10s\"` on one node of a pair " +
									"so the two never fence each other at once."},
						}},
				}}},
			"properties":        strMap("Cluster properties (`no-quorum-policy`...). `stonith-enabled` is always `true`; `cluster-name` is `name`."),
			"resource_defaults": strMap("Resource defaults (`resource-stickiness`, `migration-threshold`...)."),
			"groups": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "Resource groups: members start in order on one node and stop in reverse.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":   schema.StringAttribute{Required: true, MarkdownDescription: "Group id."},
					"meta": strMap("Meta attributes of the group."),
					"members": schema.ListNestedAttribute{Required: true, MarkdownDescription: "Primitives, in start order.",
						NestedObject: schema.NestedAttributeObject{Attributes: haPrimitiveAttributes()}},
				}}},
			"primitives": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Resources outside any group.",
				NestedObject: schema.NestedAttributeObject{Attributes: haPrimitiveAttributes()}},
			"locations": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Location constraints (`pcs constraint location`).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":    schema.StringAttribute{Required: true, MarkdownDescription: "Constraint id."},
					"rsc":   schema.StringAttribute{Required: true, MarkdownDescription: "Resource or group."},
					"node":  schema.StringAttribute{Required: true, MarkdownDescription: "Node name."},
					"score": schema.StringAttribute{Required: true, MarkdownDescription: "Integer, `INFINITY` or `-INFINITY`."},
				}}},
			"colocations": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Colocation constraints.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":       schema.StringAttribute{Required: true, MarkdownDescription: "Constraint id."},
					"rsc":      schema.StringAttribute{Required: true, MarkdownDescription: "Resource placed..."},
					"with_rsc": schema.StringAttribute{Required: true, MarkdownDescription: "...with (positive score) or away from this one."},
					"score":    schema.StringAttribute{Required: true, MarkdownDescription: "Integer, `INFINITY` or `-INFINITY`."},
				}}},
			"orders": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Order constraints.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":    schema.StringAttribute{Required: true, MarkdownDescription: "Constraint id."},
					"first": schema.StringAttribute{Required: true, MarkdownDescription: "Started first."},
					"then":  schema.StringAttribute{Required: true, MarkdownDescription: "Started after `first`."},
					"kind": schema.StringAttribute{Optional: true, MarkdownDescription: "`Mandatory` (default), `Optional` or `Serialize`.",
						Validators: []validator.String{stringvalidator.OneOf(pacemaker.OrderKinds...)}},
				}}},
			"push_node": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The node that reads and patches the CIB for the whole cluster (the lowest node id)."},
			"placement": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Where each resource, group and fence device runs (node name, `\"\"` when stopped), read back " +
					"from `crm_mon -1 -X` after apply and at every refresh."},
			"failed_actions": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Failed resource actions (`pcs status`' \"Failed Resource Actions\"), read from `crm_mon -1 -X` " +
					"at every refresh: `<operation> on <node>: <status> (rc N) at <time>`. Any shows in `drift` as `failed_actions`; the " +
					"apply runs `crm_resource --cleanup` (`pcs resource cleanup`), which clears them and their fail counts."},
			"fence_history": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The fencer's history (`crm_mon --fence-history=3`): `<action> of <node>: <status>, by <node> at " +
					"<time>`, newest first. A node fenced after a crash shows here and in `drift` as `fence_history`; the apply runs " +
					"`stonith_admin --history '*' --cleanup` (`pcs stonith history cleanup`)."},
			"drift": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "What differs from the last apply: `<node>/<item>` for files and units on a node, `cib` for the " +
					"cluster configuration (`-` what only the cluster has, `+` what the configuration wants), and after a failover " +
					"`failed_actions`, `fence_history` and `placement` (resources away from their preferred node). Empty after every apply; " +
					"a refresh that finds changes made by hand fills it, so the plan shows an update that puts them back."},
		},
	}
}

func quoteAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = "`" + s + "`"
	}
	return out
}

func (r *haClusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// haCluster is a model turned into the renderer's input, with the SSH host
// of each node.
type haCluster struct {
	c     pacemaker.Cluster
	hosts map[string]string
	// names are the node names sorted: fence_devices[i] fences names[i].
	names []string
}

// cluster converts the model; known is false while an input is unknown.
// Fence values from an endpoint need the provider's settings: without
// them (validation) placeholders stand in so everything else is checked.
// A partly known model converts too, for the rules (pacemaker.Rules): an
// unknown value is "" in its place, an unknown map or list is left out.
func (r *haClusterResource) cluster(ctx context.Context, m *haClusterModel, diags *diag.Diagnostics) (haCluster, bool) {
	h := haCluster{hosts: map[string]string{}}
	known := !(m.Name.IsUnknown() || m.Transport.IsUnknown() || m.PacemakerVersion.IsUnknown() || m.TwoNode.IsUnknown() || m.Networks.IsUnknown() || m.Nodes.IsUnknown() ||
		m.Properties.IsUnknown() || m.ResourceDefaults.IsUnknown() || m.Groups.IsUnknown() || m.Primitives.IsUnknown() ||
		m.Locations.IsUnknown() || m.Colocations.IsUnknown() || m.Orders.IsUnknown())
	c := pacemaker.Cluster{Name: m.Name.ValueString(), Transport: stringOr(m.Transport, "knet"), TwoNode: m.TwoNode.ValueBool(),
		Version: stringOr(m.PacemakerVersion, pacemaker.DefaultVersion)}
	strs := func(l types.List) []string {
		var out []string
		for _, v := range l.Elements() {
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				known = false
			}
			out = append(out, s.ValueString())
		}
		return out
	}
	maps := func(v types.Map) map[string]string {
		if v.IsUnknown() {
			known = false
			return nil
		}
		out := map[string]string{}
		for k, e := range v.Elements() {
			s, ok := e.(types.String)
			if !ok || s.IsUnknown() {
				known = false
			}
			out[k] = s.ValueString()
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	// elems reads a list or map of objects unless it is unknown.
	elems := func(v interface {
		IsUnknown() bool
		ElementsAs(context.Context, any, bool) diag.Diagnostics
	}, target any) {
		if !v.IsUnknown() {
			diags.Append(v.ElementsAs(ctx, target, false)...)
		}
	}
	c.Networks = strs(m.Networks)
	c.Properties = maps(m.Properties)
	c.ResourceDefaults = maps(m.ResourceDefaults)
	var nodes map[string]haNodeModel
	elems(m.Nodes, &nodes)
	for name := range nodes {
		h.names = append(h.names, name)
	}
	sort.Strings(h.names)
	c.Fences = []pacemaker.FenceTarget{}
	for i, name := range h.names {
		n := nodes[name]
		if n.Host.IsUnknown() || n.NodeID.IsUnknown() || n.Addrs.IsUnknown() || n.Standby.IsUnknown() || n.Fence.IsUnknown() {
			known = false
		}
		h.hosts[name] = n.Host.ValueString()
		id := i + 1
		if !n.NodeID.IsNull() && !n.NodeID.IsUnknown() {
			id = int(n.NodeID.ValueInt64())
		}
		c.Nodes = append(c.Nodes, pacemaker.Node{Name: name, ID: id, Addrs: strs(n.Addrs), Standby: n.Standby.ValueBool()})
		if n.Fence.IsNull() || n.Fence.IsUnknown() {
			continue
		}
		var f haFenceModel
		diags.Append(n.Fence.As(ctx, &f, objectAsOptions)...)
		c.Fences = append(c.Fences, r.fenceTarget(name, f))
		dev, ok := r.fenceDevice(name, f, diags)
		if !ok {
			known = false
			continue
		}
		c.Fencing = append(c.Fencing, dev)
	}
	prim := func(p haPrimitiveModel) pacemaker.Primitive {
		if p.ID.IsUnknown() || p.Class.IsUnknown() || p.Provider.IsUnknown() || p.Type.IsUnknown() || p.Ops.IsUnknown() {
			known = false
		}
		class := stringOr(p.Class, "ocf")
		prov := p.Provider.ValueString()
		if class == "ocf" && prov == "" {
			prov = "heartbeat"
		}
		out := pacemaker.Primitive{ID: p.ID.ValueString(), Class: class, Provider: prov, Type: p.Type.ValueString(),
			Params: maps(p.Params), Meta: maps(p.Meta)}
		var ops []haOpModel
		elems(p.Ops, &ops)
		for _, o := range ops {
			if o.Name.IsUnknown() || o.Interval.IsUnknown() || o.Timeout.IsUnknown() {
				known = false
			}
			out.Ops = append(out.Ops, pacemaker.Operation{Name: o.Name.ValueString(), Interval: o.Interval.ValueString(), Timeout: o.Timeout.ValueString()})
		}
		return out
	}
	var groups []haGroupModel
	elems(m.Groups, &groups)
	for _, g := range groups {
		if g.ID.IsUnknown() || g.Members.IsUnknown() {
			known = false
		}
		pg := pacemaker.Group{ID: g.ID.ValueString(), Meta: maps(g.Meta)}
		var members []haPrimitiveModel
		elems(g.Members, &members)
		for _, p := range members {
			pg.Members = append(pg.Members, prim(p))
		}
		c.Groups = append(c.Groups, pg)
	}
	var prims []haPrimitiveModel
	elems(m.Primitives, &prims)
	for _, p := range prims {
		c.Primitives = append(c.Primitives, prim(p))
	}
	var locs []haLocationModel
	elems(m.Locations, &locs)
	for _, l := range locs {
		if l.ID.IsUnknown() || l.Rsc.IsUnknown() || l.Node.IsUnknown() || l.Score.IsUnknown() {
			known = false
		}
		c.Locations = append(c.Locations, pacemaker.Location{ID: l.ID.ValueString(), Rsc: l.Rsc.ValueString(), Node: l.Node.ValueString(), Score: l.Score.ValueString()})
	}
	var cols []haColocationModel
	elems(m.Colocations, &cols)
	for _, l := range cols {
		if l.ID.IsUnknown() || l.Rsc.IsUnknown() || l.WithRsc.IsUnknown() || l.Score.IsUnknown() {
			known = false
		}
		c.Colocations = append(c.Colocations, pacemaker.Colocation{ID: l.ID.ValueString(), Rsc: l.Rsc.ValueString(), WithRsc: l.WithRsc.ValueString(), Score: l.Score.ValueString()})
	}
	var ords []haOrderModel
	elems(m.Orders, &ords)
	for _, o := range ords {
		if o.ID.IsUnknown() || o.First.IsUnknown() || o.Then.IsUnknown() || o.Kind.IsUnknown() {
			known = false
		}
		c.Orders = append(c.Orders, pacemaker.Order{ID: o.ID.ValueString(), First: o.First.ValueString(), Then: o.Then.ValueString(), Kind: o.Kind.ValueString()})
	}
	h.c = c
	return h, known && !diags.HasError()
}

// fenceTarget is what a node's fence block aims at, for the rules: its
// endpoint, the BMC address (ip, else the endpoint's once the provider's
// settings are read) and system; "" where not known yet.
func (r *haClusterResource) fenceTarget(node string, f haFenceModel) pacemaker.FenceTarget {
	t := pacemaker.FenceTarget{Node: node, Endpoint: f.Endpoint.ValueString(), Address: f.IP.ValueString(), SystemsURI: f.SystemsURI.ValueString()}
	if r.data != nil && t.Address == "" && !r.data.Deferred[t.Endpoint] {
		if u, err := url.Parse(r.data.Endpoints[t.Endpoint].URL); err == nil {
			t.Address = u.Host
		}
	}
	return t
}

// fenceDevice makes a node's fence_redfish device from its fence block and
// the endpoint it names; ok is false while a value is unknown.
func (r *haClusterResource) fenceDevice(node string, f haFenceModel, diags *diag.Diagnostics) (pacemaker.FenceDevice, bool) {
	if f.Endpoint.IsUnknown() || f.IP.IsUnknown() || f.SystemsURI.IsUnknown() || f.SSLInsecure.IsUnknown() || f.Username.IsUnknown() ||
		f.PasswordFile.IsUnknown() || f.Params.IsUnknown() {
		return pacemaker.FenceDevice{}, false
	}
	at := path.Root("nodes").AtMapKey(node).AtName("fence")
	bmc := pacemaker.RedfishBMC{Node: node, Address: f.IP.ValueString(), SystemsURI: f.SystemsURI.ValueString(),
		Username: f.Username.ValueString(), Insecure: f.SSLInsecure.ValueBool()}
	if ep := f.Endpoint.ValueString(); ep != "" {
		switch {
		case r.data == nil:
			// Validation: the provider's endpoints are not read yet.
			if bmc.Address == "" {
				bmc.Address = "bmc.invalid"
			}
			if bmc.Username == "" {
				bmc.Username = "endpoint"
			}
		case r.data.Deferred[ep]:
			return pacemaker.FenceDevice{}, false
		default:
			cfg, ok := r.data.Endpoints[ep]
			if !ok {
				addError(diags, at.AtName("endpoint"), "Unknown Endpoint", fmt.Sprintf("Endpoint %q is not a Redfish endpoint of "+
					"the provider's endpoints map.", ep), nil)
				return pacemaker.FenceDevice{}, false
			}
			if bmc.Address == "" {
				u, err := url.Parse(cfg.URL)
				if err != nil || u.Host == "" {
					addError(diags, at.AtName("ip"), "Invalid BMC Address", fmt.Sprintf("Endpoint %q has URL %q; set ip.", ep, cfg.URL), err)
					return pacemaker.FenceDevice{}, false
				}
				bmc.Address = u.Host
			}
			if bmc.Username == "" {
				bmc.Username = cfg.Username
			}
			if f.SSLInsecure.IsNull() {
				bmc.Insecure = cfg.Insecure
			}
		}
	} else if bmc.Address == "" {
		addError(diags, at.AtName("ip"), "Missing BMC Address", "Set fence.endpoint (the node's BMC endpoint) or fence.ip.", nil)
		return pacemaker.FenceDevice{}, false
	}
	dev := pacemaker.RedfishFence(bmc)
	extra, _ := settingsMap(f.Params)
	for k, v := range extra {
		dev.Params[k] = v
	}
	return dev, true
}

// fencePasswords reads each fence device's password: its password_file,
// else its endpoint's password.
func (r *haClusterResource) fencePasswords(ctx context.Context, m *haClusterModel, diags *diag.Diagnostics) (map[string]string, bool) {
	var nodes map[string]haNodeModel
	diags.Append(m.Nodes.ElementsAs(ctx, &nodes, false)...)
	out := map[string]string{}
	for name, n := range nodes {
		if n.Fence.IsNull() || n.Fence.IsUnknown() {
			continue
		}
		var f haFenceModel
		diags.Append(n.Fence.As(ctx, &f, objectAsOptions)...)
		at := path.Root("nodes").AtMapKey(name).AtName("fence")
		switch {
		case f.PasswordFile.IsUnknown() || f.Endpoint.IsUnknown():
			return nil, false
		case !f.PasswordFile.IsNull():
			line, ok := firstLineOf(f.PasswordFile.ValueString(), at.AtName("password_file"), "Unreadable Password File", diags)
			if !ok {
				return nil, false
			}
			out[pacemaker.FenceID(name)] = line
		case !f.Endpoint.IsNull() && r.data != nil:
			if r.data.Deferred[f.Endpoint.ValueString()] {
				return nil, false
			}
			cfg := r.data.Endpoints[f.Endpoint.ValueString()]
			if cfg.Password == "" {
				addError(diags, at.AtName("password_file"), "Missing BMC Password", fmt.Sprintf("Endpoint %q has no password: set "+
					"its password (or HPCSTORAGE_*_PASSWORD), or fence.password_file.", f.Endpoint.ValueString()), nil)
				return nil, false
			}
			out[pacemaker.FenceID(name)] = cfg.Password
		default:
			addError(diags, at.AtName("password_file"), "Missing BMC Password", "Set fence.password_file or fence.endpoint.", nil)
			return nil, false
		}
	}
	return out, !diags.HasError()
}

func passwordsHash(pw map[string]string) string {
	keys := make([]string, 0, len(pw))
	for k := range pw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "\x00" + pw[k] + "\x00")
	}
	return secret.Hash(b.String())
}

// authkey reads the key from the configuration (write-only attribute or
// file); nil without a configuration.
func authkeyFrom(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) ([]byte, bool) {
	if config.Raw.IsNull() {
		return nil, true
	}
	var s, f types.String
	diags.Append(config.GetAttribute(ctx, path.Root("authkey"), &s)...)
	diags.Append(config.GetAttribute(ctx, path.Root("authkey_file"), &f)...)
	if s.IsUnknown() || f.IsUnknown() {
		return nil, false
	}
	var key []byte
	at := path.Root("authkey")
	switch {
	case !f.IsNull():
		b, err := readFileLimited(f.ValueString(), pacemaker.MaxAuthkeyBytes+1)
		if err != nil {
			addError(diags, path.Root("authkey_file"), "Unreadable Authkey File", "Point authkey_file at a readable key file.", err)
			return nil, false
		}
		key, at = b, path.Root("authkey_file")
	case !s.IsNull():
		key = []byte(s.ValueString())
	default:
		return nil, true
	}
	if len(key) < pacemaker.MinAuthkeyBytes || len(key) > pacemaker.MaxAuthkeyBytes {
		addError(diags, at, "Invalid Authkey", fmt.Sprintf("The key has %d bytes; corosync wants %d to %d (corosync-keygen -k FILE "+
			"makes one).", len(key), pacemaker.MinAuthkeyBytes, pacemaker.MaxAuthkeyBytes), nil)
		return nil, false
	}
	return key, true
}

// invalidCluster reports each of the renderer's errors on its attribute.
// The renderer locates them in the Cluster's terms, which are the
// resource's but for two: its nodes[i] and fence_devices[i] are elements
// of the nodes map (a fence device under its node's fence).
func (h haCluster) invalidCluster(diags *diag.Diagnostics, err error) {
	all := located.All(err)
	if len(all) == 0 {
		addError(diags, path.Empty(), "Invalid Cluster Setting", "Fix the value in the configuration.", err)
		return
	}
	mapped := make([]error, len(all))
	for i, le := range all {
		mapped[i] = &located.Error{Path: h.attrOf(le.Path), Err: le.Err, Warning: le.Warning}
	}
	addLocated(diags, path.Empty(), "Invalid Cluster Setting", "Fix the value in the configuration.", errors.Join(mapped...))
}

// attrOf maps a location in the Cluster to the resource's attribute; a
// location the schema does not have is the resource as a whole.
func (h haCluster) attrOf(p located.Path) located.Path {
	if len(p) == 0 {
		return nil
	}
	switch kind := p[0].Name; kind {
	case "nodes", "fence_devices":
		if len(p) >= 2 && p[1].IsKey() {
			return p // the rules already name the node
		}
		if len(p) < 2 || p[1].Name != "" || p[1].Index >= len(h.names) {
			return located.At("nodes")
		}
		at := located.At("nodes").Key(h.fenceNode(kind, p[1].Index))
		if kind == "fence_devices" {
			at = at.Name("fence")
		}
		return append(at, p[2:]...)
	case "name", "two_node", "transport", "pacemaker_version", "networks", "properties", "resource_defaults", "groups",
		"primitives", "locations", "colocations", "orders", "authkey":
		return p
	}
	return nil
}

// fenceSystems reads the host name each fence device's system reports on
// its BMC (one GET per node, only for a plan that changes the cluster) and
// refuses a device whose system is missing there or is another node
// (FenceSystemRules). A BMC that does not answer is left to the fencer's
// own monitor.
func (h haCluster) fenceSystems(ctx context.Context, d *providerData, diags *diag.Diagnostics) {
	names := map[string]string{}
	for _, t := range h.c.Fences {
		if t.Endpoint == "" || t.SystemsURI == "" {
			continue
		}
		var quiet diag.Diagnostics
		ep := d.planEndpoint(t.Endpoint, path.Empty(), &quiet)
		var sys struct{ HostName string }
		if ep == nil {
			continue
		}
		_, err := ep.Get(ctx, t.SystemsURI, &sys)
		switch {
		case err == nil:
			names[t.Node] = sys.HostName
		case redfish.IsGone(err):
			addError(diags, path.Root("nodes").AtMapKey(t.Node).AtName("fence").AtName("systems_uri"), "Invalid Cluster Setting",
				fmt.Sprintf("Endpoint %q has no system at %s: fence_redfish would find nothing to power off. Use the "+
					"system_id of the node's hpcstorage_server.", t.Endpoint, t.SystemsURI), err)
		}
	}
	if errs := pacemaker.FenceSystemRules(h.c.Nodes, h.c.Fences, names); len(errs) > 0 {
		h.invalidCluster(diags, errors.Join(errs...))
	}
}

// brokenRules reports the rules a partly known cluster already breaks
// (Validate runs them with the rest once everything is known).
func (h haCluster) brokenRules(diags *diag.Diagnostics) {
	if errs := h.c.Rules(h.c.Fences); len(errs) > 0 {
		h.invalidCluster(diags, errors.Join(errs...))
	}
}

// fenceNode is the node of nodes[i] or fence_devices[i].
func (h haCluster) fenceNode(kind string, i int) string {
	if kind == "nodes" {
		return h.c.Nodes[i].Name
	}
	if i < len(h.c.Fencing) {
		return h.c.Fencing[i].Node
	}
	return h.names[i]
}

// owner of the node items; the push node's CIB documents have their own.
func haOwner(cluster string) string { return "ha-cluster-" + cluster }

func (r *haClusterResource) nodes() *nodeAccess {
	if r.data == nil {
		return nil
	}
	return r.data.Nodes
}

func (r *haClusterResource) run(m *haClusterModel, h haCluster, node, owner string) nodeRun {
	return nodeRun{nodes: r.nodes(), host: h.hosts[node], ssh: m.SSH, owner: owner, at: func(int, string) path.Path {
		return path.Root("nodes").AtMapKey(node)
	}}
}

// byID is the nodes in node id order: the push node first.
func (h haCluster) byID() []pacemaker.Node {
	out := append([]pacemaker.Node(nil), h.c.Nodes...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (r *haClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m haClusterModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, known := r.cluster(ctx, &m, &resp.Diagnostics)
	if !known {
		if !resp.Diagnostics.HasError() {
			h.brokenRules(&resp.Diagnostics)
		}
		return
	}
	if err := h.c.Validate(); err != nil {
		h.invalidCluster(&resp.Diagnostics, err)
	}
}

// ModifyPlan checks the cluster against the renderer (so a plan fails on
// the attribute at fault), fills the computed values and checks every
// node's files and units read-only.
func (r *haClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan haClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Drift = emptyDrift()
	// An apply clears what a failover left (afterFailover).
	plan.FailedActions, plan.FenceHistory = stringList(nil), stringList(nil)
	if !plan.Name.IsUnknown() {
		plan.ID = plan.Name
	}
	h, known := r.cluster(ctx, &plan, &resp.Diagnostics)
	key, keyKnown := authkeyFrom(ctx, req.Config, &resp.Diagnostics)
	pw, pwKnown := map[string]string(nil), false
	if known {
		pw, pwKnown = r.fencePasswords(ctx, &plan, &resp.Diagnostics)
	}
	var state *haClusterModel
	if !req.State.Raw.IsNull() {
		state = &haClusterModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	plan.AuthkeyHash, plan.FencePasswordHash = types.StringUnknown(), types.StringUnknown()
	if r.secretsHeld(ctx, state, &plan, h, known, key, pw, keyKnown && pwKnown) {
		plan.AuthkeyHash, plan.FencePasswordHash = state.AuthkeyHash, state.FencePasswordHash
	} else {
		if keyKnown && key != nil {
			plan.AuthkeyHash = types.StringValue(secret.Hash(string(key)))
		}
		if pwKnown {
			plan.FencePasswordHash = types.StringValue(passwordsHash(pw))
		}
	}
	if !known {
		if h.brokenRules(&resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
		plan.PushNode, plan.Placement = types.StringUnknown(), types.MapUnknown(types.StringType)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	if err := h.c.Validate(); err != nil {
		h.invalidCluster(&resp.Diagnostics, err)
		return
	}
	pn, _ := h.c.PushNode()
	plan.PushNode = types.StringValue(pn.Name)
	plan.Placement = types.MapUnknown(types.StringType)
	if state != nil {
		var quiet diag.Diagnostics
		before, bknown := r.cluster(ctx, state, &quiet)
		if bknown && !quiet.HasError() && sameCluster(before.c, h.c) && sameHosts(before.hosts, h.hosts) && len(state.Drift.Elements()) == 0 &&
			state.AuthkeyHash.Equal(plan.AuthkeyHash) && state.FencePasswordHash.Equal(plan.FencePasswordHash) {
			plan.Placement = state.Placement
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	if r.nodes() == nil || !plan.Placement.IsUnknown() {
		return
	}
	if h.fenceSystems(ctx, r.data, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	// With the secrets when known: a fresh node has no authkey or password
	// file yet, which the check of unread secret files would refuse.
	secrets := pacemaker.Secrets{}
	if keyKnown && key != nil && pwKnown {
		secrets = pacemaker.Secrets{Authkey: key, Passwords: pw}
	}
	items, err := h.c.NodeItems(secrets)
	if err != nil {
		h.invalidCluster(&resp.Diagnostics, err)
		return
	}
	for _, n := range h.byID() {
		r.run(&plan, h, n.Name, haOwner(h.c.Name)).check(ctx, items, &resp.Diagnostics)
	}
}

// secretsHeld says whether every node already holds exactly the configured
// authkey and BMC passwords (a read-only check of those files alone, one
// request per node): then the state's hashes still stand and a no-op plan
// skips scrypt, about 100 ms of CPU per secret per provider process. Any
// doubt (no state yet, an unreachable node, a file that differs) answers
// false, and the hashes are computed.
func (r *haClusterResource) secretsHeld(ctx context.Context, state, plan *haClusterModel, h haCluster, known bool, key []byte, pw map[string]string, secretsKnown bool) bool {
	if !known || !secretsKnown || key == nil || state == nil || r.nodes() == nil || state.AuthkeyHash.IsNull() || state.AuthkeyHash.IsUnknown() ||
		state.FencePasswordHash.IsNull() || state.FencePasswordHash.IsUnknown() {
		return false
	}
	items, err := h.c.NodeItems(pacemaker.Secrets{Authkey: key, Passwords: pw})
	if err != nil {
		return false
	}
	var secrets []protocol.Item
	for _, it := range items {
		if it.File != nil && it.File.Sensitive {
			// Read-only: no service of this partial spec to restart.
			f := *it.File
			f.Notify = nil
			secrets = append(secrets, protocol.Item{File: &f})
		}
	}
	for _, n := range h.byID() {
		if !r.run(plan, h, n.Name, haOwner(h.c.Name)).holds(ctx, secrets) {
			return false
		}
	}
	return true
}

func sameCluster(a, b pacemaker.Cluster) bool {
	ca, err1 := a.Configuration()
	cb, err2 := b.Configuration()
	ia, err3 := a.NodeItems(pacemaker.Secrets{})
	ib, err4 := b.NodeItems(pacemaker.Secrets{})
	return err1 == nil && err2 == nil && err3 == nil && err4 == nil && string(ca) == string(cb) && sameItems(ia, ib)
}

func sameHosts(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func (r *haClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan haClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, &plan, nil, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// apply converges every node, then patches the CIB from the push node and
// reads back where resources run. prior is nil on create.
func (r *haClusterResource) apply(ctx context.Context, plan, prior *haClusterModel, config tfsdk.Config, diags *diag.Diagnostics) {
	h, known := r.cluster(ctx, plan, diags)
	key, _ := authkeyFrom(ctx, config, diags)
	pw, _ := r.fencePasswords(ctx, plan, diags)
	if diags.HasError() {
		return
	}
	if !known {
		diags.AddError("Unknown Cluster Setting", "A cluster setting is still unknown at apply time.")
		return
	}
	if key == nil {
		addError(diags, path.Root("authkey"), "Missing Authkey", "Set authkey or authkey_file.", nil)
		return
	}
	items, err := h.c.NodeItems(pacemaker.Secrets{Authkey: key, Passwords: pw})
	if err != nil {
		h.invalidCluster(diags, err)
		return
	}
	var previous []protocol.Item
	if prior != nil {
		var quiet diag.Diagnostics
		if ph, ok := r.cluster(ctx, prior, &quiet); ok {
			previous, _ = ph.c.NodeItems(pacemaker.Secrets{})
		}
	}
	for _, n := range h.byID() {
		if !r.run(plan, h, n.Name, haOwner(h.c.Name)).converge(ctx, items, previous, diags) {
			return
		}
	}
	want, err := h.c.Configuration()
	if err != nil {
		h.invalidCluster(diags, err)
		return
	}
	if prior == nil && !r.waitJoined(ctx, plan, h, diags) {
		return
	}
	if !r.pushCIB(ctx, plan, h, want, diags) {
		return
	}
	drift := map[string]string{}
	if prior != nil {
		for k, v := range prior.Drift.Elements() {
			if s, ok := v.(types.String); ok {
				drift[k] = s.ValueString()
			}
		}
	}
	if !r.afterFailover(ctx, plan, h, drift, diags) {
		return
	}
	plan.Placement = r.placement(ctx, plan, h, true, diags)
	plan.FailedActions, plan.FenceHistory = stringList(nil), stringList(nil)
	plan.ID = plan.Name
	pn, _ := h.c.PushNode()
	plan.PushNode = types.StringValue(pn.Name)
	plan.Drift = emptyDrift()
	plan.Authkey = types.StringNull()
	plan.AuthkeyHash = types.StringValue(secret.Hash(string(key)))
	plan.FencePasswordHash = types.StringValue(passwordsHash(pw))
}

// haRunner is pacemaker.Runner on one node of the cluster through the
// node shell; a node it cannot reach is reported in diags at once and
// comes back as errReported.
type haRunner struct {
	r     *haClusterResource
	m     *haClusterModel
	h     haCluster
	node  string
	diags *diag.Diagnostics
}

func (a haRunner) Run(ctx context.Context, owner string, items []protocol.Item, check bool) (*protocol.Result, error) {
	res, ok := a.r.run(a.m, a.h, a.node, owner).exec(ctx, items, check, a.diags)
	if !ok {
		return nil, errReported
	}
	return res, nil
}

// joinTimeout bounds the wait for a new cluster's nodes to join before
// its first push (two real nodes take well under a minute).
const joinTimeout = 3 * time.Minute

// waitJoined waits, before a new cluster's first push, until every node is
// online with a DC: a CIB pushed while the peer was still joining was lost
// when the partitions merged (seen on real pacemaker).
func (r *haClusterResource) waitJoined(ctx context.Context, m *haClusterModel, h haCluster, diags *diag.Diagnostics) bool {
	pn, err := h.c.PushNode()
	if err != nil {
		h.invalidCluster(diags, err)
		return false
	}
	poll := time.Second
	if r.data != nil && r.data.PollInterval > 0 {
		poll = r.data.PollInterval
	}
	err = h.c.WaitJoined(ctx, haRunner{r: r, m: m, h: h, node: pn.Name, diags: diags}, joinTimeout, poll)
	switch {
	case err == nil:
		return true
	case errors.Is(err, errReported):
	default:
		addError(diags, path.Root("nodes"), "Cluster Not Formed", fmt.Sprintf("corosync and pacemaker run on every node, but "+
			"they did not all join one cluster with a controller; nothing was pushed. Check the ring addresses and the "+
			"firewall (corosync's UDP ports), then apply again."), err)
	}
	return false
}

// pushCIB runs pacemaker's push (read, version check, diff, patch, verify)
// from the push node and reports how it ended.
func (r *haClusterResource) pushCIB(ctx context.Context, m *haClusterModel, h haCluster, want []byte, diags *diag.Diagnostics) bool {
	pn, _ := h.c.PushNode()
	run := r.run(m, h, pn.Name, pacemaker.CIBOwner(h.c.Name))
	_, err := h.c.Push(ctx, haRunner{r: r, m: m, h: h, node: pn.Name, diags: diags}, want)
	switch {
	case err == nil:
		return true
	case errors.Is(err, errReported):
	case errors.Is(err, pacemaker.ErrInvalid): // the running pacemaker is not the one rendered for
		at := path.Root("pacemaker_version")
		if le, ok := located.Find(err); ok {
			at, err = locatedPath(le.Path), le.Err
		}
		addError(diags, at, "Pacemaker Version Mismatch", err.Error()+". Nothing was changed in the CIB.", nil)
	case errors.Is(err, pacemaker.ErrRefused):
		diags.AddError("CIB Patch Refused", fmt.Sprintf("Host %s (node %s): %v\nNothing else was changed in the CIB; fix "+
			"the cause and run terraform apply again.", run.host, pn.Name, err))
	case errors.Is(err, pacemaker.ErrNotVerified):
		diags.AddError("CIB Change Not Verified", fmt.Sprintf("Host %s: %v", run.host, err))
	case errors.Is(err, pacemaker.ErrTooLarge):
		diags.AddError("Cluster Configuration Too Large", fmt.Sprintf("Host %s: %v.", run.host, err))
	default:
		diags.AddError("Cluster Configuration Unreadable", fmt.Sprintf("Host %s (node %s): %v", run.host, pn.Name, err))
	}
	return false
}

// placement reads where resources run; after an apply (settled) it first
// waits for the transition the change started to end.
func (r *haClusterResource) placement(ctx context.Context, m *haClusterModel, h haCluster, settled bool, diags *diag.Diagnostics) types.Map {
	pl, _, _ := r.status(ctx, m, h, settled, diags)
	return driftMap(pl)
}

// status reads crm_mon once: where resources run, the failed actions,
// the fencing history and the nodes available. ok is false (with a
// warning) when the cluster did not answer.
func (r *haClusterResource) status(ctx context.Context, m *haClusterModel, h haCluster, settled bool, diags *diag.Diagnostics) (map[string]string, pacemaker.Status, bool) {
	pn, _ := h.c.PushNode()
	run := r.run(m, h, pn.Name, pacemaker.QueryOwner(h.c.Name))
	var quiet diag.Diagnostics
	res, ok := run.exec(ctx, []protocol.Item{pacemaker.QueryStatusItem(settled)}, true, &quiet)
	if !ok || res.Failed || len(res.Items) != 1 {
		diags.AddWarning("Placement Unknown", fmt.Sprintf("Host %s: crm_mon failed: %s %s", run.host, diagText(quiet), failedItems(res)))
		return map[string]string{}, pacemaker.Status{}, false
	}
	return parseStatus(run.host, res.Items[0].Output, diags)
}

// parseStatus reads crm_mon's XML: placement, failed actions, fencing.
func parseStatus(host, out string, diags *diag.Diagnostics) (map[string]string, pacemaker.Status, bool) {
	pl, err := pacemaker.Placement([]byte(out))
	var st pacemaker.Status
	if err == nil {
		st, err = pacemaker.ReadStatus([]byte(out))
	}
	if err != nil {
		diags.AddWarning("Placement Unknown", fmt.Sprintf("Host %s: %v", host, err))
		return map[string]string{}, pacemaker.Status{}, false
	}
	return pl, st, true
}

// afterFailover runs what the plan's drift asked for after a failover
// (the cleanup of failed actions and fencing history), then, at every
// apply, the failback of resources away from their preferred node while
// it is available: after an unstandby as after a crash.
func (r *haClusterResource) afterFailover(ctx context.Context, m *haClusterModel, h haCluster, drift map[string]string, diags *diag.Diagnostics) bool {
	_, failures := drift[driftFailedActions]
	_, fenced := drift[driftFenceHistory]
	pn, _ := h.c.PushNode()
	run := r.run(m, h, pn.Name, pacemaker.CIBOwner(h.c.Name)+"-cleanup")
	if items := pacemaker.CleanupItems(failures, fenced); len(items) > 0 {
		res, ok := run.exec(ctx, items, false, diags)
		if !ok {
			return false
		}
		if res.Failed {
			diags.AddError("Cluster Cleanup Failed", fmt.Sprintf("Host %s (node %s): %s", run.host, pn.Name, failedItems(res)))
			return false
		}
	}
	pl, st, ok := r.status(ctx, m, h, true, diags)
	if !ok {
		return true
	}
	moves := h.c.Away(pl, st.Available)
	if len(moves) == 0 {
		return true
	}
	res, ok := run.exec(ctx, pacemaker.RelocateItems(moves), false, diags)
	if !ok {
		return false
	}
	if res.Failed {
		diags.AddError("Failback Failed", fmt.Sprintf("Host %s (node %s): moving %v home: %s\nA cli-prefer constraint may be "+
			"left (crm_resource --clear --resource ID removes it); the next plan shows it in drift.", run.host, pn.Name, moves, failedItems(res)))
		return false
	}
	return true
}

// Drift keys of a failover's aftermath.
const (
	driftFailedActions = "failed_actions"
	driftFenceHistory  = "fence_history"
	driftPlacement     = "placement"
)

// failoverDrift fills drift and the state's lists from crm_mon's status.
func failoverDrift(c pacemaker.Cluster, pl map[string]string, st pacemaker.Status, state *haClusterModel, drift map[string]string) {
	state.FailedActions, state.FenceHistory = stringList(st.Failed), stringList(st.Fenced)
	if len(st.Failed) > 0 {
		drift[driftFailedActions] = strings.Join(st.Failed, "\n")
	}
	if len(st.Fenced) > 0 {
		drift[driftFenceHistory] = strings.Join(st.Fenced, "\n")
	}
	if moves := c.Away(pl, st.Available); len(moves) > 0 {
		ids := make([]string, 0, len(moves))
		for id := range moves {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		var b strings.Builder
		for _, id := range ids {
			fmt.Fprintf(&b, "%s runs on %s, prefers %s\n", id, pl[id], moves[id])
		}
		drift[driftPlacement] = b.String()
	}
}

func (r *haClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state haClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, known := r.cluster(ctx, &state, &resp.Diagnostics)
	if !known || resp.Diagnostics.HasError() {
		return
	}
	items, err := h.c.NodeItems(pacemaker.Secrets{})
	if err != nil {
		h.invalidCluster(&resp.Diagnostics, err)
		return
	}
	drift := map[string]string{}
	for _, n := range h.byID() {
		d, ok := r.run(&state, h, n.Name, haOwner(h.c.Name)).drift(ctx, items, &resp.Diagnostics)
		if !ok {
			return
		}
		for k, v := range d.Elements() {
			if s, ok := v.(types.String); ok {
				drift[n.Name+"/"+k] = s.ValueString()
			}
		}
	}
	want, err := h.c.Configuration()
	if err != nil {
		h.invalidCluster(&resp.Diagnostics, err)
		return
	}
	// The configuration and the status in one request to the push node.
	pn, _ := h.c.PushNode()
	run := r.run(&state, h, pn.Name, pacemaker.QueryOwner(h.c.Name))
	var quiet diag.Diagnostics
	res, ok := run.exec(ctx, []protocol.Item{pacemaker.QueryConfigurationItem(), pacemaker.QueryStatusItem(false)}, true, &quiet)
	var live []byte
	if ok {
		var err error
		if live, err = pacemaker.ConfigurationOf(res); err != nil {
			quiet.AddError("Cluster Configuration Unreadable", fmt.Sprintf("Host %s (node %s): %v", run.host, pn.Name, err))
			ok = false
		}
	}
	if !ok {
		drift["cib"] = "error: " + diagText(quiet)
		state.Placement = types.MapValueMust(types.StringType, map[string]attr.Value{})
		state.FailedActions, state.FenceHistory = stringList(nil), stringList(nil)
	} else {
		if d, err := pacemaker.ConfigDiff(live, want); err != nil {
			drift["cib"] = "error: " + err.Error()
		} else if d != "" {
			drift["cib"] = d
		}
		pl, st, ok := map[string]string{}, pacemaker.Status{}, false
		if len(res.Items) < 2 || res.Items[1].Error != "" || res.Items[1].Skipped {
			resp.Diagnostics.AddWarning("Placement Unknown", fmt.Sprintf("Host %s: crm_mon failed: %s", run.host, failedItems(res)))
		} else {
			pl, st, ok = parseStatus(run.host, res.Items[1].Output, &resp.Diagnostics)
		}
		state.Placement = driftMap(pl)
		if ok {
			failoverDrift(h.c, pl, st, &state, drift)
		} else {
			state.FailedActions, state.FenceHistory = stringList(nil), stringList(nil)
		}
	}
	state.Drift = driftMap(drift)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func diagText(d diag.Diagnostics) string {
	var out []string
	for _, x := range d {
		out = append(out, x.Summary()+": "+x.Detail())
	}
	return strings.Join(out, "; ")
}

func (r *haClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior haClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, &plan, &prior, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete empties the CIB of resources and constraints (the cluster stops
// them in order: file systems are unmounted, never wiped), then stops the
// cluster on every node and removes what the resource wrote.
func (r *haClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state haClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, _ := r.cluster(ctx, &state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	empty := h.c
	empty.Groups, empty.Primitives, empty.Locations, empty.Colocations, empty.Orders = nil, nil, nil, nil, nil
	if want, err := empty.Configuration(); err == nil {
		var push diag.Diagnostics
		if !r.pushCIB(ctx, &state, h, want, &push) {
			resp.Diagnostics.AddWarning("Resources Not Removed From The CIB", "The cluster's resources could not be removed "+
				"before stopping it (stopping pacemaker stops them anyway): "+diagText(push))
		}
	}
	pn, _ := h.c.PushNode()
	r.run(&state, h, pn.Name, pacemaker.CIBOwner(h.c.Name)).remove(ctx, &resp.Diagnostics)
	for _, n := range h.byID() {
		r.run(&state, h, n.Name, haOwner(h.c.Name)).remove(ctx, &resp.Diagnostics)
	}
}

var objectAsOptions = basetypes.ObjectAsOptions{}

// readFileLimited reads at most limit bytes of a file on the machine
// running Terraform (~ expanded).
func readFileLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(expandHome(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}
