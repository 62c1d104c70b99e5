// Command gendoc writes the "Tuning profiles" guide template from the
// presets: go generate ./internal/profiles.
package main

import (
	"fmt"
	"os"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/profiles"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendoc OUTPUT.md.tmpl")
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[1], []byte(profiles.Guide()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
