package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startLab runs a lab command in-process and returns its JSON document.
func startLab(t *testing.T, run func(context.Context, []string, io.Writer, io.Writer) error, args ...string) labDoc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, pw, io.Discard)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("clean shutdown: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("command did not stop after cancel")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read endpoints: %v", err)
	}
	var doc labDoc
	if err := json.Unmarshal([]byte(line), &doc); err != nil {
		t.Fatalf("endpoints are not one JSON document: %v\n%s", err, line)
	}
	go io.Copy(io.Discard, pr)
	return doc
}

func clientFor(t *testing.T, pemText string) *http.Client {
	t.Helper()
	if pemText == "" {
		return &http.Client{Timeout: 10 * time.Second}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(pemText)) {
		t.Fatal("CA PEM does not parse")
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

func getJSON(t *testing.T, c *http.Client, url, user, pass string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.SetBasicAuth(user, pass)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestServeRedfishEveryEndpoint(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"r1 random ports tls", []string{"--design", "r1", "--listen", "127.0.0.1:0", "--ca-file", filepath.Join(t.TempDir(), "ca.pem")}},
		{"r2 plain http", []string{"--design", "r2", "--listen", "127.0.0.1:0", "--plain-http", "--password", "pw", "--drive-size", "8TB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := startLab(t, runServeRedfish, tt.args...)
			want := map[string]int{"r1": 10, "r2": 3}[doc.Design]
			if len(doc.Endpoints) != want {
				t.Fatalf("%d endpoints, want %d", len(doc.Endpoints), want)
			}
			if doc.CAFile != "" {
				if b, err := os.ReadFile(doc.CAFile); err != nil || string(b) != doc.CACertPEM {
					t.Errorf("ca file %s: %v", doc.CAFile, err)
				}
			}
			c := clientFor(t, doc.CACertPEM)
			seen := map[string]bool{}
			for _, ep := range doc.Endpoints {
				if seen[ep.URL] {
					t.Fatalf("two endpoints share %s", ep.URL)
				}
				seen[ep.URL] = true
				if !strings.HasPrefix(ep.URL, doc.Scheme+"://127.0.0.1:") || ep.Username == "" || ep.Password == "" {
					t.Errorf("endpoint %+v", ep)
				}
				path := "/redfish/v1/Systems"
				if ep.Kind == "array" {
					path = "/redfish/v1/Storage/controller_a"
					if len(ep.CabledTo) == 0 {
						t.Errorf("%s: no cabling", ep.Name)
					}
				}
				if code, body := getJSON(t, c, ep.URL+path, ep.Username, ep.Password); code != 200 || body["@odata.id"] != path {
					t.Errorf("%s %s: %d %v", ep.Name, path, code, body["@odata.id"])
				}
				if code, _ := getJSON(t, c, ep.URL+path, ep.Username, "wrong"); code != 401 {
					t.Errorf("%s: wrong password answered %d", ep.Name, code)
				}
				if code, info := getJSON(t, c, ep.ControlURL+"/info", ep.Username, ep.Password); code != 200 || info["name"] != ep.Name {
					t.Errorf("%s control: %d %v", ep.Name, code, info)
				}
			}
		})
	}
}

func TestServeRedfishConsecutivePorts(t *testing.T) {
	port := freePort(t)
	doc := startLab(t, runServeRedfish, "--design", "r2", "--listen", "127.0.0.1:"+strconv.Itoa(port))
	for i, ep := range doc.Endpoints {
		if want := "https://127.0.0.1:" + strconv.Itoa(port+i); ep.URL != want {
			t.Errorf("endpoint %d at %s, want %s", i, ep.URL, want)
		}
	}
}

func TestServeRedfishBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "--design is required"},
		{[]string{"--design", "r9"}, "unknown design"},
		{[]string{"--design", "r1", "--listen", "nope"}, "--listen"},
		{[]string{"--design", "r1", "--drive-size", "-3TB"}, "--drive-size"},
		{[]string{"--design", "r1", "--server-personality", "ibm"}, "personality"},
	}
	for _, tt := range tests {
		err := runServeRedfish(context.Background(), tt.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.args, err, tt.want)
		}
	}
	if err := runReplay(context.Background(), []string{"--dir", t.TempDir()}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "mockup") {
		t.Errorf("replay of an empty folder: %v", err)
	}
}

func TestReplayCommand(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "..", "shared", "mockups", "libredfish-hpe")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("capture %s not present", dir)
	}
	doc := startLab(t, runReplay, "--dir", dir, "--listen", "127.0.0.1:0")
	ep := doc.Endpoints[0]
	c := clientFor(t, doc.CACertPEM)
	if code, body := getJSON(t, c, ep.URL+"/redfish/v1/systems/1/bios/settings/", ep.Username, ep.Password); code != 200 || body["Attributes"] == nil {
		t.Errorf("replayed settings: %d", code)
	}
	if code, _ := getJSON(t, c, ep.ControlURL+"/stats", ep.Username, ep.Password); code != 200 {
		t.Errorf("control API: %d", code)
	}
}

// TestServeRedfishSignal runs the real binary and stops it with SIGTERM.
func TestServeRedfishSignal(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hpcstorage-lab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve-redfish", "--design", "r4", "--listen", "127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var doc labDoc
	if err := json.Unmarshal([]byte(line), &doc); err != nil || len(doc.Endpoints) != 7 {
		t.Fatalf("endpoints: %v (%d)", err, len(doc.Endpoints))
	}
	ep := doc.Endpoints[0]
	if code, _ := getJSON(t, clientFor(t, doc.CACertPEM), ep.URL+"/redfish/v1/Systems/1", ep.Username, ep.Password); code != 200 {
		t.Errorf("GET %d", code)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("no exit after SIGTERM")
	}
}
