package firmware

import (
	"errors"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"2.12.2", "2.9.10", 1},
		{"2.10.2", "2.12.2", -1},
		{"4.40.00.00", "4.40.0.0", 0},
		{"4.40.00.00", "4.40.10.00", -1},
		{"6.00.30.00", "4.40.29.00", 1},
		{"2.10", "2.10.0", 0},
		{"2.10", "2.10.1", -1},
		{"iLO 5 v2.72", "ilo 5 v2.8", 1},
		{"P79 v1.45", "P79 v1.10", 1},
		{"1.0.0", "1.0.0-beta", 1},
		{"99999999999999999999999.1", "99999999999999999999998.9", 1},
	}
	for _, tt := range tests {
		if got := Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

// dellInventory is what iDRAC 9 reports, ids as in the libredfish capture.
var dellInventory = []Component{
	{ID: "Installed-159-2.10.2__BIOS.Setup.1-1", Name: "BIOS", Version: "2.10.2", SoftwareID: "159", Kind: KindBIOS, Updateable: true},
	{ID: "Installed-25227-4.40.00.00__iDRAC.Embedded.1-1", Name: "Integrated Dell Remote Access Controller", Version: "4.40.00.00",
		SoftwareID: "25227", Kind: KindBMC, Updateable: true},
}

func TestCheckFloors(t *testing.T) {
	if err := CheckFloors(dellInventory, []Floor{CascadeLakeBIOS("2.1.8"), {Component: "iDRAC.Embedded.1-1", Min: "4.40.0.0"}}); err != nil {
		t.Errorf("floors met: %v", err)
	}
	err := CheckFloors(dellInventory, []Floor{CascadeLakeBIOS("2.12.2"), {Component: "bmc", Min: "5.00.00.00", Why: "SSL fix"}})
	if !errors.Is(err, ErrBelowFloor) {
		t.Fatalf("below floors: %v", err)
	}
	for _, want := range []string{"BIOS runs 2.10.2, below 2.12.2", "Cascade Lake", "Integrated Dell Remote Access Controller (BMC) runs 4.40.00.00, below 5.00.00.00 (SSL fix)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	staged := append([]Component(nil), dellInventory...)
	staged[0].Pending = "2.12.2"
	if err := CheckFloors(staged, []Floor{CascadeLakeBIOS("2.12.2")}); err == nil || !strings.Contains(err.Error(), "2.12.2 is staged") {
		t.Errorf("a staged BIOS still runs the old one: %v", err)
	}
	if err := CheckFloors(dellInventory, []Floor{{Component: "NIC.Slot.5-1", Min: "1"}}); !errors.Is(err, ErrNoComponent) || !strings.Contains(err.Error(), "BIOS, Integrated Dell") {
		t.Errorf("floor on a missing component: %v", err)
	}
	if err := CheckFloors(dellInventory, []Floor{{Component: "BIOS", Min: " . "}}); !errors.Is(err, ErrInvalidFloor) {
		t.Errorf("empty min: %v", err)
	}
}

func TestCheckImageModel(t *testing.T) {
	img := Image{URI: "https://repo/bios_r640.exe", Component: KindBIOS, Version: "2.12.2", Models: []string{"PowerEdge R640"}}
	err := CheckImageModel(img, "PowerEdge R740")
	if !errors.Is(err, ErrWrongModel) || !strings.Contains(err.Error(), "fits PowerEdge R640, not this system's model PowerEdge R740") {
		t.Errorf("wrong model: %v", err)
	}
	img.Models = append(img.Models, "poweredge r740")
	if err := CheckImageModel(img, "PowerEdge R740"); err != nil {
		t.Errorf("listed model refused: %v", err)
	}
}
