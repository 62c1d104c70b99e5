package main

import (
	"context"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// TestServeSantricity: the command prints R3's three EF600s, each reachable
// over verified TLS with the printed certificate and credentials.
func TestServeSantricity(t *testing.T) {
	doc := startLab(t, runServeSantricity, "--design", "r3")
	if len(doc.Endpoints) != 3 || doc.Cabling["ef600-3"][1] != "bb3-node2" {
		t.Fatalf("document %+v", doc)
	}
	for _, ep := range doc.Endpoints {
		c, err := santricity.New(santricity.Config{Name: ep.Name, URL: ep.URL, Username: ep.Username, Password: ep.Password, CACertPEM: []byte(ep.CACertPEM)})
		if err != nil {
			t.Fatal(err)
		}
		sys, err := c.System(context.Background())
		if err != nil || sys.Name != ep.Name || sys.Drives != 24 {
			t.Fatalf("%s: %+v, %v", ep.Name, sys, err)
		}
		_ = c.Close(context.Background())
	}
	if err := runServeSantricity(context.Background(), []string{"--design", "r1"}, nil, nil); err == nil {
		t.Error("r1 has no E-Series arrays but serve-santricity accepted it")
	}
}
