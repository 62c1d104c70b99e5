// Command genschema writes the agent spec's JSON Schema (go generate).
package main

import (
	"fmt"
	"os"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

func main() {
	b, err := protocol.JSONSchema()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
}
