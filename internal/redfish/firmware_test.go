package redfish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/firmware"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

const simpleUpdate = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"

// onlySystem reads the only system of ep.
func onlySystem(t *testing.T, ep *Endpoint) *System {
	t.Helper()
	ctx := context.Background()
	id, err := ep.FindSystem(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := ep.GetSystem(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func register(t *testing.T, svc *redfishmock.Service, imgs ...redfishmock.Image) {
	t.Helper()
	for _, img := range imgs {
		if err := svc.RegisterImage(img); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUpdateFirmwareBIOSLandsAfterReset(t *testing.T) {
	for _, p := range []string{redfishmock.PersonalityDell, redfishmock.PersonalityGeneric} {
		t.Run(p, func(t *testing.T) {
			ep, svc := mockEndpoint(t, "r2", "nfs1-bmc", redfishmock.Options{ServerPersonality: p})
			ctx := context.Background()
			sys := onlySystem(t, ep)
			uri := "http://repo.lab/r740/BIOS_2.12.2.exe"
			register(t, svc, redfishmock.Image{URI: uri, Component: redfishmock.ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}})
			want := FirmwareUpdate{Component: "bios", Version: "2.12.2", ImageURI: uri, Models: []string{"PowerEdge R740"}}

			res, err := ep.UpdateFirmware(ctx, sys, want, fastWaiter())
			if err != nil {
				t.Fatal(err)
			}
			if !res.Sent || !res.ResetRequired || res.Task == "" || res.After.Version != "2.10.2" {
				t.Fatalf("staged BIOS: %+v", res)
			}
			inv, err := ep.FirmwareInventory(ctx, sys.URI)
			if err != nil {
				t.Fatal(err)
			}
			bios, err := firmware.Find(inv, firmware.KindBIOS)
			if err != nil || bios.Version != "2.10.2" {
				t.Fatalf("BIOS before the reset: %+v %v", bios, err)
			}
			if p == redfishmock.PersonalityDell {
				if bios.Pending != "2.12.2" {
					t.Errorf("iDRAC's Available- entry not read as pending: %+v", bios)
				}
				// Staged already: nothing is sent again.
				posts := svc.RequestCount("POST", simpleUpdate)
				again, err := ep.UpdateFirmware(ctx, sys, want, fastWaiter())
				if err != nil || again.Sent || !again.ResetRequired || svc.RequestCount("POST", simpleUpdate) != posts {
					t.Errorf("second call while staged: %+v %v", again, err)
				}
			}
			if err := ep.Reset(ctx, sys, PickReset(sys, "ForceRestart")); err != nil {
				t.Fatal(err)
			}
			if err := ep.waitPower(ctx, sys.ID, "On", fastWaiter()); err != nil {
				t.Fatal(err)
			}
			if err := fastWaiter().Until(ctx, "BIOS 2.12.2", func() (bool, string, error) {
				inv, err := ep.FirmwareInventory(ctx, sys.URI)
				if err != nil {
					return false, "", err
				}
				b, err := firmware.Find(inv, "BIOS")
				return b.Version == "2.12.2" && b.Pending == "", b.Version, err
			}); err != nil {
				t.Fatal(err)
			}
			if tk, err := ep.GetTask(ctx, res.Task); err != nil || !tk.Done || tk.Failed || tk.Scheduled {
				t.Errorf("update task after the reset: %+v %v", tk, err)
			}
			if s := onlySystem(t, ep); s.BiosVersion != "2.12.2" {
				t.Errorf("ComputerSystem BiosVersion %s after the reset", s.BiosVersion)
			}
			posts := svc.RequestCount("POST", simpleUpdate)
			done, err := ep.UpdateFirmware(ctx, sys, want, fastWaiter())
			if err != nil || done.Sent || done.ResetRequired || svc.RequestCount("POST", simpleUpdate) != posts {
				t.Errorf("at version after the reset: %+v %v", done, err)
			}
		})
	}
}

func TestUpdateFirmwareAlreadyAtVersion(t *testing.T) {
	ep, svc := mockEndpoint(t, "r1", "meta1-bmc", redfishmock.Options{})
	// 4.40.0.0 is iDRAC's 4.40.00.00: numerically equal, so no request.
	res, err := ep.UpdateFirmware(context.Background(), onlySystem(t, ep),
		FirmwareUpdate{Component: "iDRAC.Embedded.1-1", Version: "4.40.0.0", ImageURI: "http://repo.lab/idrac.exe"}, fastWaiter())
	if err != nil || res.Sent || res.ResetRequired || res.Before.Kind != firmware.KindBMC {
		t.Fatalf("already at version: %+v %v", res, err)
	}
	if n := svc.RequestCount("POST", simpleUpdate); n != 0 {
		t.Errorf("%d SimpleUpdate requests for a component already at its version", n)
	}
}

func TestUpdateFirmwareBMCAppliesWithoutReset(t *testing.T) {
	ep, svc := mockEndpoint(t, "r4", "osd1-bmc", redfishmock.Options{})
	uri := "https://repo.lab/as-2124/bmc-1.2.3.bin"
	register(t, svc, redfishmock.Image{URI: uri, Component: redfishmock.ComponentBMC, Version: "1.2.3", Models: []string{"AS-2124US-TNRP"}})
	res, err := ep.UpdateFirmware(context.Background(), onlySystem(t, ep), FirmwareUpdate{Component: "BMC", Version: "1.2.3", ImageURI: uri}, fastWaiter())
	if err != nil || !res.Sent || res.ResetRequired || res.After.Version != "1.2.3" || res.Before.Version != "1.0.0" {
		t.Fatalf("BMC update: %+v %v", res, err)
	}
	if _, bmc, _ := svc.Firmware(); bmc != "1.2.3" {
		t.Errorf("mock BMC runs %s", bmc)
	}
}

func TestUpdateFirmwareMultipartPush(t *testing.T) {
	ep, svc := mockEndpoint(t, "r2", "nfs2-bmc", redfishmock.Options{})
	image := []byte("iDRAC-with-Lifecycle-Controller_Firmware_5.00.00.00")
	sum := sha256.Sum256(image)
	register(t, svc, redfishmock.Image{Component: redfishmock.ComponentBMC, Version: "5.00.00.00", Models: []string{"PowerEdge R740"}, SHA256: hex.EncodeToString(sum[:])})
	res, err := ep.UpdateFirmware(context.Background(), onlySystem(t, ep), FirmwareUpdate{Component: "BMC", Version: "5.00.00.00",
		ImageURI: "file:///srv/fw/iDRAC_5.00.00.00.d9", Image: image}, fastWaiter())
	if err != nil || !res.Sent || res.After.Version != "5.00.00.00" {
		t.Fatalf("multipart push: %+v %v", res, err)
	}
	if svc.RequestCount("POST", "/redfish/v1/UpdateService/MultipartUpload") != 1 || svc.RequestCount("POST", simpleUpdate) != 0 {
		t.Errorf("the push did not go through MultipartHttpPushUri: %v", svc.Stats())
	}
}

func TestUpdateFirmwareFailures(t *testing.T) {
	ep, svc := mockEndpoint(t, "r2", "nfs1-bmc", redfishmock.Options{})
	ctx := context.Background()
	sys := onlySystem(t, ep)
	r640 := "http://repo.lab/r640/BIOS_2.12.2.exe"
	r740 := "http://repo.lab/r740/BIOS_2.12.2.exe"
	register(t, svc, redfishmock.Image{URI: r640, Component: redfishmock.ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R640"}},
		redfishmock.Image{URI: r740, Component: redfishmock.ComponentBIOS, Version: "2.12.2", Models: []string{"PowerEdge R740"}})

	// The model is checked before anything is sent when the caller knows it.
	_, err := ep.UpdateFirmware(ctx, sys, FirmwareUpdate{Component: "BIOS", Version: "2.12.2", ImageURI: r640, Models: []string{"PowerEdge R640"}}, fastWaiter())
	if !errors.Is(err, firmware.ErrWrongModel) || !strings.Contains(err.Error(), "PowerEdge R740") || svc.RequestCount("POST", simpleUpdate) != 0 {
		t.Errorf("wrong model, known: %v", err)
	}
	// Else the BMC refuses it: the task ends in Exception.
	_, err = ep.UpdateFirmware(ctx, sys, FirmwareUpdate{Component: "BIOS", Version: "2.12.2", ImageURI: r640}, fastWaiter())
	for _, want := range []string{"updating BIOS of nfs1-bmc from 2.10.2 to 2.12.2", "Exception", "the image is for PowerEdge R640"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("wrong model at the BMC: %v, want %q", err, want)
		}
	}
	// A flash that fails.
	if err := svc.FailNextUpdate(true); err != nil {
		t.Fatal(err)
	}
	res, err := ep.UpdateFirmware(ctx, sys, FirmwareUpdate{Component: "BIOS", Version: "2.12.2", ImageURI: r740}, fastWaiter())
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "Update.1.1.ApplyFailed") || res == nil || !res.Sent {
		t.Errorf("failed flash: %+v %v", res, err)
	}
	if bios, _, pending := svc.Firmware(); bios != "2.10.2" || pending != "" {
		t.Errorf("after the failures the BMC runs %s, staged %q", bios, pending)
	}
	// Unknown component: named, with what there is.
	if _, err := ep.UpdateFirmware(ctx, sys, FirmwareUpdate{Component: "NIC.Slot.5-1", Version: "1", ImageURI: r740}, fastWaiter()); !errors.Is(err, firmware.ErrNoComponent) ||
		!strings.Contains(err.Error(), "Integrated Dell Remote Access Controller") {
		t.Errorf("unknown component: %v", err)
	}
}
