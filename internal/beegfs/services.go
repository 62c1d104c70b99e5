package beegfs

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Where BeeGFS 7.x keeps its files.
const (
	ConfDir           = "/etc/beegfs"
	SetupDir          = "/opt/beegfs/sbin"
	MountsConf        = ConfDir + "/beegfs-mounts.conf"
	ClientConf        = ConfDir + "/beegfs-client.conf"
	DefaultMgmtPort   = 8008
	DefaultMetaPort   = 8005
	DefaultStorPort   = 8003
	DefaultMountPoint = "/mnt/beegfs"
	MinSecretLength   = 16
)

// Client cache types (tuneFileCacheType).
var CacheTypes = []string{"buffered", "native"}

// Tuning from the R1 paper, applied unless a setting overrides it.
var (
	MetaTuning    = map[string]string{"connMaxInternodeNum": "64", "tuneNumWorkers": "12", "tuneUsePerUserMsgQueues": "true", "tuneTargetChooser": "roundrobin"}
	StorageTuning = map[string]string{"connMaxInternodeNum": "64", "tuneNumWorkers": "12", "tuneUsePerTargetWorkers": "true", "tuneUsePerUserMsgQueues": "true", "tuneFileReadAheadSize": "2m"}
	ClientTuning  = map[string]string{"connMaxInternodeNum": "24", "connBufSize": "720896"}
)

var (
	reKey     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9]{1,63}$`)
	reValue   = regexp.MustCompile(`^[^\n\r=#]*$`)
	reHost    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.:_-]{0,252}$`)
	reMetaIns = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,31}$`)
)

// Auth is the connection authentication shared by every service and client
// of one file system. The secret is written to a 0400 file per service; the
// provider keeps only its hash (internal/secret) in state.
type Auth struct {
	Secret string
	// Unread renders the auth files with mode and owner only: refreshes
	// have no secret (state keeps a hash), so they check everything else.
	Unread bool
}

func (a Auth) validate() error {
	if a.Unread {
		return nil
	}
	if len(a.Secret) < MinSecretLength {
		return fmt.Errorf("%w: conn_auth_secret: at least %d characters", ErrInvalid, MinSecretLength)
	}
	if strings.ContainsAny(a.Secret, "\n\r") {
		return fmt.Errorf("%w: conn_auth_secret: one line", ErrInvalid)
	}
	return nil
}

// authPath is per service, so that resources on one node never claim the
// same file.
func authPath(service string) string { return ConfDir + "/" + service + ".auth" }

func authItem(service string, a Auth) protocol.Item {
	f := &protocol.File{Path: authPath(service), Mode: "0400", Owner: "root", Group: "root", Notify: []string{service}}
	if !a.Unread {
		content := a.Secret + "\n"
		f.Content = &content
	}
	return protocol.Item{File: f}
}

// merge returns base with over's keys replacing it, validating over.
func merge(base, over map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if !reKey.MatchString(k) {
			return nil, fmt.Errorf("%w: settings key %q: want a BeeGFS option name like tuneNumWorkers", ErrInvalid, k)
		}
		if !reValue.MatchString(v) {
			return nil, fmt.Errorf("%w: settings[%q] = %q: one line, no = or #", ErrInvalid, k, v)
		}
		out[k] = v
	}
	return out, nil
}

func toSet(m map[string]string) map[string]protocol.Scalar {
	out := map[string]protocol.Scalar{}
	for k, v := range m {
		out[k] = protocol.Scalar(v)
	}
	return out
}

// renderConf writes key = value lines sorted by key, for files this
// package creates whole.
func renderConf(title string, m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: managed by hpcstorage; local changes are reverted.\n", title)
	for _, k := range keys {
		fmt.Fprintf(&b, "%-29s = %s\n", k, m[k])
	}
	return b.String()
}

func checkHost(field, h string) error {
	if !reHost.MatchString(h) {
		return fmt.Errorf("%w: %s %q: want a host name or address", ErrInvalid, field, h)
	}
	return nil
}

func checkPort(field string, p int) error {
	if p < 1024 || p > 65535 {
		return fmt.Errorf("%w: %s %d: want 1024 to 65535", ErrInvalid, field, p)
	}
	return nil
}

// portKeys are a service's port keys: BeeGFS 7.x names TCP and UDP apart
// (connMgmtdPortTCP/UDP), 8 has one key per port (connMgmtdPort).
func portKeys(version, service string, port int, into map[string]string) {
	if IsV8(version) {
		into["conn"+service+"Port"] = itoa(port)
		return
	}
	into["conn"+service+"PortTCP"], into["conn"+service+"PortUDP"] = itoa(port), itoa(port)
}

// confFile is a service's config: 7.x overlays keys on the packaged file;
// 8 writes the whole file, because a package upgrade keeps the edited 7.x
// file (a noreplace config) and 8's daemons refuse the keys 7.x had
// (connMgmtdPortTCP and the like): no 7.x key may survive there.
func confFile(version, p, unit string, conf map[string]string) protocol.Item {
	if IsV8(version) {
		content := renderConf(unit+" (BeeGFS 8)", conf)
		return protocol.Item{File: &protocol.File{Path: p, Content: &content, Mode: "0644", Notify: []string{unit}}}
	}
	return protocol.Item{File: &protocol.File{Path: p, Set: toSet(conf), Notify: []string{unit}}}
}

func setupCommand(name string, argv []string, creates string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: name, Argv: argv, Creates: creates}}
}

func serviceItem(name string) protocol.Item {
	on := true
	return protocol.Item{Service: &protocol.Service{Name: name, Enabled: &on, State: "started"}}
}

// Management is beegfs-mgmtd (single instance). R1 keeps its store in a
// mgmtd folder on metadata target 1.
type Management struct {
	Directory string
	Port      int
	Auth      Auth
	Settings  map[string]string
}

// Items: auth file, config overlay, one-time store setup (guarded by
// format.conf), the service.
func (m Management) Items() ([]protocol.Item, error) {
	if err := absPath("directory", m.Directory); err != nil {
		return nil, err
	}
	if err := checkPort("port", m.Port); err != nil {
		return nil, err
	}
	if err := m.Auth.validate(); err != nil {
		return nil, err
	}
	conf, err := merge(map[string]string{"storeMgmtdDirectory": m.Directory, "storeAllowFirstRunInit": "false",
		"connMgmtdPortTCP": itoa(m.Port), "connMgmtdPortUDP": itoa(m.Port), "connAuthFile": authPath("beegfs-mgmtd"),
		"sysTargetOfflineTimeoutSecs": "900"}, m.Settings)
	if err != nil {
		return nil, err
	}
	return []protocol.Item{
		authItem("beegfs-mgmtd", m.Auth),
		{File: &protocol.File{Path: ConfDir + "/beegfs-mgmtd.conf", Set: toSet(conf), Notify: []string{"beegfs-mgmtd"}}},
		setupCommand("beegfs-setup-mgmtd", []string{SetupDir + "/beegfs-setup-mgmtd", "-C", "-p", m.Directory}, m.Directory+"/format.conf"),
		serviceItem("beegfs-mgmtd"),
	}, nil
}

// MetaInstance is one beegfs-meta@<name> on one metadata target.
type MetaInstance struct {
	Name      string // R1: metaA-numa0-1 (server A, NUMA zone 0, first)
	Directory string // on the instance's metadata target
	NodeID    int    // numeric node id, unique in the file system
	Port      int    // TCP and UDP
	NumaZone  *int   // tuneBindToNumaZone; nil leaves it unbound
}

// MetaInstanceName is the R1 naming: server letter, NUMA zone, index.
func MetaInstanceName(server int, zone, index int) string {
	return fmt.Sprintf("meta%c-numa%d-%d", 'A'+rune(server), zone, index)
}

// Metadata is the set of beegfs-meta instances of one server.
type Metadata struct {
	MgmtdHost string
	MgmtdPort int
	Instances []MetaInstance
	Auth      Auth
	Settings  map[string]string
	// Version is the BeeGFS release ("" is the paper's, 7.2).
	Version string
}

// Items: per instance its config (/etc/beegfs/<name>.d/beegfs-meta.conf,
// the packaged template unit's path), auth file, one-time setup guarded by
// nodeNumID, and beegfs-meta@<name>.
func (m Metadata) Items() ([]protocol.Item, error) {
	if err := checkHost("mgmtd_host", m.MgmtdHost); err != nil {
		return nil, err
	}
	if err := checkPort("mgmtd_port", m.MgmtdPort); err != nil {
		return nil, err
	}
	if err := m.Auth.validate(); err != nil {
		return nil, err
	}
	if len(m.Instances) == 0 {
		return nil, fmt.Errorf("%w: instances: at least one", ErrInvalid)
	}
	seen := map[string]string{}
	var items []protocol.Item
	for i, in := range m.Instances {
		at := fmt.Sprintf("instances[%d]", i)
		if !reMetaIns.MatchString(in.Name) {
			return nil, fmt.Errorf("%w: %s.name %q: 1-32 of a-z A-Z 0-9 _ -", ErrInvalid, at, in.Name)
		}
		if err := absPath(at+".directory", in.Directory); err != nil {
			return nil, err
		}
		if err := checkPort(at+".port", in.Port); err != nil {
			return nil, err
		}
		if in.NodeID < 1 || in.NodeID > 65535 {
			return nil, fmt.Errorf("%w: %s.node_id %d: want 1 to 65535", ErrInvalid, at, in.NodeID)
		}
		for _, k := range []string{"name " + in.Name, "port " + itoa(in.Port), "directory " + in.Directory, "node_id " + itoa(in.NodeID)} {
			if prev, dup := seen[k]; dup {
				return nil, fmt.Errorf("%w: %s: %s is also used by %s", ErrInvalid, at, k, prev)
			}
			seen[k] = at
		}
		unit := "beegfs-meta@" + in.Name
		base := map[string]string{"sysMgmtdHost": m.MgmtdHost,
			"storeMetaDirectory": in.Directory, "storeAllowFirstRunInit": "false",
			"connAuthFile": authPath("beegfs-meta"), "logStdFile": "/var/log/beegfs-meta-" + in.Name + ".log",
			"sysTargetOfflineTimeoutSecs": "900"}
		portKeys(m.Version, "Mgmtd", m.MgmtdPort, base)
		portKeys(m.Version, "Meta", in.Port, base)
		for k, v := range MetaTuning {
			base[k] = v
		}
		if in.NumaZone != nil {
			base["tuneBindToNumaZone"] = itoa(*in.NumaZone)
		}
		conf, err := merge(base, m.Settings)
		if err != nil {
			return nil, err
		}
		content := renderConf(unit, conf)
		items = append(items,
			protocol.Item{File: &protocol.File{Path: ConfDir + "/" + in.Name + ".d/beegfs-meta.conf", Content: &content, Mode: "0644", Notify: []string{unit}}},
			setupCommand("beegfs-setup-meta-"+in.Name, []string{SetupDir + "/beegfs-setup-meta", "-C", "-p", in.Directory, "-s", itoa(in.NodeID),
				"-S", in.Name, "-m", m.MgmtdHost}, in.Directory+"/nodeNumID"),
			serviceItem(unit))
	}
	// The auth file notifies every instance.
	auth := authItem("beegfs-meta", m.Auth)
	auth.File.Notify = nil
	for _, in := range m.Instances {
		auth.File.Notify = append(auth.File.Notify, "beegfs-meta@"+in.Name)
	}
	return append([]protocol.Item{auth}, items...), nil
}

// StorageTarget is one storage target of a beegfs-storage instance.
type StorageTarget struct {
	ID        int
	Directory string
	Pool      int
}

// Storage is the one beegfs-storage instance of a server with its targets.
type Storage struct {
	MgmtdHost string
	MgmtdPort int
	NodeID    int
	Port      int
	NumaZone  *int
	Targets   []StorageTarget
	Auth      Auth
	Settings  map[string]string
	// Version is the BeeGFS release ("" is the paper's, 7.2).
	Version string
}

// Items: auth file, config overlay (storeStorageDirectory lists the
// targets in order), per target a one-time setup guarded by targetNumID,
// the service.
func (s Storage) Items() ([]protocol.Item, error) {
	if err := checkHost("mgmtd_host", s.MgmtdHost); err != nil {
		return nil, err
	}
	if err := checkPort("mgmtd_port", s.MgmtdPort); err != nil {
		return nil, err
	}
	if err := checkPort("port", s.Port); err != nil {
		return nil, err
	}
	if err := s.Auth.validate(); err != nil {
		return nil, err
	}
	if s.NodeID < 1 || s.NodeID > 65535 {
		return nil, fmt.Errorf("%w: node_id %d: want 1 to 65535", ErrInvalid, s.NodeID)
	}
	if len(s.Targets) == 0 {
		return nil, fmt.Errorf("%w: targets: at least one", ErrInvalid)
	}
	ids, dirs := map[int]int{}, map[string]int{}
	var list []string
	var setups []protocol.Item
	for i, t := range s.Targets {
		at := fmt.Sprintf("targets[%d]", i)
		if t.ID < 1 || t.ID > 65535 {
			return nil, fmt.Errorf("%w: %s.id %d: want 1 to 65535", ErrInvalid, at, t.ID)
		}
		if prev, dup := ids[t.ID]; dup {
			return nil, fmt.Errorf("%w: %s.id %d: duplicate target id (also targets[%d])", ErrInvalid, at, t.ID, prev)
		}
		ids[t.ID] = i
		if err := absPath(at+".directory", t.Directory); err != nil {
			return nil, err
		}
		if prev, dup := dirs[t.Directory]; dup {
			return nil, fmt.Errorf("%w: %s.directory %s: also targets[%d]", ErrInvalid, at, t.Directory, prev)
		}
		dirs[t.Directory] = i
		if t.Pool < 1 || t.Pool > 65535 {
			return nil, fmt.Errorf("%w: %s.pool %d: want 1 (the default pool) to 65535", ErrInvalid, at, t.Pool)
		}
		list = append(list, t.Directory)
		setups = append(setups, setupCommand(fmt.Sprintf("beegfs-setup-storage-%d", t.ID), []string{SetupDir + "/beegfs-setup-storage", "-C",
			"-p", t.Directory, "-s", itoa(s.NodeID), "-i", itoa(t.ID), "-P", itoa(t.Pool)}, t.Directory+"/targetNumID"))
	}
	base := map[string]string{"sysMgmtdHost": s.MgmtdHost,
		"storeStorageDirectory": strings.Join(list, ","), "storeAllowFirstRunInit": "false",
		"connAuthFile": authPath("beegfs-storage"), "sysTargetOfflineTimeoutSecs": "900"}
	portKeys(s.Version, "Mgmtd", s.MgmtdPort, base)
	portKeys(s.Version, "Storage", s.Port, base)
	for k, v := range StorageTuning {
		base[k] = v
	}
	if s.NumaZone != nil {
		base["tuneBindToNumaZone"] = itoa(*s.NumaZone)
	}
	conf, err := merge(base, s.Settings)
	if err != nil {
		return nil, err
	}
	items := []protocol.Item{
		authItem("beegfs-storage", s.Auth),
		confFile(s.Version, ConfDir+"/beegfs-storage.conf", "beegfs-storage", conf),
	}
	items = append(items, setups...)
	return append(items, serviceItem("beegfs-storage")), nil
}

// Client is beegfs-client (plus beegfs-helperd on 7.x) mounting one file
// system through beegfs-mounts.conf.
type Client struct {
	MgmtdHost  string
	MgmtdPort  int
	MountPoint string
	CacheType  string
	Auth       Auth
	Settings   map[string]string
	// Version is the BeeGFS major version: 7 (default) runs beegfs-helperd
	// beside the client; 8 has no helperd.
	Version int
	// Release is the BeeGFS release (version attribute; "" when unset):
	// "8" renders 8's config keys and implies Version 8.
	Release string
	// TLSCert (8) is the management service's certificate, which the
	// beegfs command on this node verifies it with (cert.pem).
	TLSCert string
}

// Versions lists the BeeGFS major versions the client renders.
var Versions = []int64{7, 8}

// Items: auth file, client and helperd config overlays, beegfs-mounts.conf,
// helperd and client services (the client service builds the kernel module
// and mounts what beegfs-mounts.conf lists).
func (c Client) Items() ([]protocol.Item, error) {
	if err := checkHost("mgmtd_host", c.MgmtdHost); err != nil {
		return nil, err
	}
	if err := checkPort("mgmtd_port", c.MgmtdPort); err != nil {
		return nil, err
	}
	if err := absPath("mount_point", c.MountPoint); err != nil {
		return nil, err
	}
	if !contains(CacheTypes, c.CacheType) {
		return nil, fmt.Errorf("%w: cache_type %q: want one of %s", ErrInvalid, c.CacheType, strings.Join(CacheTypes, ", "))
	}
	if err := c.Auth.validate(); err != nil {
		return nil, err
	}
	if c.Version == 0 {
		c.Version = 7
	}
	if c.Release != "" {
		if err := CheckVersion(c.Release); err != nil {
			return nil, err
		}
		c.Version = Major(c.Release)
	}
	if c.Version != 7 && c.Version != 8 {
		return nil, fmt.Errorf("%w: beegfs_version %d: want 7 or 8", ErrInvalid, c.Version)
	}
	base := map[string]string{"sysMgmtdHost": c.MgmtdHost, "connAuthFile": authPath("beegfs-client"), "tuneFileCacheType": c.CacheType}
	// Before the release attribute, beegfs_version = 8 only dropped
	// helperd and kept 7.x's port keys: unchanged for such clients.
	portKeys(map[bool]string{true: Version8}[c.Release == Version8], "Mgmtd", c.MgmtdPort, base)
	for k, v := range ClientTuning {
		base[k] = v
	}
	conf, err := merge(base, c.Settings)
	if err != nil {
		return nil, err
	}
	mounts := c.MountPoint + " " + ClientConf + "\n"
	auth := authItem("beegfs-client", c.Auth)
	items := []protocol.Item{
		auth,
		confFile(c.Release, ClientConf, "beegfs-client", conf),
		{File: &protocol.File{Path: MountsConf, Content: &mounts, Mode: "0644", Notify: []string{"beegfs-client"}}},
	}
	if c.TLSCert != "" {
		if !IsV8(c.Release) {
			return nil, located.Errorf(located.At("tls_cert_pem"), "%w: the beegfs command's certificate is a BeeGFS 8 setting (set version = \"8\")", ErrInvalid)
		}
		if err := checkPEM(located.At("tls_cert_pem"), PEM{Text: c.TLSCert}, "CERTIFICATE"); err != nil {
			return nil, err
		}
		items = append(items, pemItem(TLSCertFile, PEM{Text: c.TLSCert}, "0644", "beegfs-client"))
	}
	if c.Version == 8 {
		auth.File.Notify = []string{"beegfs-client"}
		return append(items, serviceItem("beegfs-client")), nil
	}
	auth.File.Notify = []string{"beegfs-helperd", "beegfs-client"}
	return append(items,
		protocol.Item{File: &protocol.File{Path: ConfDir + "/beegfs-helperd.conf", Set: toSet(map[string]string{"connAuthFile": authPath("beegfs-client")}),
			Notify: []string{"beegfs-helperd"}}},
		serviceItem("beegfs-helperd"),
		serviceItem("beegfs-client")), nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Spec wraps items into an agent spec for owner.
func Spec(owner string, items []protocol.Item) protocol.Spec {
	return protocol.Spec{APIVersion: "hpcstorage/v1", Owner: owner, Items: items}
}
