// Package lab runs a whole reference design on this machine: the mock BMCs
// and arrays of the design (internal/lab/redfishmock, santricitymock), one
// in-process SSH node per server and client (internal/lab/labnode) with its
// own fake root, and the cabling between them: a volume mapped to a server
// appears in that node's root as a block device with its WWN. It writes one
// Terraform variable, lab (TFVarsFile), and the endpoints' passwords in the
// provider's environment names (EnvFile), so examples run against it
// unchanged.
package lab

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/labnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/santricitymock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// Files the lab writes in its folder.
const (
	StateFile      = "lab.json"
	TFVarsFile     = "lab.auto.tfvars.json"
	EnvFile        = "lab.env"
	KeyFile        = "id_ed25519"
	KnownHostsFile = "known_hosts"
	CAFile         = "ca.pem"
	SecretFile     = "beegfs-connauth"
	NodesDir       = "nodes"
	// SharedDir holds the cluster-wide state the nodes' simulators share
	// (a CIB, a GPFS or Ceph cluster).
	SharedDir = "shared"
)

// Node roles.
const (
	RoleManagement = "management"
	RoleMetadata   = "metadata"
	RoleStorage    = "storage"
	RoleClient     = "client"
)

// MaxClients is the most client nodes a lab runs: a site's thousand and
// room to spare. Each lab node costs two file descriptors while idle (its
// listener and its root) and a few while a session runs (scale.go).
const MaxClients = 4000

// ErrNotRunning is returned when a folder holds no running lab.
var ErrNotRunning = errors.New("no lab running")

// Config says what to start.
type Config struct {
	Design string // r1 .. r5
	Dir    string // created if missing; node roots go to Dir/nodes/<name>
	// Clients adds client nodes client01..clientNN (ClientName), up to
	// MaxClients.
	Clients int
	// DriveSizeBytes overrides the HDD size of the design's arrays.
	DriveSizeBytes int64
	// Password is every BMC's and array's password (default: random).
	Password string
	// Simulator is the lab's simulator program installed in every node
	// root (internal/lab/sim; default: sim.Locate).
	Simulator string
	// PowerDelay is how long each power transition of a BMC lasts
	// (default: the mock's, 5s); a reboot is two.
	PowerDelay time.Duration
	// PacemakerSchemas is Pacemaker 3's xml/ folder (its RELAX NG schema
	// parts): the lab checks the CIB of a Pacemaker 3 cluster against the
	// pacemaker-4.0 schema assembled from it (sim/pacemaker3.go). Empty:
	// such a CIB is checked with Debian's crm_verify only.
	PacemakerSchemas string
	// GPFSRelease is the Storage Scale rpm version R5's nodes have
	// installed ("5.2.3-0"; default GPFSRelease): the mm simulators take
	// that release's options.
	GPFSRelease string
}

// Lab is a running design.
type Lab struct {
	State State

	mock  *redfishmock.Lab
	nodes *labnode.Lab
	// eseries are the design's E-Series arrays (santricitymock), if any.
	eseries []*santricitymock.Server
	roots   map[string]string // node name -> root

	mu    sync.Mutex
	disks map[string]map[string]string // node -> wwn -> kernel name
	// fstypes are volumes that already carry a file system (wwn -> type,
	// VolumeRequest.FSType): every node they are cabled to sees it.
	fstypes map[string]string
	// paths is how many sd devices a mapped volume gives a node (r2: 2,
	// r2.go); morePaths node -> wwn -> the kernel names beyond the first.
	paths     int
	morePaths map[string]map[string][]string
	errs      []error
	closed    bool
	// control is the node-faults socket (faults.go).
	control net.Listener
}

// State is what `status` and `down` read from Dir/lab.json.
type State struct {
	PID       int        `json:"pid"`
	Design    string     `json:"design"`
	Dir       string     `json:"dir"`
	StartedAt time.Time  `json:"started_at"`
	Nodes     []NodeInfo `json:"nodes"`
	Endpoints []Endpoint `json:"endpoints"`
	// CACertificate signs every endpoint's TLS certificate (PEM).
	CACertificate string `json:"ca_certificate"`
}

// NodeInfo is one SSH lab node.
type NodeInfo struct {
	Name    string `json:"name"`
	Role    string `json:"role"`
	Host    string `json:"host"` // 127.0.0.1:port, what resources put in `host`
	Root    string `json:"root"`
	HostKey string `json:"host_key"`
	BMC     string `json:"bmc"` // endpoint name of its BMC ("" for clients)
}

// Endpoint is one mock BMC or array. Every field is always written, so the
// lab variable's endpoints are objects of one shape.
type Endpoint struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Model    string   `json:"model"`
	URL      string   `json:"url"`
	Username string   `json:"username"`
	Node     string   `json:"node"`      // the server a BMC belongs to ("" for arrays)
	CabledTo []string `json:"cabled_to"` // the servers an array is cabled to ([] for BMCs)
	// API is "santricity" for an E-Series array; empty for Redfish.
	API string `json:"api,omitempty"`
	// CACertificate is set where the endpoint has its own CA (each E-Series
	// array); the others use the lab's ca_certificate.
	CACertificate string `json:"ca_certificate,omitempty"`
}

// Up starts the design and writes the lab's files. Close stops it.
func Up(cfg Config) (*Lab, error) {
	if cfg.Design == "" {
		return nil, errors.New("design is required (" + strings.Join(redfishmock.Designs(), ", ") + ")")
	}
	if cfg.Dir == "" {
		return nil, errors.New("dir is required")
	}
	if cfg.Clients < 0 || cfg.Clients > MaxClients {
		return nil, fmt.Errorf("clients %d: want 0 to %d", cfg.Clients, MaxClients)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if st, err := ReadState(dir); err == nil && processAlive(st.PID) {
		return nil, fmt.Errorf("a lab (pid %d) is already running in %s: run down first", st.PID, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// A previous lab's nodes are stale: every up starts from fresh roots.
	for _, stale := range []string{NodesDir, SharedDir} {
		if err := os.RemoveAll(filepath.Join(dir, stale)); err != nil {
			return nil, err
		}
	}
	if cfg.PacemakerSchemas != "" {
		if _, err := sim.AssembleCIBSchema(cfg.PacemakerSchemas, filepath.Join(dir, SharedDir, sim.PacemakerSchemaShared), sim.Schema4); err != nil {
			return nil, fmt.Errorf("pacemaker schemas: %w", err)
		}
	}
	d, err := redfishmock.NewDesign(cfg.Design, redfishmock.Options{Username: "admin", Password: cfg.Password, DriveSizeBytes: cfg.DriveSizeBytes, PowerDelay: cfg.PowerDelay})
	if err != nil {
		return nil, err
	}
	if cfg.Simulator == "" {
		if cfg.Simulator, err = sim.Locate(); err != nil {
			return nil, err
		}
	}
	l := &Lab{roots: map[string]string{}, disks: map[string]map[string]string{}, paths: pathsFor(cfg.Design),
		morePaths: map[string]map[string][]string{}}
	type planned struct {
		name, role, bmc string
		disks           []fakenode.Disk // local drives (r4.go)
	}
	var plan []planned
	for _, s := range d.Services() {
		sp := s.Spec()
		if sp.Kind == redfishmock.KindServer && sp.Node != "" {
			plan = append(plan, planned{sp.Node, roleOf(sp.Node), sp.Name, localDisks(sp)})
		}
	}
	for i := 1; i <= cfg.Clients; i++ {
		plan = append(plan, planned{ClientName(i, cfg.Clients), RoleClient, "", nil})
	}
	if len(plan) == 0 {
		return nil, fmt.Errorf("design %s has no servers", cfg.Design)
	}

	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "hpcstorage-lab")
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(dir, KeyFile), pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}

	nodesDir := filepath.Join(dir, NodesDir)
	l.nodes, err = labnode.Start(labnode.Config{
		Nodes:      len(plan),
		Dir:        nodesDir,
		Name:       func(i int) string { return plan[i].name },
		ClientKeys: []ssh.PublicKey{sshPub},
		Seed: func(root string, i int) error {
			if err := fakenode.SeedWith(root, seedProfile(plan[i].role), fakenode.Options{Hostname: plan[i].name, Simulator: cfg.Simulator,
				SharedDir: filepath.Join(dir, SharedDir), Disks: plan[i].disks}); err != nil {
				return err
			}
			if err := seedDesign(d.Name, plan[i].role, root); err != nil {
				return err
			}
			return seedHA(d.Name, plan[i].role, root)
		},
	})
	if err != nil {
		return nil, err
	}
	for _, n := range l.nodes.Nodes {
		l.roots[n.Name] = n.Root
	}
	if err := seedR5(d.Name, dir, l.roots, cfg.GPFSRelease); err != nil { // r5.go
		l.nodes.Close()
		return nil, err
	}
	// Cable before serving, so no mapping can be missed.
	d.OnMapping(l.onMapping)
	d.OnPower(l.onPower)
	l.mock, err = d.Start(redfishmock.StartConfig{})
	if err != nil {
		l.nodes.Close()
		return nil, err
	}
	l.State = State{PID: os.Getpid(), Design: d.Name, Dir: dir, StartedAt: time.Now().UTC()}
	for i, n := range l.nodes.Nodes {
		l.State.Nodes = append(l.State.Nodes, NodeInfo{Name: n.Name, Role: plan[i].role, Host: n.Addr, Root: n.Root,
			HostKey: n.AuthorizedKey(), BMC: plan[i].bmc})
	}
	for _, ep := range l.mock.Endpoints {
		l.State.Endpoints = append(l.State.Endpoints, Endpoint{Name: ep.Name, Kind: string(ep.Kind), Model: ep.Model,
			URL: ep.URL, Username: ep.Username, Node: ep.Node, CabledTo: append([]string{}, ep.CabledTo...)})
	}
	if l.mock.CA != nil {
		l.State.CACertificate = string(l.mock.CA.PEM())
	}
	if err := l.startESeries(d.Name, cfg.Password); err != nil {
		l.Close()
		return nil, err
	}
	if err := l.writeFiles(dir); err != nil {
		l.Close()
		return nil, err
	}
	l.serveControl(dir)
	return l, nil
}

// seedDesign adds a design's own pieces to a seeded node root (r2.go,
// r4.go; r5 is seeded once every root is known, seedR5).
func seedDesign(design, role, root string) error {
	switch design {
	case "r2":
		if role != RoleClient {
			return seedR2(root)
		}
	case "r4":
		return seedR4(role, root)
	}
	return nil
}

// roleOf names a design server's role from its host name (r1: mgmt,
// meta1, stor1; other designs: storage-like servers).
func roleOf(node string) string {
	switch {
	case strings.HasPrefix(node, "mgmt"):
		return RoleManagement
	case strings.HasPrefix(node, "meta"), strings.HasPrefix(node, "mon"):
		return RoleMetadata
	default:
		return RoleStorage
	}
}

func seedProfile(role string) fakenode.Profile {
	switch role {
	case RoleManagement, RoleMetadata:
		return fakenode.Metadata
	case RoleClient:
		return fakenode.Client
	default:
		return fakenode.Storage
	}
}

// tfvars is the variables file: one variable, lab, with everything a root
// module needs to reach the lab except the passwords (EnvFile). A root
// module declares lab with the fields it uses (Terraform drops the others).
// Its nodes and endpoints have lab.json's shapes, keyed by name.
type tfvars struct {
	Lab labVar `json:"lab"`
}

type labVar struct {
	Design             string              `json:"design"`
	Dir                string              `json:"dir"`
	CACertificate      string              `json:"ca_certificate"`
	CAFile             string              `json:"ca_file"`
	Endpoints          map[string]Endpoint `json:"endpoints"`
	Nodes              map[string]NodeInfo `json:"nodes"`
	SSH                labSSH              `json:"ssh"`
	BeegfsConnAuthFile string              `json:"beegfs_conn_auth_file"`
	EnvFile            string              `json:"env_file"`
	// CorosyncAuthkeyFile is set for designs under pacemaker (ha.go).
	CorosyncAuthkeyFile string `json:"corosync_authkey_file,omitempty"`
}

type labSSH struct {
	User           string `json:"user"`
	PrivateKeyFile string `json:"private_key_file"`
	KnownHostsFile string `json:"known_hosts_file"`
}

var envNonAlnum = regexp.MustCompile(`[^A-Z0-9]+`)

// PasswordEnv is the provider's environment fallback for an endpoint's
// password (HPCSTORAGE_<NAME>_PASSWORD, the name upper-cased, other
// characters as _).
func PasswordEnv(endpoint string) string {
	return "HPCSTORAGE_" + envNonAlnum.ReplaceAllString(strings.ToUpper(endpoint), "_") + "_PASSWORD"
}

func (l *Lab) writeFiles(dir string) error {
	caPEM := ""
	if l.mock.CA != nil {
		caPEM = string(l.mock.CA.PEM())
		if err := writeFile(filepath.Join(dir, CAFile), l.mock.CA.PEM(), 0o644); err != nil {
			return err
		}
	}
	if err := l.nodes.WriteKnownHosts(filepath.Join(dir, KnownHostsFile)); err != nil {
		return err
	}
	// A fresh BeeGFS connection secret per lab, for conn_auth_secret_file.
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, SecretFile), []byte(hex.EncodeToString(secret)+"\n"), 0o600); err != nil {
		return err
	}
	v := labVar{Design: l.State.Design, Dir: dir, CACertificate: caPEM, Endpoints: map[string]Endpoint{}, Nodes: map[string]NodeInfo{},
		SSH:                labSSH{User: "root", PrivateKeyFile: filepath.Join(dir, KeyFile), KnownHostsFile: filepath.Join(dir, KnownHostsFile)},
		BeegfsConnAuthFile: filepath.Join(dir, SecretFile), EnvFile: filepath.Join(dir, EnvFile)}
	if caPEM != "" {
		v.CAFile = filepath.Join(dir, CAFile)
	}
	authkey, err := writeAuthkey(l.State.Design, dir)
	if err != nil {
		return err
	}
	v.CorosyncAuthkeyFile = authkey
	for _, ep := range l.State.Endpoints {
		v.Endpoints[ep.Name] = ep
	}
	for _, n := range l.State.Nodes {
		v.Nodes[n.Name] = n
	}
	// NAME=value lines: for `set -a; . lab.env`, GitHub's $GITHUB_ENV and
	// GitLab's dotenv reports alike.
	var env strings.Builder
	for _, ep := range l.mock.Endpoints {
		if strings.ContainsAny(ep.Password, "\n\r") {
			return fmt.Errorf("endpoint %s: a password with a line break cannot go to %s", ep.Name, EnvFile)
		}
		fmt.Fprintf(&env, "%s=%s\n", PasswordEnv(ep.Name), ep.Password)
	}
	for _, s := range l.eseries {
		fmt.Fprintf(&env, "%s=%s\n", PasswordEnv(s.Service.Spec().Name), s.Password)
	}
	if err := writeFile(filepath.Join(dir, EnvFile), []byte(env.String()), 0o600); err != nil {
		return err
	}
	b, err := json.MarshalIndent(tfvars{Lab: v}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, TFVarsFile), append(b, '\n'), 0o600); err != nil {
		return err
	}
	// The state file goes last: its presence tells scripts the lab is ready.
	sb, err := json.MarshalIndent(l.State, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, StateFile), append(sb, '\n'), 0o644)
}

// onMapping cables a volume to a node: mapped adds the block device,
// unmapped removes it, resized updates its size.
func (l *Lab) onMapping(ev redfishmock.MappingEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	root, ok := l.roots[ev.Host]
	if !ok {
		return // a host the lab does not run (cabled but no node)
	}
	wwn := normWWN(ev.WWN)
	disks := l.disks[ev.Host]
	if disks == nil {
		disks = map[string]string{}
		l.disks[ev.Host] = disks
	}
	var err error
	switch ev.Kind {
	case "mapped", "resized":
		name, known := disks[wwn]
		if !known {
			if name, err = freeDiskName(root); err != nil {
				break
			}
		}
		d := fakenode.Disk{Name: name, SizeBytes: ev.SizeBytes, Rotational: rotational(ev.Array),
			WWN: wwn, Model: arrayModel(ev.Array), Vendor: arrayVendor(ev.Array)}
		if !known {
			d.FSType = l.fstypes[wwn]
		}
		err = fakenode.AddBlockDevice(root, d)
		if err == nil {
			disks[wwn] = name
			err = l.cableMore(root, ev, d)
		}
	case "unmapped":
		if name, known := disks[wwn]; known {
			err = fakenode.RemoveBlockDevice(root, name)
			delete(disks, wwn)
		}
		if err == nil {
			err = l.cableMore(root, ev, fakenode.Disk{})
		}
	}
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("cabling %s %s of %s to %s: %w", ev.Kind, ev.VolumeName, ev.Array, ev.Host, err))
	}
}

// onPower reboots a server's node with its BMC: powered off, the node
// loses its volatile state (services stop, mounts and modules go back to
// boot's); booted, it starts what is enabled and mounts its fstab.
func (l *Lab) onPower(ev redfishmock.PowerEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	root, ok := l.roots[ev.Node]
	if l.closed || !ok {
		return
	}
	var err error
	switch ev.State {
	case redfishmock.PowerOff:
		if ev.Graceful {
			err = sim.Shutdown(root)
		} else {
			err = sim.PowerOff(root)
		}
	case redfishmock.PowerOn:
		err = sim.Boot(root)
	}
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("power %s of %s (%s): %w", ev.State, ev.Node, ev.System, err))
	}
}

// Errors returns cabling failures so far.
func (l *Lab) Errors() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.errs...)
}

// Disks returns node -> wwn -> kernel name of the cabled volumes.
func (l *Lab) Disks() map[string]map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]map[string]string{}
	for n, m := range l.disks {
		out[n] = map[string]string{}
		for w, k := range m {
			out[n][w] = k
		}
	}
	return out
}

// Mock returns the running mock endpoints.
func (l *Lab) Mock() *redfishmock.Lab { return l.mock }

// Nodes returns the running SSH nodes.
func (l *Lab) Nodes() *labnode.Lab { return l.nodes }

// Close stops the endpoints and the nodes and removes the state file (the
// node roots stay for inspection until the next up).
func (l *Lab) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	var errs []error
	if l.control != nil {
		l.control.Close()
	}
	if l.mock != nil {
		errs = append(errs, l.mock.Close())
	}
	errs = append(errs, l.closeESeries())
	if l.nodes != nil {
		errs = append(errs, l.nodes.Close())
	}
	if l.State.Dir != "" {
		if st, err := ReadState(l.State.Dir); err == nil && st.PID == l.State.PID {
			errs = append(errs, os.Remove(filepath.Join(l.State.Dir, StateFile)))
		}
	}
	return errors.Join(errs...)
}

func normWWN(w string) string {
	w = strings.ToLower(strings.TrimSpace(w))
	w = strings.TrimPrefix(w, "naa.")
	return strings.TrimPrefix(w, "0x")
}

// ME4024 volumes are SSD pools, E-Series EF arrays all flash; ME4084 and
// ME484 are NL-SAS.
func rotational(array string) bool { return !strings.Contains(array, "me4024") && !isESeries(array) }

func arrayVendor(array string) string {
	if isESeries(array) {
		return "NETAPP"
	}
	return "DellEMC"
}

func arrayModel(array string) string {
	base, _, _ := strings.Cut(array, "-")
	return strings.ToUpper(base)
}

// freeDiskName is the first sdX not under sys/block (sdb, ..., sdz, sdaa).
func freeDiskName(root string) (string, error) {
	for k := 0; k < 26*27; k++ {
		name := sdName(k)
		if _, err := os.Lstat(filepath.Join(root, "sys", "block", name)); errors.Is(err, os.ErrNotExist) {
			return name, nil
		}
	}
	return "", errors.New("no free sd name")
}

func sdName(k int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	if k < 26 {
		return "sd" + letters[k:k+1]
	}
	k -= 26
	return "sd" + letters[k/26:k/26+1] + letters[k%26:k%26+1]
}

func writeFile(p string, b []byte, mode os.FileMode) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
