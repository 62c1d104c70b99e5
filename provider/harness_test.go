package provider

// The provider package's test harness, in one place: the served provider
// (factories, a provider per terraform command as a real run starts a new
// plugin process, a reattachable server), the terraform CLI and runner,
// example copies, the R-design labs (mock BMCs and arrays, SSH lab nodes
// from internal/lab/labnode running a fresh build of ./agent against fake
// roots) and the checks the tests share.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim/simtest"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// protoV6ProviderFactories serves the provider in-process to the real terraform CLI.
var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"hpcstorage": providerserver.NewProtocol6WithError(New("test")()),
}

// terraformCLI is the CLI the acceptance harness uses: TF_ACC_TERRAFORM_PATH
// (the Makefile's fallback build), else terraform on PATH.
func terraformCLI(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		testenv.Missing(tb, "no terraform CLI: set TF_ACC_TERRAFORM_PATH or put terraform on PATH (make test does)")
	}
	return p
}

// labEnv reads the lab's endpoint passwords (lab.env), the variables a
// user or CI job exports before running Terraform.
func labEnv(tb testing.TB, labDir string) map[string]string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(labDir, lab.EnvFile))
	if err != nil {
		tb.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	return env
}

// setLabEnv exports them, for providers Terraform starts (they inherit
// this process's environment).
func setLabEnv(tb testing.TB, labDir string) {
	tb.Helper()
	for k, v := range labEnv(tb, labDir) {
		tb.Setenv(k, v)
	}
}

// copyExample copies examples/<name> and the modules it uses into
// dir/examples (no state lands in the source tree) and links the lab's
// variables (lab in dir/lab) into it; it returns the configuration's folder.
func copyExample(t testing.TB, dir, name string, modules ...string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	examples := filepath.Join(filepath.Dir(file), "..", "examples")
	for _, d := range append([]string{name}, modules...) {
		if err := os.CopyFS(filepath.Join(dir, "examples", d), os.DirFS(filepath.Join(examples, d))); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "examples", name)
	if err := os.Symlink(filepath.Join(dir, "lab", lab.TFVarsFile), filepath.Join(cfg, lab.TFVarsFile)); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// labTerraform is the real Terraform CLI on the configuration in cfg,
// with the provider served in this process for the lab in dir/lab (its
// lab.env), an empty CLI configuration and no checkpoint calls.
func labTerraform(t *testing.T, tfPath, dir, cfg string) (*tfexec.Terraform, tfexec.ReattachInfo) {
	t.Helper()
	ri := serveAs(t, "registry.terraform.io/hpcstorage/hpcstorage", labEnv(t, filepath.Join(dir, "lab")))
	tf, err := tfexec.NewTerraform(cfg, tfPath)
	if err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, "empty.tfrc")
	if err := os.WriteFile(rc, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tf.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1", "TF_CLI_CONFIG_FILE": rc})
	return tf, ri
}

// exampleLab is a design's lab with an example copied beside it and
// applied with the real CLI (extra files, by name, join the example
// first): what the module and day-2 tests start from.
type exampleLab struct {
	lab    *lab.Lab
	labDir string
	dir    string // the test folder: lab/, examples/, the CLI config
	cfg    string // the example's folder
	tf     *tfexec.Terraform
	ri     tfexec.ReattachInfo
}

func applyExample(t *testing.T, tfPath string, c lab.Config, extra map[string]string, example string, modules ...string) *exampleLab {
	t.Helper()
	e := &exampleLab{dir: t.TempDir()}
	e.labDir = filepath.Join(e.dir, "lab")
	c.Dir = e.labDir
	l, err := lab.Up(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	e.lab = l
	e.cfg = copyExample(t, e.dir, example, modules...)
	for name, body := range extra {
		if err := os.WriteFile(filepath.Join(e.cfg, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.tf, e.ri = labTerraform(t, tfPath, e.dir, e.cfg)
	ctx := context.Background()
	if err := e.tf.Init(ctx, tfexec.Reattach(e.ri)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := e.tf.Apply(ctx, tfexec.Reattach(e.ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("%s apply: %s", example, time.Since(start).Round(time.Second))
	return e
}

// nodeProviderFactories build a new provider (and so a new SSH pool) for
// every terraform command.
var nodeProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"hpcstorage": func() (tfprotov6.ProviderServer, error) {
		return providerserver.NewProtocol6WithError(New("test")())()
	},
}

var (
	agentOnce sync.Once
	agentDir  string
	agentData []byte
	agentSum  string
	agentErr  error
)

func TestMain(m *testing.M) {
	// resource.Test skips every acceptance test without TF_ACC: under CI
	// that would pass an empty run, so it fails instead (a benchmarks-only
	// run, -run '^$', runs no test).
	flag.Parse()
	if testenv.CI() && os.Getenv("TF_ACC") == "" && flag.Lookup("test.run").Value.String() != "^$" {
		fmt.Fprintln(os.Stderr, "CI=true but TF_ACC is not set: the acceptance tests would all skip (make test sets it)")
		os.Exit(1)
	}
	code := m.Run()
	sshPools.Range(func(_, v any) bool { v.(*transport.Pool).Close(); return true })
	if agentDir != "" {
		os.RemoveAll(agentDir)
	}
	os.Exit(code)
}

// needAgent builds ./agent once per test binary and makes the provider
// ship it (the embedded builds may be absent in a plain go test).
func needAgent(tb testing.TB) {
	tb.Helper()
	agentOnce.Do(func() {
		agentDir, agentErr = os.MkdirTemp("", "provider-agent-")
		if agentErr != nil {
			return
		}
		bin := filepath.Join(agentDir, "hpcstorage-agent")
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./agent")
		cmd.Dir = filepath.Join(filepath.Dir(file), "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentErr = fmt.Errorf("go build ./agent: %v\n%s", err, out)
			return
		}
		agentData, agentErr = os.ReadFile(bin)
		s := sha256.Sum256(agentData)
		agentSum = hex.EncodeToString(s[:])
		sshAgentSource = func(goarch string) ([]byte, string, error) {
			if goarch != runtime.GOARCH {
				return nil, "", fmt.Errorf("test agent is built for %s only, node wants %s", runtime.GOARCH, goarch)
			}
			return agentData, agentSum, nil
		}
	})
	if agentErr != nil {
		tb.Fatalf("agent: %v", agentErr)
	}
}

// nodeLab is a running lab plus the files the provider block points at.
type nodeLab struct {
	*labnode.Lab
	dir        string
	keyFile    string
	knownHosts string
}

// startNodeLab starts n storage nodes (4 ME4084-like HDD volumes each).
func startNodeLab(tb testing.TB, n int) *nodeLab {
	tb.Helper()
	needAgent(tb)
	dir := tb.TempDir()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "test")
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	l := &nodeLab{dir: dir, keyFile: filepath.Join(dir, "id_ed25519"), knownHosts: filepath.Join(dir, "known_hosts")}
	if err := os.WriteFile(l.keyFile, pem.EncodeToMemory(blk), 0o600); err != nil {
		tb.Fatal(err)
	}
	l.Lab, err = labnode.Start(labnode.Config{
		Nodes:      n,
		Dir:        filepath.Join(dir, "nodes"),
		ClientKeys: []ssh.PublicKey{signer.PublicKey()},
		Seed:       seedStorageNode(simtest.Binary(tb)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		l.Close()
		for err := range l.Errors() {
			tb.Errorf("lab: %v", err)
		}
	})
	if err := l.WriteKnownHosts(l.knownHosts); err != nil {
		tb.Fatal(err)
	}
	return l
}

// seedStorageNode lays out R1 storage servers with their array volumes and
// the simulator program simBin.
func seedStorageNode(simBin string) func(root string, i int) error {
	return func(root string, i int) error {
		host := fmt.Sprintf("stor%02d", i+1)
		opts := fakenode.Options{Hostname: host, Disks: fakenode.ArrayVolumes(host, 4), Simulator: simBin}
		if err := fakenode.SeedWith(root, fakenode.Storage, opts); err != nil {
			return err
		}
		return addArpFilter(root)
	}
}

// addArpFilter adds a key a real kernel has and the fake root does not yet.
func addArpFilter(root string) error {
	p := filepath.Join(root, "proc/sys/net/ipv4/conf/all/arp_filter")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte("0\n"), 0o644)
}

// providerBlock configures the provider for the lab.
func (l *nodeLab) providerBlock() string {
	return fmt.Sprintf(`
provider "hpcstorage" {
  ssh = {
    private_key_file  = %q
    known_hosts_files = [%q]
  }
}
`, l.keyFile, l.knownHosts)
}

// host is node i's host attribute.
func (l *nodeLab) host(i int) string { return l.Nodes[i].Addr }

func (l *nodeLab) read(tb testing.TB, i int, p string) string {
	tb.Helper()
	f, err := l.Nodes[i].HostFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func (l *nodeLab) write(tb testing.TB, i int, p, content string) {
	tb.Helper()
	f, err := l.Nodes[i].HostFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// treeHash hashes every path, mode, link target and content under node
// i's root, except the agent's state folder (where it keeps originals and
// its own binary).
func (l *nodeLab) treeHash(tb testing.TB, i int) map[string]string {
	tb.Helper()
	root := l.Nodes[i].Root
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == protocol.StateDir {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := sha256.New()
		fmt.Fprintf(h, "%v|", info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			h.Write([]byte(t))
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// sameTree reports the paths that differ between two tree hashes.
func sameTree(before, after map[string]string) error {
	var diffs []string
	for p, h := range before {
		if a, ok := after[p]; !ok {
			diffs = append(diffs, "removed "+p)
		} else if a != h {
			diffs = append(diffs, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, "added "+p)
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	return fmt.Errorf("node root differs from before (%d paths): %s", len(diffs), strings.Join(diffs, ", "))
}

// nodeCheck is a state check that looks at the lab nodes instead.
type nodeCheck func() error

func (f nodeCheck) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// serveProvider serves a new provider process in-process for terraform
// to reattach to, as plugin-testing does.
func serveProvider(tb testing.TB) (tfexec.ReattachInfo, func()) {
	tb.Helper()
	return serveProviderAt(tb, "registry.terraform.io/hashicorp/hpcstorage", New("bench")())
}

// serveProviderAt serves p in-process under addr (debug mode) and returns
// what terraform needs to reattach to it, and the stop function.
func serveProviderAt(tb testing.TB, addr string, p provider.Provider) (tfexec.ReattachInfo, func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfgCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	go func() {
		// The logging sink keeps SDK logs off stderr unless TF_LOG asks.
		err := tf6server.Serve(addr, providerserver.NewProtocol6(p),
			tf6server.WithDebug(ctx, cfgCh, closeCh), tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithLoggingSink(sinkTB{tb}))
		if err != nil {
			tb.Error(err)
		}
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-cfgCh:
	case <-time.After(30 * time.Second):
		cancel()
		tb.Fatal("provider server did not start")
	}
	ri := tfexec.ReattachInfo{addr: tfexec.ReattachConfig{Protocol: string(rc.Protocol), ProtocolVersion: rc.ProtocolVersion,
		Pid: rc.Pid, Test: rc.Test, Addr: tfexec.ReattachConfigAddr{Network: rc.Addr.Network(), String: rc.Addr.String()}}}
	return ri, func() { cancel(); <-closeCh }
}

// sinkTB adapts testing.TB to the logging sink's interface.
type sinkTB struct{ testing.TB }

func (sinkTB) Parallel() {}

// mockLab serves some endpoints of a reference design over TLS, each with
// the mock's own CA, and writes the provider block that reaches them.
type mockLab struct {
	svcs map[string]*redfishmock.Service
	eps  map[string]redfish.Config
}

func startLab(t testing.TB, design string, opts redfishmock.Options, names ...string) *mockLab {
	t.Helper()
	if opts.Username == "" {
		opts.Username, opts.Password = "root", "lab-s3cret"
	}
	if opts.PowerDelay == 0 {
		opts.PowerDelay = 20 * time.Millisecond
	}
	ca, err := redfishmock.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	lab := &mockLab{svcs: map[string]*redfishmock.Service{}, eps: map[string]redfish.Config{}}
	for _, n := range names {
		svc, err := redfishmock.NewService(design, n, opts)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := redfishmock.Start(svc, "127.0.0.1:0", ca)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		u, p := svc.Credentials()
		lab.svcs[n] = svc
		lab.eps[n] = redfish.Config{Name: n, URL: srv.URL, Username: u, Password: p, CACertPEM: ca.PEM()}
	}
	return lab
}

// providerBlock is the HCL provider block of the lab.
func (l *mockLab) providerBlock() string {
	names := make([]string, 0, len(l.eps))
	for n := range l.eps {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("provider \"hpcstorage\" {\n  endpoints = {\n")
	for _, n := range names {
		c := l.eps[n]
		fmt.Fprintf(&b, "    %q = {\n      url = %q\n      username = %q\n      password = %q\n      ca_certificate = %q\n    }\n",
			n, c.URL, c.Username, c.Password, string(c.CACertPEM))
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// client is a direct Redfish client of a lab endpoint, to change things
// behind Terraform's back (drift) in PreConfig steps.
func (l *mockLab) client(t testing.TB, name string) *redfish.Endpoint {
	t.Helper()
	ep, err := redfish.NewEndpoint(l.eps[name])
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// fastFactories serves a provider whose waits poll every few milliseconds
// and whose retries don't really sleep, so reboots and Retry-After bursts
// take no wall time.
func fastFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"hpcstorage": providerserver.NewProtocol6WithError(&hpcstorageProvider{version: "test", hooks: testHooks{
			pollInterval: 5 * time.Millisecond,
			sleep: func(ctx context.Context, d time.Duration) error {
				if d > 50*time.Millisecond {
					d = 50 * time.Millisecond
				}
				return sleep(ctx, d)
			},
		}}),
	}
}

func fastWaiter() redfish.Waiter {
	return redfish.Waiter{Interval: 5 * time.Millisecond, Timeout: 10 * time.Second}
}

// mockCheck is a state check that asserts on the mock rather than on the
// state (Check funcs can't be used with for_each resources).
type mockCheck func() error

func (f mockCheck) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// r2Lab is the R2 design in the lab with the ME4084 carved as the paper
// says: 8 RAID6 8+2 volumes with a 512 KiB segment, each mapped to both
// NFS servers (and seen twice by each, through its two SAS cards).
type r2Lab struct {
	*r1Lab // the same lab helpers (node, read, providerBlock)
	vols   map[string]string
}

func startR2Lab(t *testing.T) *r2Lab {
	t.Helper()
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r2", Dir: dir, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &r2Lab{r1Lab: &r1Lab{Lab: l, dir: dir}, vols: map[string]string{}}
	for g := 0; g < 8; g++ {
		var drives []string
		for d := 0; d < 10; d++ {
			drives = append(drives, fmt.Sprintf("0.%d", 10*g+d))
		}
		r.provision(t, g+1, "RAID6", drives, []string{"nfs1", "nfs2"}, "")
	}
	return r
}

// provision carves drives into volume nfs_vol<n> mapped to hosts; only
// volumes mapped to both servers are R2's (vols).
func (r *r2Lab) provision(t *testing.T, n int, raid string, drives, hosts []string, fstype string) string {
	t.Helper()
	alias := fmt.Sprintf("nfs_vol%d", n)
	w, err := r.ProvisionVolume(lab.VolumeRequest{Array: "me4084-1", Pool: fmt.Sprintf("dg%02d", n), RAID: raid, Drives: drives,
		Volume: alias, SegmentBytes: 512 << 10, Hosts: hosts, LUN: n, FSType: fstype})
	if err != nil {
		t.Fatal(err)
	}
	if errs := r.Errors(); len(errs) > 0 {
		t.Fatalf("cabling: %v", errs)
	}
	if len(hosts) == 2 {
		r.vols[alias] = w
	}
	return w
}

func (r *r2Lab) hosts() string {
	return fmt.Sprintf(`locals {
  hosts = [%q, %q]
  vols  = jsondecode(%q)
}
`, r.node("nfs1").Host, r.node("nfs2").Host, mustJSON(r.vols))
}

// sharedLVM is the lab's LVM metadata (the volumes' on-disk labels).
func (r *r2Lab) sharedLVM(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, lab.SharedDir, "lvm", "lvm.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loose matches a phrase as Terraform prints it (wrapped at any space).
func loose(phrase string) string {
	words := strings.Fields(phrase)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(words, `\s+`)
}

// upR1 starts the R1 lab with clients and nothing provisioned.
func upR1(t *testing.T, clients int) *r1Lab {
	t.Helper()
	needAgent(t)
	dir := t.TempDir()
	l, err := lab.Up(lab.Config{Design: "r1", Dir: dir, Clients: clients, Simulator: simtest.Binary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return &r1Lab{Lab: l, dir: dir}
}
