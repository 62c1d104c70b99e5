package agentbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestGOARCH(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: "x86_64", want: "amd64"},
		{in: "x86_64\n", want: "amd64"},
		{in: "aarch64", want: "arm64"},
		{in: "arm64", want: "arm64"},
		{in: "armv7l", wantErr: true},
		{in: "ppc64le", wantErr: true},
		{in: "i686", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := GOARCH(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrUnknownArch) {
					t.Fatalf("GOARCH(%q) error = %v, want ErrUnknownArch", tt.in, err)
				}
				if tt.in != "" && !strings.Contains(err.Error(), tt.in) {
					t.Errorf("error %q does not name the architecture %q", err, tt.in)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("GOARCH(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	amd := []byte("\x7fELF fake amd64 agent")
	fsys := fstest.MapFS{
		"dist/README":                       {Data: []byte("readme")},
		"dist/hpcstorage-agent-linux-amd64": {Data: amd},
		"dist/hpcstorage-agent-linux-arm64": {Data: nil},
	}
	data, sum, err := load(fsys, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(amd)
	if string(data) != string(amd) || sum != hex.EncodeToString(want[:]) {
		t.Errorf("load(amd64) = %q %s; want %q %x", data, sum, amd, want)
	}
	// An empty file is what an interrupted build leaves: treat as missing.
	if _, _, err := load(fsys, "arm64"); !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "agent_path") {
		t.Errorf("load(arm64) error = %v, want ErrNotBuilt with a hint", err)
	}
	if _, _, err := load(fstest.MapFS{}, "amd64"); !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "make build") {
		t.Errorf("load(missing) error = %v, want ErrNotBuilt naming make build", err)
	}
	if _, _, err := load(fsys, "riscv64"); !errors.Is(err, ErrUnknownArch) {
		t.Errorf("load(riscv64) error = %v, want ErrUnknownArch", err)
	}
}

// TestFor checks the embedded builds: whichever exist must hash correctly,
// and missing ones must say how to get them.
func TestFor(t *testing.T) {
	for _, arch := range Arches {
		data, sum, err := For(arch)
		if errors.Is(err, ErrNotBuilt) {
			t.Logf("%s: not embedded (run make agent-dist): %v", arch, err)
			continue
		}
		if err != nil {
			t.Fatalf("For(%s): %v", arch, err)
		}
		h := sha256.Sum256(data)
		if sum != hex.EncodeToString(h[:]) {
			t.Errorf("For(%s) checksum %s does not match its data", arch, sum)
		}
		if len(data) < 4 || string(data[:4]) != "\x7fELF" {
			t.Errorf("For(%s) is not an ELF binary", arch)
		}
		again, sum2, _ := For(arch)
		if sum2 != sum || &again[0] != &data[0] {
			t.Errorf("For(%s) is not cached", arch)
		}
	}
}
