// Command terraform-provider-hpcstorage serves the hpcstorage Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
	"time"

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
	// Terraform stops the plugin gracefully and waits about two seconds
	// before killing it: log out of the BMC sessions in that window so runs
	// do not pile sessions up against the BMCs' limits.
	provider.CloseNodes()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	if cerr := provider.CloseSessions(ctx); cerr != nil {
		log.Printf("[DEBUG] closing Redfish sessions: %v", cerr)
	}
	cancel()
	if err != nil {
		log.Fatal(err)
	}
}
