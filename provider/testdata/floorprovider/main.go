// Command floorprovider is BenchmarkR1Module's framework floor: a provider
// built on the same terraform-plugin-framework as ours, with one resource
// (floor_data: a required input, a computed id) whose Read and Update
// change nothing. Planned over the R1 state's graph, it measures what the
// framework and the plugin protocol cost before any of our own work.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type floorProvider struct{}

func (floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "floor"
}

func (floorProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (floorProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return floorData{} }}
}

func (floorProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type floorData struct{}

type floorModel struct {
	ID    types.String `tfsdk:"id"`
	Input types.String `tfsdk:"input"`
}

func (floorData) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_data"
}

func (floorData) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":    schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"input": schema.StringAttribute{Required: true},
	}}
}

func (floorData) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	store(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

// Read keeps the state as it is: nothing to refresh.
func (floorData) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (floorData) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	store(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

// store sets the state to the plan, its id the input.
func store(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var m floorModel
	diags.Append(plan.Get(ctx, &m)...)
	m.ID = m.Input
	diags.Append(state.Set(ctx, &m)...)
}

func (floorData) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return floorProvider{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/hpcstorage/floor"})
	if err != nil {
		log.Fatal(err)
	}
}
