// Command terraform-provider-hpcstorage serves the hpcstorage Terraform provider.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/version"
	"github.com/hpcstorage/terraform-provider-hpcstorage/provider"
)

//go:generate go tool tfplugindocs generate --provider-name hpcstorage

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version.Version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/hpcstorage/hpcstorage",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}
