package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSource              = (*nodeFactsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*nodeFactsDataSource)(nil)
)

// NewNodeFactsDataSource is the hpcstorage_node_facts data source.
func NewNodeFactsDataSource() datasource.DataSource { return &nodeFactsDataSource{} }

// nodeFactsDataSource reads what the agent reports about a node.
type nodeFactsDataSource struct {
	nodes *nodeAccess
}

type nodeFactsModel struct {
	Host           types.String       `tfsdk:"host"`
	SSH            types.Object       `tfsdk:"ssh"`
	Hostname       types.String       `tfsdk:"hostname"`
	KernelRelease  types.String       `tfsdk:"kernel_release"`
	OSID           types.String       `tfsdk:"os_id"`
	OSVersionID    types.String       `tfsdk:"os_version_id"`
	OSPrettyName   types.String       `tfsdk:"os_pretty_name"`
	CPUs           types.Int64        `tfsdk:"cpus"`
	CPUModel       types.String       `tfsdk:"cpu_model"`
	MemoryBytes    types.Int64        `tfsdk:"memory_bytes"`
	NUMANodes      []numaNodeModel    `tfsdk:"numa_nodes"`
	BlockDevices   []blockDeviceModel `tfsdk:"block_devices"`
	NICs           []nicModel         `tfsdk:"nics"`
	Packages       map[string]string  `tfsdk:"packages"`
	PackageManager types.String       `tfsdk:"package_manager"`
}

type numaNodeModel struct {
	ID      types.Int64  `tfsdk:"id"`
	CPUList types.String `tfsdk:"cpulist"`
	CPUs    []int64      `tfsdk:"cpus"`
}

type blockDeviceModel struct {
	Name       types.String `tfsdk:"name"`
	SizeBytes  types.Int64  `tfsdk:"size_bytes"`
	Rotational types.Bool   `tfsdk:"rotational"`
	WWN        types.String `tfsdk:"wwn"`
	WWID       types.String `tfsdk:"wwid"`
	Model      types.String `tfsdk:"model"`
	Vendor     types.String `tfsdk:"vendor"`
	Schedulers []string     `tfsdk:"schedulers"`
	Scheduler  types.String `tfsdk:"scheduler"`
	FSType     types.String `tfsdk:"fstype"`
}

type nicModel struct {
	Name types.String `tfsdk:"name"`
	MAC  types.String `tfsdk:"mac"`
	MTU  types.Int64  `tfsdk:"mtu"`
	Type types.String `tfsdk:"type"`
}

func (d *nodeFactsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_facts"
}

func (d *nodeFactsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "What the hpcstorage agent reports about a node (one read-only SSH call): CPUs, NUMA zones, " +
			"memory, disks with their WWNs and offered schedulers, NICs, kernel and packages. Use it to match array volumes " +
			"to disks, or to pick a scheduler the disks offer.",
		Attributes: map[string]schema.Attribute{
			// Required
			"host": schema.StringAttribute{Required: true, MarkdownDescription: "Node name or address, optionally `name:port`.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			// Optional
			"ssh": sshDataSourceAttribute(),
			// Computed
			"hostname":        str("The node's host name."),
			"kernel_release":  str("`uname -r`."),
			"os_id":           str("`ID` from /etc/os-release (`rhel`, `rocky`, `ubuntu`)."),
			"os_version_id":   str("`VERSION_ID` from /etc/os-release."),
			"os_pretty_name":  str("`PRETTY_NAME` from /etc/os-release."),
			"cpus":            num("Logical CPUs."),
			"cpu_model":       str("CPU model name."),
			"memory_bytes":    num("Memory in bytes."),
			"package_manager": str("`rpm`, `dpkg`, or empty when none was found."),
			"packages": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Installed packages: name to version."},
			"numa_nodes": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "NUMA zones and their CPUs.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":      num("Zone number."),
					"cpulist": str("CPUs in kernel list form (`0-19`)."),
					"cpus":    schema.ListAttribute{Computed: true, ElementType: types.Int64Type, MarkdownDescription: "CPU numbers."},
				}}},
			"block_devices": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Disks under /sys/block.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":       str("Kernel name (`sdb`)."),
					"size_bytes": num("Size in bytes."),
					"rotational": schema.BoolAttribute{Computed: true, MarkdownDescription: "True for HDDs."},
					"wwn":        str("World wide name (`0x600c0ff0...`), to find an array volume."),
					"wwid":       str("WWID as the kernel reports it."),
					"model":      str("Model."),
					"vendor":     str("Vendor."),
					"schedulers": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "I/O schedulers the disk offers."},
					"scheduler":  str("Active I/O scheduler."),
					"fstype":     str("Signature `blkid -p` finds on the whole disk (`xfs`, `ext4`, `gpt`...), empty when none: a disk with one is in use."),
				}}},
			"nics": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Network interfaces.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": str("Interface name."),
					"mac":  str("Hardware address."),
					"mtu":  num("MTU."),
					"type": str("`infiniband`, `ethernet`, `loopback` or `other:<n>`."),
				}}},
		},
	}
}

func (d *nodeFactsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := configureData(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.nodes = pd.Nodes
	}
}

func (d *nodeFactsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m nodeFactsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.nodes == nil {
		resp.Diagnostics.AddError("Provider Not Configured", "The hpcstorage provider was not configured before use.")
		return
	}
	opts := d.nodes.options(m.Host.ValueString(), m.SSH, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	f, err := d.nodes.pool.Facts(ctx, opts, "")
	if err != nil {
		addNodeError(&resp.Diagnostics, m.Host.ValueString(), err)
		return
	}
	m.Hostname = types.StringValue(f.Hostname)
	m.KernelRelease = types.StringValue(f.KernelRelease)
	m.OSID = types.StringValue(f.OS.ID)
	m.OSVersionID = types.StringValue(f.OS.VersionID)
	m.OSPrettyName = types.StringValue(f.OS.PrettyName)
	m.CPUs = types.Int64Value(int64(f.CPUs))
	m.CPUModel = types.StringValue(f.CPUModel)
	m.MemoryBytes = types.Int64Value(f.MemoryBytes)
	m.PackageManager = types.StringValue(f.PackageManager)
	m.NUMANodes = []numaNodeModel{}
	for _, n := range f.NUMANodes {
		cpus := make([]int64, len(n.CPUs))
		for i, c := range n.CPUs {
			cpus[i] = int64(c)
		}
		m.NUMANodes = append(m.NUMANodes, numaNodeModel{ID: types.Int64Value(int64(n.ID)), CPUList: types.StringValue(n.CPUList), CPUs: cpus})
	}
	m.BlockDevices = []blockDeviceModel{}
	for _, b := range f.BlockDevices {
		m.BlockDevices = append(m.BlockDevices, blockDeviceModel{Name: types.StringValue(b.Name), SizeBytes: types.Int64Value(b.SizeBytes),
			Rotational: types.BoolValue(b.Rotational), WWN: types.StringValue(b.WWN), WWID: types.StringValue(b.WWID),
			Model: types.StringValue(b.Model), Vendor: types.StringValue(b.Vendor), Schedulers: slices.Clone(b.Schedulers),
			Scheduler: types.StringValue(b.Scheduler), FSType: types.StringValue(b.FSType)})
	}
	m.NICs = []nicModel{}
	for _, n := range f.NICs {
		m.NICs = append(m.NICs, nicModel{Name: types.StringValue(n.Name), MAC: types.StringValue(n.MAC), MTU: types.Int64Value(int64(n.MTU)),
			Type: types.StringValue(n.Type)})
	}
	m.Packages = map[string]string{}
	for _, p := range f.Packages {
		m.Packages[p.Name] = p.Version
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
