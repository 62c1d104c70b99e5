// Command genagents writes internal/pacemaker's agent table from the
// meta-data of the agents installed here (go generate ./internal/pacemaker).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker/agentmeta"
)

func main() {
	out := flag.String("o", "agents_gen.go", "file to write")
	flag.Parse()
	agents, err := agentmeta.Collect()
	if err == nil {
		var src []byte
		if src, err = agentmeta.Source("pacemaker", agents); err == nil {
			err = os.WriteFile(*out, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genagents:", err)
		os.Exit(1)
	}
}
