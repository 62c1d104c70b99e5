// Command terraform-provider-hpcstorage serves the hpcstorage Terraform provider.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/version"
	"github.com/hpcstorage/terraform-provider-hpcstorage/provider"
)

//go:generate go tool tfplugindocs generate --provider-name hpcstorage

// atExit runs when the plugin server has stopped (the pprof build's
// profile).
var atExit = func() {}

func main() {
	if len(os.Args) == 2 && os.Args[1] == provider.KeeperArg {
		os.Exit(provider.RunSessionKeeper())
	}
	var debug, showVersion bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	// The flag package takes -version and --version alike.
	flag.BoolVar(&showVersion, "version", false, "print the version and exit")
	flag.Parse()
	if showVersion {
		fmt.Printf("terraform-provider-hpcstorage %s (%s, %s/%s)\n", version.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return
	}
	quietLogs()
	lessGC()
	provider.EnableSessionKeepers(version.Version)

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
	atExit()
	if err != nil {
		log.Fatal(err)
	}
}

// lessGC lets the heap grow further between collections than Go's
// default (GOGC=100): a provider process lives for one Terraform walk,
// decoding and re-encoding every resource's values, and at the default
// the collector was about a seventh of its CPU in a no-op plan of the R1
// module. The soft memory limit brings collections back well before a
// large graph could need much memory. GOGC or GOMEMLIMIT in the
// environment win.
func lessGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(512 << 20)
	}
}

// quietLogs turns the plugin SDK's logging off when nobody asked for it.
// Without a level the SDK and framework log at TRACE, formatting and
// writing every line to Terraform, which drops them unless TF_LOG or
// TF_LOG_PROVIDER is set: about a quarter of the provider's CPU in a
// no-op plan of the R1 module. Any TF_LOG* setting keeps the SDK's own
// behaviour.
func quietLogs() {
	for _, kv := range os.Environ() {
		// Set and not empty (terraform-exec passes TF_LOG= and friends).
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "TF_LOG") && v != "" {
			return
		}
	}
	for _, k := range []string{"TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		_ = os.Setenv(k, "OFF")
	}
}
