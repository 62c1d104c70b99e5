// Package provider maps Terraform configuration onto the hpcstorage
// internals: Redfish for BMCs and arrays, the agent over SSH for nodes.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

var _ provider.Provider = (*hpcstorageProvider)(nil)

// hpcstorageProvider is the provider implementation.
type hpcstorageProvider struct {
	version string
}

// New returns a constructor for the provider, as providerserver expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &hpcstorageProvider{version: version}
	}
}

func (p *hpcstorageProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "hpcstorage"
	resp.Version = p.version
}

func (p *hpcstorageProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Turns HPC storage reference designs into infrastructure as code: " +
			"servers and arrays through Redfish and Swordfish, node configuration through the hpcstorage agent over SSH.",
	}
}

func (p *hpcstorageProvider) Configure(_ context.Context, _ provider.ConfigureRequest, _ *provider.ConfigureResponse) {
}

func (p *hpcstorageProvider) Resources(_ context.Context) []func() resource.Resource {
	return nil
}

func (p *hpcstorageProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return nil
}
