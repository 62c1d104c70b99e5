package sim

// The Ceph cluster the lab's cephadm, ceph and rbd simulators share: the
// maps a real cluster keeps in its monitors (hosts, service specs,
// daemons, OSDs, pools, images, auth entities), as one JSON document in
// the lab's shared folder (e.Shared("ceph")), read and written under its
// lock by every command. The cluster runs its orchestrator synchronously:
// where cephadm reconciles in the background, the simulator does it before
// the command returns (see reconcile in ceph_orch.go).
//
// The simulator on the admin node reaches the other hosts (their devices,
// their authorized_keys) through the node registry: every seeded root
// with a shared folder registers itself there under its host name
// (RegisterNode), standing for cephadm's SSH connection to that host.

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// cephState is the whole cluster. Its zero value is "no cluster".
type cephState struct {
	FSID           string    `json:"fsid"`
	Created        time.Time `json:"created"`
	BootstrapHost  string    `json:"bootstrap_host"`
	PublicNetwork  string    `json:"public_network"`
	ClusterNetwork string    `json:"cluster_network"`
	SSHUser        string    `json:"ssh_user"`
	SSHPublicKey   string    `json:"ssh_public_key"`
	// Epochs of the maps, bumped on every change.
	MonEpoch int `json:"mon_epoch"`
	OSDEpoch int `json:"osd_epoch"`

	Hosts   []cephHost          `json:"hosts"`
	Specs   []cephSpec          `json:"specs"`
	Daemons []cephDaemon        `json:"daemons"`
	OSDs    []cephOSD           `json:"osds"`
	Pools   []cephPool          `json:"pools"`
	Auth    []cephAuth          `json:"auth"`
	Config  map[string]string   `json:"config"` // `ceph config set` (who/option -> value)
	Images  map[string][]rbdImg `json:"images"` // pool -> images
	NextPG  int                 `json:"next_pool_id"`
	// Flags set on CRUSH nodes (set-group) and OSDs (add-noout), as the
	// OSDMap keeps them (crush_node_flags, osd state).
	NodeFlags map[string][]string `json:"crush_node_flags,omitempty"`
	OSDFlags  map[string][]string `json:"osd_flags,omitempty"`
	// ConfigKeys is the monitors' config-key store.
	ConfigKeys map[string]string `json:"config_keys,omitempty"`
}

type cephHost struct {
	Hostname string    `json:"hostname"`
	Addr     string    `json:"addr"`
	Labels   []string  `json:"labels"`
	Added    time.Time `json:"added"`
}

// cephSpec is one applied service spec: its parsed form and the document
// as applied (for orch ls --export).
type cephSpec struct {
	Type      string         `json:"service_type"`
	ID        string         `json:"service_id,omitempty"`
	Placement cephPlacement  `json:"placement"`
	Unmanaged bool           `json:"unmanaged,omitempty"`
	Spec      map[string]any `json:"spec,omitempty"` // the type-specific part, as Ceph exports it
	Created   time.Time      `json:"created"`
}

func (s cephSpec) name() string {
	if s.ID != "" {
		return s.Type + "." + s.ID
	}
	return s.Type
}

type cephPlacement struct {
	Hosts       []string `json:"hosts,omitempty"`
	Label       string   `json:"label,omitempty"`
	Count       int      `json:"count,omitempty"`
	HostPattern string   `json:"host_pattern,omitempty"`
}

type cephDaemon struct {
	Type    string    `json:"daemon_type"`
	ID      string    `json:"daemon_id"`
	Host    string    `json:"hostname"`
	Service string    `json:"service_name"`
	Created time.Time `json:"created"`
}

type cephOSD struct {
	ID      int    `json:"id"`
	Host    string `json:"host"`
	Device  string `json:"device"` // /dev/nvme0n1
	UUID    string `json:"osd_fsid"`
	Block   string `json:"block_uuid"`
	Service string `json:"service_id"` // the OSD spec (osdspec_affinity)
	Bytes   int64  `json:"bytes"`
	Class   string `json:"device_class"`
	// DBDevice holds the OSD's RocksDB LV (db_devices), "" for none.
	DBDevice string `json:"db_device,omitempty"`
}

type cephPool struct {
	ID          int               `json:"pool_id"`
	Name        string            `json:"pool_name"`
	Created     time.Time         `json:"create_time"`
	Size        int               `json:"size"`
	MinSize     int               `json:"min_size"`
	PGNum       int               `json:"pg_num"`
	Autoscale   string            `json:"pg_autoscale_mode"`
	Application map[string]string `json:"application"` // app -> "" (metadata unused)
	RBDInit     bool              `json:"rbd_init"`
}

type cephAuth struct {
	Entity string            `json:"entity"`
	Key    string            `json:"key"`
	Caps   map[string]string `json:"caps"`
}

// ceph's defaults the simulators follow (Pacific).
const (
	cephVersion         = "16.2.15"
	cephImage           = "quay.io/ceph/ceph:v16"
	poolDefaultSize     = 3
	poolDefaultPGNum    = 32
	poolMaxSize         = 10
	monDefaultCount     = 5
	mgrDefaultCount     = 2
	cephConfPath        = "/etc/ceph/ceph.conf"
	cephAdminKeyring    = "/etc/ceph/ceph.client.admin.keyring"
	cephPubPath         = "/etc/ceph/ceph.pub"
	authorizedKeysPath  = "/root/.ssh/authorized_keys"
	cephStateFile       = "cluster.json"
	cephSSHPrivKeyFile  = "ssh_identity_key"
	cephLabelAdmin      = "_admin"
	deviceHealthPool    = "device_health_metrics"
	cephErrnoEPERM      = 1
	cephErrnoENOENT     = 2
	cephErrnoEBUSY      = 16
	cephErrnoEEXIST     = 17
	cephErrnoEINVAL     = 22
	cephErrnoERANGE     = 34
	cephErrnoEOPNOTSUPP = 95
)

// cephCluster opens the shared state; call done to release it (after
// save, if anything changed).
type cephCluster struct {
	dir   string
	st    cephState
	e     *Env
	close func()
	// upCache: which hosts are powered on, read once per command.
	upCache map[string]bool
}

func (e *Env) openCeph() (*cephCluster, error) {
	dir, unlock, err := e.Shared("ceph")
	if err != nil {
		return nil, err
	}
	c := &cephCluster{dir: dir, e: e, close: unlock}
	data, err := os.ReadFile(filepath.Join(dir, cephStateFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		unlock()
		return nil, err
	default:
		if err := json.Unmarshal(data, &c.st); err != nil {
			unlock()
			return nil, fmt.Errorf("ceph state %s: %w", dir, err)
		}
	}
	if c.st.Images == nil {
		c.st.Images = map[string][]rbdImg{}
	}
	if c.st.Config == nil {
		c.st.Config = map[string]string{}
	}
	return c, nil
}

func (c *cephCluster) exists() bool { return c.st.FSID != "" }

func (c *cephCluster) save() error {
	data, err := json.MarshalIndent(&c.st, "", " ")
	if err != nil {
		return err
	}
	p := filepath.Join(c.dir, cephStateFile)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// remove forgets the cluster (cephadm rm-cluster of its last monitor).
func (c *cephCluster) remove() error {
	c.st = cephState{Images: map[string][]rbdImg{}, Config: map[string]string{}}
	for _, f := range []string{cephStateFile, cephSSHPrivKeyFile} {
		if err := os.Remove(filepath.Join(c.dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// nodeRoot opens the root of another host of the lab (the registry), nil
// when the lab has no node of that name.
func (c *cephCluster) nodeRoot(host string) *fsroot.Root {
	if host == "" || strings.ContainsAny(host, "/\\") {
		return nil
	}
	dir := filepath.Join(filepath.Dir(c.dir), NodesDir, host)
	if _, err := os.Stat(dir); err != nil {
		// A lone root (no shared folder) is a cluster of itself.
		if c.e.hostname() == host {
			dir = c.e.Root.Dir()
		} else {
			return nil
		}
	}
	r, err := fsroot.Open(dir)
	if err != nil {
		return nil
	}
	return r
}

func (c *cephCluster) host(name string) *cephHost {
	for i := range c.st.Hosts {
		if c.st.Hosts[i].Hostname == name {
			return &c.st.Hosts[i]
		}
	}
	return nil
}

func (c *cephCluster) pool(name string) *cephPool {
	for i := range c.st.Pools {
		if c.st.Pools[i].Name == name {
			return &c.st.Pools[i]
		}
	}
	return nil
}

func (c *cephCluster) auth(entity string) *cephAuth {
	for i := range c.st.Auth {
		if c.st.Auth[i].Entity == entity {
			return &c.st.Auth[i]
		}
	}
	return nil
}

// cephKey is a new CephX secret as ceph-authtool prints it: base64 of a
// little-endian header (type 1 = AES, creation time, length 16) and 16
// random bytes.
func cephKey() string {
	b := make([]byte, 12+16)
	binary.LittleEndian.PutUint16(b[0:], 1)
	now := time.Now()
	binary.LittleEndian.PutUint32(b[2:], uint32(now.Unix()))
	binary.LittleEndian.PutUint32(b[6:], uint32(now.Nanosecond()))
	binary.LittleEndian.PutUint16(b[10:], 16)
	_, _ = rand.Read(b[12:])
	return base64.StdEncoding.EncodeToString(b)
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

func randHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// keyringText is a keyring file for one entity, with its caps when
// withCaps (ceph auth get) or without (get-or-create, bootstrap).
func keyringText(a cephAuth, withCaps bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n\tkey = %s\n", a.Entity, a.Key)
	if withCaps {
		for _, k := range sortedKeys(a.Caps) {
			fmt.Fprintf(&b, "\tcaps %s = %q\n", k, a.Caps[k])
		}
	}
	return b.String()
}

// cephTime is Ceph's time stamp in JSON ("2026-12-01T23:45:47.123456Z").
func cephTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// cephErr prints "Error ENAME: msg" as the ceph CLI does and returns the
// errno as exit status.
func (e *Env) cephErr(errno int, format string, a ...any) int {
	names := map[int]string{cephErrnoEPERM: "EPERM", cephErrnoENOENT: "ENOENT", cephErrnoEBUSY: "EBUSY",
		cephErrnoEEXIST: "EEXIST", cephErrnoEINVAL: "EINVAL", cephErrnoEOPNOTSUPP: "EOPNOTSUPP", cephErrnoERANGE: "ERANGE"}
	fmt.Fprintf(e.Stderr, "Error %s: %s\n", names[errno], fmt.Sprintf(format, a...))
	return errno
}

func (e *Env) printJSON(v any, pretty bool) {
	var data []byte
	if pretty {
		data, _ = json.MarshalIndent(v, "", "    ")
	} else {
		data, _ = json.Marshal(v)
	}
	fmt.Fprintln(e.Stdout, string(data))
}

func jsonMarshal(v any) ([]byte, error)      { return json.MarshalIndent(v, "", " ") }
func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// symlinkIn makes a link inside e's root.
func symlinkIn(e *Env, p, target string) error { return os.Symlink(target, e.Root.HostPath(p)) }

// removeAllIn removes a root path and what it holds.
func removeAllIn(e *Env, p string) error { return os.RemoveAll(e.Root.HostPath(p)) }
