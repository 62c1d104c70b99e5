package redfishmock

import (
	"context"
	"testing"
	"time"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// TestGofishWritePaths drives the mock through gofish's own write helpers,
// the way the provider will: BIOS apply-on-reset, reset, boot override,
// hot spare, volume growth, a BMC firmware SimpleUpdate.
func TestGofishWritePaths(t *testing.T) {
	clk := NewManualClock(timeZero)
	d, err := NewDesign("r1", Options{Username: "admin", Password: "secret", Clock: clk, RequireIfMatch: true})
	if err != nil {
		t.Fatal(err)
	}
	lab, err := d.Start(StartConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	connect := func(name string) *gofish.APIClient {
		for _, ep := range lab.Endpoints {
			if ep.Name == name {
				c, err := gofish.ConnectContext(context.Background(), gofish.ClientConfig{Endpoint: ep.URL, Username: ep.Username,
					Password: ep.Password, HTTPClient: lab.Client()})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.Logout)
				return c
			}
		}
		t.Fatalf("no endpoint %s", name)
		return nil
	}

	bmc := connect("stor1-bmc")
	systems, err := bmc.GetService().Systems()
	if err != nil {
		t.Fatal(err)
	}
	sys := systems[0]
	bios, err := sys.Bios()
	if err != nil {
		t.Fatal(err)
	}
	if err := bios.UpdateBiosAttributesApplyAt(schemas.SettingsAttributes{"SubNumaCluster": "Enabled", "LogicalProc": "Disabled"}, schemas.OnResetSettingsApplyTime); err != nil {
		t.Fatalf("UpdateBiosAttributesApplyAt: %v", err)
	}
	if err := bios.UpdateBiosAttributesApplyAt(schemas.SettingsAttributes{"SysProfile": "Fast"}, schemas.OnResetSettingsApplyTime); err == nil {
		t.Error("bad enum accepted through gofish")
	}
	if err := sys.SetBoot(&schemas.Boot{BootSourceOverrideTarget: schemas.PxeBootSource, BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled}); err != nil {
		t.Fatalf("SetBoot: %v", err)
	}
	if _, err := sys.Reset(schemas.GracefulRestartResetType); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	clk.Advance(time.Minute)
	sys, _ = schemas.GetObject[schemas.ComputerSystem](bmc, sys.ODataID)
	bios, _ = sys.Bios()
	if bios.Attributes.String("SubNumaCluster") != "Enabled" || gofish.Deref(sys.ProcessorSummary.LogicalProcessorCount) != 40 {
		t.Errorf("after reboot: SNC %s, logical CPUs %d", bios.Attributes.String("SubNumaCluster"), gofish.Deref(sys.ProcessorSummary.LogicalProcessorCount))
	}
	if sys.Boot.BootSourceOverrideEnabled != schemas.DisabledBootSourceOverrideEnabled {
		t.Errorf("boot override after boot: %s", sys.Boot.BootSourceOverrideEnabled)
	}

	// Firmware: gofish's SimpleUpdate gets the task monitor, and its
	// inventory reader sees the new BMC version.
	svc, _ := d.Service("stor1-bmc")
	const img = "https://repo.lab/idrac/7.00.00.00.exe"
	if err := svc.RegisterImage(Image{URI: img, Component: ComponentBMC, Version: "7.00.00.00", Models: []string{"PowerEdge R740"}}); err != nil {
		t.Fatal(err)
	}
	us, err := bmc.GetService().UpdateService()
	if err != nil {
		t.Fatal(err)
	}
	info, err := us.SimpleUpdate(&schemas.UpdateServiceSimpleUpdateParameters{ImageURI: img, TransferProtocol: schemas.HTTPSTransferProtocolType})
	if err != nil || info == nil || info.TaskMonitor == "" {
		t.Fatalf("SimpleUpdate: %+v %v", info, err)
	}
	clk.Advance(time.Minute)
	inv, err := us.FirmwareInventory()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range inv {
		found = found || (c.Version == "7.00.00.00" && c.Updateable)
	}
	if !found {
		t.Errorf("gofish's inventory after the update lacks iDRAC 7.00.00.00")
	}

	arr := connect("me4084-1")
	storage, err := arr.GetService().Storage()
	if err != nil {
		t.Fatal(err)
	}
	drives, _ := storage[0].Drives()
	spare := drives[83]
	spare.HotspareType = schemas.GlobalHotspareType
	if err := spare.Update(); err != nil {
		t.Fatalf("Drive.Update hot spare: %v", err)
	}
	a, _ := d.Service("me4084-1")
	a.SetRequireIfMatch(false) // the helper sends no If-Match; gofish below does
	populate(t, a)
	a.SetRequireIfMatch(true)
	vols, err := storage[0].Volumes()
	if err != nil || len(vols) == 0 {
		t.Fatalf("volumes: %v", err)
	}
	var v *schemas.Volume
	for _, x := range vols {
		if x.Name == "vol1" {
			v = x
		}
	}
	want := int(*v.CapacityBytes) + 1<<30
	v.CapacityBytes = &want
	if err := v.Update(); err == nil {
		t.Fatal("growth past a full pool accepted")
	}
	// Free space: unmap and delete the volume that took the rest of the pool.
	for _, p := range []string{st + "/Connections/c1", st + "/Volumes/vol2"} {
		resp, err := arr.DeleteWithHeaders(p, map[string]string{"If-Match": "*"})
		if err != nil {
			t.Fatalf("delete %s: %v", p, err)
		}
		resp.Body.Close()
	}
	v, _ = schemas.GetObject[schemas.Volume](arr, v.ODataID)
	v.CapacityBytes = &want
	if err := v.Update(); err != nil {
		t.Fatalf("Volume.Update grow: %v", err)
	}
	v, _ = schemas.GetObject[schemas.Volume](arr, v.ODataID)
	if *v.CapacityBytes != want {
		t.Errorf("grown volume %d, want %d", *v.CapacityBytes, want)
	}
}
