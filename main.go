// Command terraform-provider-hpcstorage serves the hpcstorage Terraform provider.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"runtime"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/version"
	"github.com/hpcstorage/terraform-provider-hpcstorage/provider"
)

//go:generate go tool tfplugindocs generate --provider-name hpcstorage

func main() {
	var debug, showVersion bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	// The flag package takes -version and --version alike.
	flag.BoolVar(&showVersion, "version", false, "print the version and exit")
	flag.Parse()
	if showVersion {
		fmt.Printf("terraform-provider-hpcstorage %s (%s, %s/%s)\n", version.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return
	}

	err := providerserver.Serve(context.Background(), provider.New(version.Version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/hpcstorage/hpcstorage",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	// Terraform stops the plugin gracefully and waits about two seconds
	// before killing it: log out of the BMC sessions in that window so runs
	// do not pile sessions up against the BMCs' limits.
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	if cerr := provider.CloseSessions(ctx); cerr != nil {
		log.Printf("[DEBUG] closing Redfish sessions: %v", cerr)
	}
	cancel()
	if err != nil {
		log.Fatal(err)
	}
}
