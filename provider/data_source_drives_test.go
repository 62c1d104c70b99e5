package provider

import (
	"regexp"
	"strings"
	"testing"
)

const drivesCLIConfig = `terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
}
data "hpcstorage_drives" "d" { endpoint = "bmc" }
`

// A real Dell capture has three storage services of which only one
// (CPU.1) holds drives: without storage_id the real terraform CLI reads
// that one, with a warning naming all three; a capture with several that
// hold drives (DMTF's tower: one empty of four) still refuses, naming the
// ones that do.
func TestDrivesDataSourcePicksTheStorageWithDrives(t *testing.T) {
	lab, _ := replayLab(t, "libredfish-dell")
	cli := newPluginCLI(t, lab.providerBlock()+drivesCLIConfig+`
output "storage" { value = data.hpcstorage_drives.d.storage_id }
output "drives" { value = length(data.hpcstorage_drives.d.drives) }
`)
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("terraform init: exit %d\n%s", code, out)
	}
	out, code := cli.run("apply", "-auto-approve")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"Warning: Storage Service Chosen By Its Drives",
		"bmc has 3 storage services (/redfish/v1/Systems/System.Embedded.1/Storage/CPU.1, /redfish/v1/Systems/System.Embedded.1/Storage/AHCI.Embedded.1-1, /redfish/v1/Systems/System.Embedded.1/Storage/AHCI.Embedded.2-1) and only /redfish/v1/Systems/System.Embedded.1/Storage/CPU.1 holds drives",
		`drives = 3`,
		`storage = "/redfish/v1/Systems/System.Embedded.1/Storage/CPU.1"`,
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("apply output lacks %q:\n%s", want, out)
		}
	}

	tower, _ := replayLab(t, "dmtf-public-tower")
	cli = newPluginCLI(t, tower.providerBlock()+drivesCLIConfig)
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("terraform init: exit %d\n%s", code, out)
	}
	out, code = cli.run("plan")
	flat = strings.Join(strings.Fields(out), " ")
	m := regexp.MustCompile(`has 4 storage services .* set storage_id to one of them \(3 of them hold drives: ([^)]*)\)`).FindStringSubmatch(flat)
	if code == 0 || m == nil || !strings.Contains(m[1], "NVMeSWRAID") || strings.Contains(m[1], "HAFiberChannel") {
		t.Errorf("several storage services with drives: exit %d, want an error naming the 3 with drives:\n%s", code, out)
	}
}
