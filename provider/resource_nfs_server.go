package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/nfsd"
)

// NewNFSServerResource is the hpcstorage_nfs_server resource: the NFS
// server's node settings on one node of an NFS-HA pair.
func NewNFSServerResource() resource.Resource {
	return &nfsServerResource{&nodeService[nfsServerModel, *nfsServerModel]{name: "_nfs_server", kind: "NFS Server",
		schema: nfsServerSchema}}
}

// nfsServerResource reads the running thread count back after every apply
// and refresh.
type nfsServerResource struct {
	*nodeService[nfsServerModel, *nfsServerModel]
}

type nfsServerModel struct {
	NodeService
	Threads        types.Int64  `tfsdk:"threads"`
	IdmapDomain    types.String `tfsdk:"idmap_domain"`
	PackageFloors  types.Bool   `tfsdk:"package_floors"`
	RunningThreads types.Int64  `tfsdk:"running_threads"`
}

func nfsServerSchema() schema.Schema {
	floors := []string{}
	for _, f := range []protocol.PackageVersion{nfsd.KernelFloor, nfsd.ResourceAgentsFloor} {
		floors = append(floors, "`"+f.Name+"` "+f.Min+" ("+f.Why+")")
	}
	return schema.Schema{
		MarkdownDescription: "The NFS server's settings on one node of an active-passive NFS pair (R2): `" + nfsd.NFSConf +
			"` with `[nfsd] threads` (the cluster's `nfsserver` resource agent has no thread parameter, so the count comes " +
			"from this file), `" + nfsd.IdmapdConf + "` with the NFSv4 id domain, and the `" + nfsd.Unit + "` unit " +
			"disabled at boot: the cluster starts NFS on the active node. Exports are cluster resources (`exportfs`), " +
			"not `/etc/exports`. Where nfsd runs with another thread count, apply sets it live (`rpc.nfsd`); " +
			"`running_threads` reads `" + nfsd.ThreadsProc + "` back.\n\nPackage floors (R2, RHEL 7.6), checked at plan " +
			"time before anything is changed: " + strings.Join(floors, "; ") + ". Destroy puts both files back as they " +
			"were and the unit's boot setting; a running nfsd is left to the cluster.",
		Attributes: nodeServiceSchema("the NFS server", map[string]schema.Attribute{
			"threads": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(nfsd.DefaultThreads),
				MarkdownDescription: "nfsd threads (R2: 256).",
				Validators:          []validator.Int64{int64validator.Between(nfsd.MinThreads, nfsd.MaxThreads)}},
			"idmap_domain": schema.StringAttribute{Optional: true,
				MarkdownDescription: "NFSv4 id-mapping domain (`Domain` in idmapd.conf), the same on servers and clients. " +
					"Unset: the host's DNS domain."},
			"package_floors": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Check the kernel and resource-agents floors (rpm nodes). Off only for nodes that are " +
					"not Enterprise Linux 7 and have no such packages."},
			"running_threads": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Threads of the running nfsd (`" + nfsd.ThreadsProc + "`), read at every apply and " +
					"refresh; 0 where nfsd does not run (the passive node)."},
		}),
	}
}

func (r *nfsServerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.nodeService.Create(ctx, req, resp)
	r.readThreads(ctx, &resp.State, &resp.Diagnostics)
}

func (r *nfsServerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.nodeService.Read(ctx, req, resp)
	r.readThreads(ctx, &resp.State, &resp.Diagnostics)
}

func (r *nfsServerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.nodeService.Update(ctx, req, resp)
	r.readThreads(ctx, &resp.State, &resp.Diagnostics)
}

// ModifyPlan: an apply reads the thread count again, so a planned change
// leaves it unknown.
func (r *nfsServerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.nodeService.ModifyPlan(ctx, req, resp)
	if resp.Diagnostics.HasError() || resp.Plan.Raw.IsNull() || req.State.Raw.IsNull() || resp.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("running_threads"), types.Int64Unknown())...)
}

// readThreads sets running_threads from the node (one read-only query).
func (r *nfsServerResource) readThreads(ctx context.Context, state *tfsdk.State, diags *diag.Diagnostics) {
	if diags.HasError() || state.Raw.IsNull() {
		return
	}
	var m nfsServerModel
	diags.Append(state.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	threads := types.Int64Null() // unread: a warning says why
	defer func() { diags.Append(state.SetAttribute(ctx, path.Root("running_threads"), threads)...) }()
	var probe diag.Diagnostics
	res, ok := nodeRunFor(r.nodes, &m).exec(ctx, []protocol.Item{nfsd.ThreadsProbe()}, true, &probe)
	switch {
	case !ok:
		diags.AddWarning("NFS Threads Not Read", "Host "+m.Host.ValueString()+": the node did not answer.")
	case res.Failed || len(res.Items) == 0:
		diags.AddWarning("NFS Threads Not Read", "Host "+m.Host.ValueString()+": "+failedItems(res))
	default:
		n, _, err := nfsd.ParseThreads(res.Items[0].Output)
		if err != nil {
			diags.AddWarning("NFS Threads Not Read", "Host "+m.Host.ValueString()+": "+err.Error())
			return
		}
		threads = types.Int64Value(int64(n))
	}
}

func (m *nfsServerModel) secret() serviceSecret { return nil }

func (m *nfsServerModel) owner() string { return "nfs-server" }

func (m *nfsServerModel) known() bool {
	return !m.Threads.IsUnknown() && !m.IdmapDomain.IsUnknown() && !m.PackageFloors.IsUnknown()
}

func (m *nfsServerModel) floors() bool {
	return m.PackageFloors.IsNull() || m.PackageFloors.ValueBool()
}

func (m *nfsServerModel) items(secretInput) ([]protocol.Item, path.Path, error) {
	s := nfsd.Server{Threads: intOr(m.Threads, nfsd.DefaultThreads), IdmapDomain: m.IdmapDomain.ValueString()}
	items, err := s.Items()
	if err != nil {
		return nil, path.Root("threads"), err // located at its attribute
	}
	if m.floors() {
		items = append(nfsd.FloorItems(), items...)
	}
	return items, path.Empty(), nil
}

// itemPath: a package below its floor is the host's; then nfs.conf,
// idmapd.conf, the unit and the live thread count.
func (m *nfsServerModel) itemPath(i int, _ string) path.Path {
	if m.floors() {
		if i < 2 {
			return path.Root("host")
		}
		i -= 2
	}
	switch i {
	case 1:
		return path.Root("idmap_domain")
	case 2:
		return path.Root("host")
	}
	return path.Root("threads")
}

// fill leaves running_threads to readThreads: only the node knows it.
func (m *nfsServerModel) fill() {}

// startupItems: nfs-idmapd reads its domain only when the cluster starts
// the NFS group (threads are set live, rpc.nfsd).
func (m *nfsServerModel) startupItems() []string { return []string{"file:" + nfsd.IdmapdConf} }
