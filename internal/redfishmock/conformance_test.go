package redfishmock

import (
	"testing"
)

// TestSchemaConformance validates every document every design serves
// against the official schema its @odata.type names.
func TestSchemaConformance(t *testing.T) {
	ss := newSchemaSet(t)
	for _, design := range Designs() {
		t.Run(design, func(t *testing.T) {
			d, err := NewDesign(design, Options{Username: "admin", Password: "secret", Clock: NewManualClock(timeZero)})
			if err != nil {
				t.Fatal(err)
			}
			for _, svc := range d.Services() {
				populate(t, svc)
				docs := crawl(t, svc)
				if len(docs) < 10 {
					t.Fatalf("%s: only %d documents reachable", svc.Name(), len(docs))
				}
				for _, p := range sortedPaths(docs) {
					if err := ss.validate(docs[p]); err != nil {
						t.Errorf("%s %s: %v", svc.Name(), p, err)
					}
				}
			}
		})
	}
}
