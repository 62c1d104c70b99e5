package redfishmock

import (
	"testing"
)

// TestSchemaConformance validates every document every design serves
// against the official schema its @odata.type names.
func TestSchemaConformance(t *testing.T) {
	ss := newSchemaSet(t)
	for _, v := range designVariants() {
		t.Run(v.name, func(t *testing.T) {
			d, err := NewDesign(v.design, Options{Username: "admin", Password: "secret", Clock: NewManualClock(timeZero), ServerPersonality: v.personality})
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

type designVariant struct{ name, design, personality string }

// designVariants is every design as specified, plus R2 with each other
// server personality so HPE and generic BMCs are covered too.
func designVariants() []designVariant {
	var out []designVariant
	for _, d := range Designs() {
		out = append(out, designVariant{d, d, ""})
	}
	return append(out, designVariant{"r2-hpe", "r2", PersonalityHPE}, designVariant{"r2-generic", "r2", PersonalityGeneric})
}
