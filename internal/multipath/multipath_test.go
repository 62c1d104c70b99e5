package multipath

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// r2 is R2's ME4084: 8 RAID6 volumes, each seen twice by each server.
func r2() Config {
	c := Config{Devices: []Device{ME4}}
	for i := 8; i >= 1; i-- { // listed backwards: the file must not care
		c.Aliases = append(c.Aliases, Alias{WWN: fmt.Sprintf("0x600C0FF00012345600000000%08X", i), Name: fmt.Sprintf("nfs_vol%d", i)})
	}
	return c
}

func TestRenderR2(t *testing.T) {
	conf, err := r2().Render()
	if err != nil {
		t.Fatal(err)
	}
	wantDevice := `devices {
    device {
        vendor "DellEMC"
        product "ME4"
        path_grouping_policy "group_by_prio"
        path_checker "tur"
        hardware_handler "1 alua"
        prio "alua"
        failback immediate
        rr_weight "uniform"
        path_selector "service-time 0"
    }
}
`
	if !strings.Contains(conf, wantDevice) {
		t.Errorf("no ME4 device section:\n%s", conf)
	}
	first := "    multipath {\n        wwid 3600c0ff0001234560000000000000001\n        alias nfs_vol1\n    }\n"
	if !strings.Contains(conf, first) {
		t.Errorf("no alias for volume 1 (wwid is 3 + the NAA hex, lower case):\n%s", conf)
	}
	if strings.Count(conf, "alias nfs_vol") != 8 || strings.Index(conf, "nfs_vol1") > strings.Index(conf, "nfs_vol8") {
		t.Errorf("want 8 aliases sorted by name:\n%s", conf)
	}
	if strings.Count(conf, "{") != strings.Count(conf, "}") {
		t.Errorf("unbalanced braces:\n%s", conf)
	}
	// Same volumes, other order: same file.
	c := r2()
	c.Aliases[0], c.Aliases[7] = c.Aliases[7], c.Aliases[0]
	if again, _ := c.Render(); again != conf {
		t.Error("the file depends on the order of the aliases")
	}
	if MapperPath("nfs_vol1") != "/dev/mapper/nfs_vol1" || WWID("naa.600C0FF0") != "3600c0ff0" {
		t.Error("paths")
	}
}

func TestItemsAreAValidSpec(t *testing.T) {
	items, err := r2().Items()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(protocol.Spec{APIVersion: protocol.APIVersion, Owner: "multipath-test", Items: items})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.ParseSpec(b); err != nil {
		t.Fatalf("agent rejects the rendered spec: %v\n%s", err, b)
	}
	if items[0].File == nil || items[0].File.Path != ConfPath || items[0].File.Notify[0] != Service ||
		items[1].Service == nil || items[1].Service.State != "started" || !*items[1].Service.Enabled {
		t.Errorf("items %+v", items)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		change   func(c *Config)
		at, want string
	}{
		{"no volumes", func(c *Config) { c.Aliases = nil }, "volumes", "name at least one volume"},
		{"bad wwn", func(c *Config) { c.Aliases[2].WWN = "600c0ff0" }, `volumes["nfs_vol6"]`, `wwn "600c0ff0"`},
		{"wwn twice", func(c *Config) { c.Aliases[3].WWN = strings.ToLower(c.Aliases[0].WWN) }, `volumes["nfs_vol5"]`,
			`wwn 600c0ff0001234560000000000000008 is also aliased by "nfs_vol8"`},
		{"alias twice", func(c *Config) { c.Aliases[1].Name = "nfs_vol8" }, `volumes["nfs_vol8"]`, `name "nfs_vol8" is used twice`},
		{"bad alias", func(c *Config) { c.Aliases[0].Name = "vol 1" }, `volumes["vol 1"]`, `name "vol 1"`},
		// The device table is the provider's, not an attribute.
		{"bad vendor", func(c *Config) { c.Devices = []Device{{Vendor: `Dell"EMC`, Product: "ME4"}} }, "", "devices[0]: vendor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := r2()
			tc.change(&c)
			_, err := c.Render()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if le, ok := located.Find(err); tc.at != "" && (!ok || le.Path.String() != tc.at) || tc.at == "" && ok {
				t.Fatalf("error %v located at %v, want %q", err, le, tc.at)
			}
			if _, err := c.Items(); err == nil {
				t.Fatal("items render for a refused config")
			}
		})
	}
}
