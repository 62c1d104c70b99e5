package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseSpec parses the R1 storage-server profile as YAML (what
// people write) and as JSON (what the provider sends).
func BenchmarkParseSpec(b *testing.B) {
	y, err := os.ReadFile(filepath.Join("..", "..", "examples", "agent", "r1-storage-server.yaml"))
	if err != nil {
		b.Skip(err)
	}
	s, err := ParseSpec(y)
	if err != nil {
		b.Fatal(err)
	}
	j, _ := json.Marshal(s)
	for _, in := range []struct {
		name string
		data []byte
	}{{"yaml", y}, {"json", j}} {
		b.Run(in.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ParseSpec(in.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
