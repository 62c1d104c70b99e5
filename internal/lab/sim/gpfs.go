package sim

// The Spectrum Scale (GPFS) administration commands (mm*), the forms the
// product issues (CONTRACTS.md, "Spectrum Scale commands"), follow IBM
// Storage Scale 5.1's command reference: one cluster configuration every
// member node sees (the CCR), kept here in the lab's shared folder
// (e.Shared("gpfs")/cluster.json); every command but mmcrcluster refuses a
// node that is not a cluster member (6027-1382); a failed command ends
// with "6027-1639 Command failed. Examine previous error messages to
// determine cause." on stderr and exit 1, as the real scripts do.
//
// The other nodes' roots (to check a device on an NSD server, to show a
// mount in a node's mount table) are found through links in the shared
// folder's node registry (NodesDir, RegisterNode), which the lab writes for
// every node and every simulated mm command refreshes for its own
// node: the lab's stand-in for GPFS's ssh to the other nodes.
//
// -Y output: a HEADER line per record type then data lines,
// colon-separated, every line ending in a colon, fields percent-encoded
// where IBM's output encodes them (':' and '%' always; '/' in mmlsfs
// values). The headers are those of real captures: mmlscluster, mmlsfs and
// the mmlsnsd -Y form from IBM's ibm-spectrum-scale-install-infra
// (module_utils/ibm_spectrumscale_utils.py); mmgetstate, mmlsconfig,
// mmlsnsd -X and mmlsdisk from a 5.2.1 capture used as a fixture by a
// public GPFS dashboard; mmlsmount from a public LTFS-EE helper script;
// the field positions of mmlsnodeclass (name = field 7, members = field
// 10) from the install-infra roles. The CES and NFS export headers
// (gpfs_ces.go) are not confirmed by a capture: parse -Y by header name.

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// gpfsTools are the simulated mm commands (registered in sim.go).
var gpfsTools = map[string]tool{
	"mmcrcluster":    mmcrcluster,
	"mmaddnode":      mmaddnode,
	"mmdelnode":      mmdelnode,
	"mmchlicense":    mmchlicense,
	"mmchnode":       mmchnode,
	"mmcrnodeclass":  mmcrnodeclass,
	"mmchnodeclass":  mmchnodeclass,
	"mmdelnodeclass": mmdelnodeclass,
	"mmlsnodeclass":  mmlsnodeclass,
	"mmchconfig":     mmchconfig,
	"mmlsconfig":     mmlsconfig,
	"mmlscluster":    mmlscluster,
	"mmgetstate":     mmgetstate,
	"mmstartup":      mmstartup,
	"mmshutdown":     mmshutdown,
	"mmcrnsd":        mmcrnsd,
	"mmlsnsd":        mmlsnsd,
	"mmdelnsd":       mmdelnsd,
	"mmcrfs":         mmcrfs,
	"mmchfs":         mmchfs, // gpfs_release.go
	"mmdelfs":        mmdelfs,
	"mmlsfs":         mmlsfs,
	"mmlsdisk":       mmlsdisk,
	"mmadddisk":      mmadddisk,
	"mmdeldisk":      mmdeldisk,
	"mmrestripefs":   mmrestripefs,
	"mmchpolicy":     mmchpolicy,
	"mmlspolicy":     mmlspolicy,
	"mmmount":        mmmount,
	"mmumount":       mmumount,
	"mmlsmount":      mmlsmount,
	"mmces":          mmces,
	"mmnfs":          mmnfs,
	"mmsmb":          mmsmb,
}

// GPFSCommands lists the simulated mm commands, sorted.
func GPFSCommands() []string { return sortedKeys(gpfsTools) }

// GPFSStateFile is the cluster configuration in the shared gpfs folder.
const GPFSStateFile = "cluster.json"

type gpfsState struct {
	Cluster *gpfsCluster        `json:"cluster,omitempty"`
	Nodes   []*gpfsNode         `json:"nodes,omitempty"`
	Classes map[string][]string `json:"classes,omitempty"`
	Config  []gpfsConfig        `json:"config,omitempty"`
	NSDs    []*gpfsNSD          `json:"nsds,omitempty"`
	FS      []*gpfsFS           `json:"file_systems,omitempty"`
	CES     gpfsCES             `json:"ces"`
	Exports []*gpfsExport       `json:"exports,omitempty"`
	Shares  []*gpfsShare        `json:"smb_exports,omitempty"`
	Seq     int                 `json:"seq"`
	// MinReleaseLevel is set by mmcrcluster and release=LATEST.
	MinReleaseLevel string `json:"min_release_level,omitempty"`
}

type gpfsCluster struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Rsh  string `json:"rsh"`
	Rcp  string `json:"rcp"`
}

type gpfsNode struct {
	Number  int    `json:"number"`
	Name    string `json:"name"`
	Quorum  bool   `json:"quorum,omitempty"`
	Manager bool   `json:"manager,omitempty"`
	License string `json:"license,omitempty"` // server, client, "" (none)
	Active  bool   `json:"active,omitempty"`
	// Off: the daemon went with its node's power (the node is off, not
	// booted yet); at boot, autoload decides whether it starts again.
	Off bool `json:"off,omitempty"`
	CES bool `json:"ces,omitempty"`
	// Effective is the configuration the node's daemon read at its last
	// mmstartup: attributes changed without -i wait for a restart.
	Effective map[string]string `json:"effective,omitempty"`
}

// gpfsConfig is one mmchconfig setting; Nodes empty means cluster-wide.
type gpfsConfig struct {
	Key   string   `json:"key"`
	Value string   `json:"value"`
	Nodes []string `json:"nodes,omitempty"`
}

type gpfsNSD struct {
	Name     string   `json:"name"`
	VolumeID string   `json:"volume_id"`
	Servers  []string `json:"servers"`
	Device   string   `json:"device"` // as given, on the first server
	Disk     string   `json:"disk"`   // identity: naa.<wwn> or server:/dev/x
	SizeKB   int64    `json:"size_kb"`
	Usage    string   `json:"usage"`
	FG       int      `json:"failure_group"`
	Pool     string   `json:"pool"`
	FS       string   `json:"fs,omitempty"`
	DiskID   int      `json:"disk_id,omitempty"`
}

type gpfsFS struct {
	Name          string            `json:"name"`
	BlockSize     int64             `json:"block_size"`
	MetaBlockSize int64             `json:"metadata_block_size"`
	Subblocks     int64             `json:"subblocks_per_block"`
	Alloc         string            `json:"allocation"`
	Repl          [4]int            `json:"replication"` // m M r R
	NumNodes      int               `json:"num_nodes"`
	MountPoint    string            `json:"mount_point"`
	AutoMount     string            `json:"auto_mount"`
	Pools         map[string]string `json:"pools,omitempty"` // pool -> layoutMap
	Policy        string            `json:"policy,omitempty"`
	PolicyRules   []string          `json:"policy_rules,omitempty"`
	PolicyTime    string            `json:"policy_time,omitempty"`
	Mounted       []string          `json:"mounted,omitempty"` // node names
	Created       string            `json:"created"`
	UID           string            `json:"uid"`
	Restriped     int               `json:"restriped,omitempty"`
	NextDiskID    int               `json:"next_disk_id"`
	// Level is the format's release level (gpfs_release.go).
	Level string `json:"level,omitempty"`
}

type gpfsCES struct {
	Services  []string `json:"services,omitempty"`
	Addresses []string `json:"addresses,omitempty"`
}

type gpfsExport struct {
	Path    string       `json:"path"`
	Clients []gpfsClient `json:"clients"`
}

// gpfsShare is one SMB export (mmsmb export add).
type gpfsShare struct {
	Name    string            `json:"name"`
	Path    string            `json:"path"`
	Options map[string]string `json:"options,omitempty"`
}

type gpfsClient struct {
	Spec    string            `json:"spec"`
	Options map[string]string `json:"options"`
}

// gpfsRun is one mm command's view: the state under the shared lock, the
// local node's name, and where to report.
type gpfsRun struct {
	e     *Env
	dir   string
	st    *gpfsState
	host  string
	dirty bool
}

// gpfsCmd runs body with the cluster state loaded and locked, saving it
// when body changed it and succeeded. needCluster refuses a node outside
// a cluster (every command but mmcrcluster).
func gpfsCmd(e *Env, needCluster bool, body func(g *gpfsRun) int) int {
	e.gpfsHold(e.sharedPath("gpfs"), e.tool+":start")
	dir, unlock, err := e.Shared("gpfs")
	if err != nil {
		return e.gpfsFail("%v", err)
	}
	defer unlock()
	host := e.shortHostname()
	_ = RegisterNode(filepath.Dir(dir), host, e.Root.Dir())
	st := &gpfsState{}
	data, err := os.ReadFile(filepath.Join(dir, GPFSStateFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return e.gpfsFail("%v", err)
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, st); err != nil {
			return e.gpfsFail("cluster configuration: %v", err)
		}
	}
	g := &gpfsRun{e: e, dir: dir, st: st, host: host}
	g.reconcileBoots()
	if needCluster && (st.Cluster == nil || g.node(host) == nil) {
		return e.gpfsFail("6027-1382 This node does not belong to a GPFS cluster.")
	}
	code := body(g)
	if code == 0 && g.dirty {
		if err := g.saveNow(); err != nil {
			return e.gpfsFail("%v", err)
		}
	}
	if code == 0 {
		// The change is in; the command has not returned yet (it holds
		// the cluster's lock, as a real one does until it ends).
		e.gpfsHold(dir, e.tool+":done")
	}
	return code
}

// Kill points, for the kill tests: when the shared gpfs folder's
// GPFSHoldFile names a point ("mmcrnsd:start": before the command does
// anything; "mmcrnsd:done": its change made, before it returns), the
// command reaching it writes GPFSHeldFile and waits until the hold file
// is removed. If the process that ran it goes meanwhile (the agent,
// killed with its SSH session when Terraform is killed), it ends at once
// without going further, as a command killed with its session does.
const (
	GPFSHoldFile = "hold"
	GPFSHeldFile = "held"
)

// gpfsHoldLimit bounds a hold nobody releases.
const gpfsHoldLimit = 2 * time.Minute

func (e *Env) gpfsHold(dir, point string) {
	hold := filepath.Join(dir, GPFSHoldFile)
	want, err := os.ReadFile(hold)
	if err != nil || strings.TrimSpace(string(want)) != point {
		return
	}
	held := filepath.Join(dir, GPFSHeldFile)
	if os.WriteFile(held, []byte(point+"\n"), 0o644) != nil {
		return
	}
	parent := os.Getppid()
	deadline := time.Now().Add(gpfsHoldLimit)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if os.Getppid() != parent {
			_ = os.Remove(held)
			os.Exit(129) // killed with its session (SIGHUP)
		}
		if _, err := os.Stat(hold); err != nil || time.Now().After(deadline) {
			break
		}
	}
	_ = os.Remove(held)
}

// saveNow writes the state (atomically: a killed command leaves the old
// or the new configuration, never half of one).
func (g *gpfsRun) saveNow() error {
	out, err := json.MarshalIndent(g.st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(g.dir, GPFSStateFile+".tmp")
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(g.dir, GPFSStateFile))
}

// DaemonMarker is the volatile file (under RunDir, which a lab power
// cycle clears) that says the node's GPFS daemon runs.
const DaemonMarker = RunDir + "/gpfs-daemon"

// markDaemon writes or removes node's daemon marker in its root.
func (g *gpfsRun) markDaemon(node string, up bool) {
	ne, done := g.nodeEnv(node)
	if ne == nil {
		return
	}
	defer done()
	if up {
		_ = ne.write(DaemonMarker, []byte("mmfsd\n"))
	} else {
		_ = ne.Root.Remove(DaemonMarker)
	}
}

// reconcileBoots applies what happened on the nodes meanwhile: a GPFS
// mount gone from a node's proc/mounts (umount) is unmounted there; an
// active node powered off (its daemon marker gone with RunDir, and no
// boot since) is down, its mounts gone; a power cycle of an active node:
// with autoload=yes GPFS started again at
// boot, reading the configuration anew, and mounted the file systems with
// -A yes; without autoload the daemon is down and nothing is mounted.
func (g *gpfsRun) reconcileBoots() {
	if g.st.Cluster == nil {
		return
	}
	for _, n := range g.st.Nodes {
		if !n.Active && !n.Off {
			continue
		}
		ne, done := g.nodeEnv(n.Name)
		if ne == nil {
			continue
		}
		rebooted := !ne.exists(DaemonMarker)
		// Boot touches the reload stamp that a power off removes.
		off := !ne.exists(ReloadStamp)
		table, _ := ne.read("/proc/mounts")
		done()
		if off {
			if n.Active {
				n.Active, n.Effective, n.Off = false, nil, true
				for _, f := range g.st.FS {
					f.Mounted = slices.DeleteFunc(f.Mounted, func(m string) bool { return m == n.Name })
				}
				g.dirty = true
			}
			continue
		}
		if n.Off {
			n.Off, rebooted = false, true
		}
		if !rebooted {
			// umount(8) of a GPFS mount point unmounts it on that node.
			for _, f := range g.st.FS {
				if slices.Contains(f.Mounted, n.Name) && !strings.Contains(string(table), mountLine(f)) {
					f.Mounted = slices.DeleteFunc(f.Mounted, func(m string) bool { return m == n.Name })
					g.dirty = true
				}
			}
			continue
		}
		g.dirty = true
		for _, f := range g.st.FS {
			f.Mounted = slices.DeleteFunc(f.Mounted, func(m string) bool { return m == n.Name })
		}
		if g.configValue("autoload", n.Name) != "yes" {
			n.Active, n.Effective = false, nil
			continue
		}
		g.startDaemon(n)
		for _, f := range g.st.FS {
			if f.AutoMount == "yes" {
				f.Mounted = append(f.Mounted, n.Name)
				g.showMount(n.Name, f, true)
			}
		}
	}
	if g.dirty {
		_ = g.saveNow()
		g.dirty = false
	}
}

// startDaemon starts node's daemon: it reads the configuration.
func (g *gpfsRun) startDaemon(n *gpfsNode) {
	n.Active = true
	n.Effective = map[string]string{}
	for k := range gpfsAttrs {
		n.Effective[k] = g.configValue(k, n.Name)
	}
	g.markDaemon(n.Name, true)
}

// gpfsFail prints "tool: message" and GPFS's closing line, exit 1.
func (e *Env) gpfsFail(format string, a ...any) int {
	for _, l := range strings.Split(fmt.Sprintf(format, a...), "\n") {
		fmt.Fprintf(e.Stderr, "%s: %s\n", e.tool, l)
	}
	fmt.Fprintf(e.Stderr, "%s: 6027-1639 Command failed. Examine previous error messages to determine cause.\n", e.tool)
	return 1
}

func (g *gpfsRun) fail(format string, a ...any) int { return g.e.gpfsFail(format, a...) }

// nodeEnv opens the root of node name (nil when the lab does not know it).
func (g *gpfsRun) nodeEnv(name string) (*Env, func()) {
	if name == g.host {
		return g.e, func() {}
	}
	root, err := os.Readlink(filepath.Join(filepath.Dir(g.dir), NodesDir, name))
	if err != nil {
		return nil, nil
	}
	r, err := fsroot.Open(root)
	if err != nil {
		return nil, nil
	}
	return &Env{Root: r, Stdout: g.e.Stdout, Stderr: g.e.Stderr, tool: g.e.tool}, func() { r.Close() }
}

func (g *gpfsRun) node(name string) *gpfsNode {
	for _, n := range g.st.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// resolveNodes expands a -N list: "all", node names, node classes
// (user-defined and the system classes GPFS keeps: quorumNodes,
// nonQuorumNodes, managerNodes, clientNodes, nsdNodes, cesNodes,
// clientLicense, serverLicense; gatewayNodes, cnfsNodes and fpoLicense
// are empty here).
func (g *gpfsRun) resolveNodes(list string) ([]string, error) {
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if members, ok := g.systemClass(item); ok {
			for _, m := range members {
				add(m)
			}
			continue
		}
		if members, ok := g.st.Classes[item]; ok {
			for _, m := range members {
				add(m)
			}
			continue
		}
		short, _, _ := strings.Cut(item, ".")
		if g.node(short) == nil {
			return nil, fmt.Errorf("Incorrect node %s specified for command.", item)
		}
		add(short)
	}
	if len(out) == 0 {
		return nil, errors.New("6027-1268 Missing arguments.")
	}
	return out, nil
}

func (g *gpfsRun) systemClass(name string) ([]string, bool) {
	var pick func(*gpfsNode) bool
	switch strings.ToLower(name) {
	case "all":
		pick = func(*gpfsNode) bool { return true }
	case "quorumnodes":
		pick = func(n *gpfsNode) bool { return n.Quorum }
	case "managernodes":
		pick = func(n *gpfsNode) bool { return n.Manager }
	case "nonquorumnodes":
		pick = func(n *gpfsNode) bool { return !n.Quorum }
	case "cesnodes":
		pick = func(n *gpfsNode) bool { return n.CES }
	case "nsdnodes":
		pick = func(n *gpfsNode) bool { return g.isNSDServer(n.Name) }
	case "clientnodes":
		pick = func(n *gpfsNode) bool { return !n.Manager }
	case "gatewaynodes", "cnfsnodes", "fpolicense":
		pick = func(*gpfsNode) bool { return false } // AFM gateways, CNFS, FPO: not simulated
	case "clientlicense":
		pick = func(n *gpfsNode) bool { return n.License == "client" }
	case "serverlicense":
		pick = func(n *gpfsNode) bool { return n.License == "server" }
	default:
		return nil, false
	}
	var out []string
	for _, n := range g.st.Nodes {
		if pick(n) {
			out = append(out, n.Name)
		}
	}
	return out, true
}

func (g *gpfsRun) isNSDServer(name string) bool {
	for _, d := range g.st.NSDs {
		if slices.Contains(d.Servers, name) {
			return true
		}
	}
	return false
}

// flags is a tiny parser for mm options: value options take the next
// word; the rest are positional.
type flags struct {
	vals map[string]string
	set  map[string]bool
	pos  []string
}

func parseFlags(args []string, withValue ...string) (flags, error) {
	f := flags{vals: map[string]string{}, set: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if slices.Contains(withValue, a) {
				if i+1 >= len(args) {
					return f, fmt.Errorf("Missing argument after %s option.", a)
				}
				f.vals[a] = args[i+1]
				i++
			}
			f.set[a] = true
			continue
		}
		f.pos = append(f.pos, a)
	}
	return f, nil
}

// yEnc percent-encodes a -Y field the way the mm commands do (':' and
// '%'; slash too when slash is set, as mmlsfs does).
func yEnc(s string, slash bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '%' || r == ':' || r == '\n' || (slash && r == '/'):
			fmt.Fprintf(&b, "%%%02X", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// yHeader writes a -Y HEADER line, yData a data line (fields encoded).
func yHeader(w *strings.Builder, cmd, rec string, fields ...string) {
	w.WriteString(cmd + ":" + rec + ":HEADER:version:reserved:reserved:" + strings.Join(fields, ":") + ":\n")
}

func yData(w *strings.Builder, cmd, rec string, slash bool, fields ...string) {
	enc := make([]string, len(fields))
	for i, f := range fields {
		enc[i] = yEnc(f, slash)
	}
	w.WriteString(cmd + ":" + rec + ":0:1:::" + strings.Join(enc, ":") + ":\n")
}

// parseSize reads GPFS sizes: 8M, 16G, 512K, 1048576 (bytes).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	if t != "" {
		switch strings.ToUpper(t[len(t)-1:]) {
		case "K":
			mult = 1 << 10
		case "M":
			mult = 1 << 20
		case "G":
			mult = 1 << 30
		case "T":
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("incorrect size %q", s)
	}
	return n * mult, nil
}

// sizeString shows a size the way mmlsconfig does (16G, 8M, 512K).
func sizeString(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// stanza is one %nsd: or %pool: stanza of a stanza file.
type stanza struct {
	kind  string // nsd, pool
	attrs map[string]string
	line  int
}

// parseStanzas reads IBM's stanza grammar: a stanza starts with %nsd: or
// %pool: and its attribute=value words follow on the same line or on the
// next lines up to the next stanza; '#' starts a comment; other stanza
// types are skipped as mmcrnsd/mmcrfs do for the ones they do not use.
func parseStanzas(data []byte) ([]stanza, error) {
	var out []stanza
	var cur *stanza
	for i, line := range strings.Split(string(data), "\n") {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		if strings.HasPrefix(words[0], "%") {
			kind, rest, ok := strings.Cut(words[0], ":")
			if !ok {
				return nil, fmt.Errorf("6027-2108 Error found while processing stanza in line %d: %q", i+1, words[0])
			}
			out = append(out, stanza{kind: strings.TrimPrefix(kind, "%"), attrs: map[string]string{}, line: i + 1})
			cur = &out[len(out)-1]
			words = words[1:]
			if rest != "" {
				words = append([]string{rest}, words...)
			}
		}
		if cur == nil {
			return nil, fmt.Errorf("6027-2108 Error found while processing stanza in line %d: not in a stanza", i+1)
		}
		for _, w := range words {
			k, v, ok := strings.Cut(w, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("6027-2108 Error found while processing stanza in line %d: %q is not attribute=value", i+1, w)
			}
			cur.attrs[k] = v
		}
	}
	return out, nil
}

// readStanzas reads a stanza file from the root.
func (g *gpfsRun) readStanzas(p string) ([]stanza, error) {
	if p == "" {
		return nil, errors.New("6027-1268 Missing arguments.")
	}
	data, err := g.e.Root.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("Cannot read file %s: %v", p, err)
	}
	return parseStanzas(data)
}

func (g *gpfsRun) nsd(name string) *gpfsNSD {
	for _, d := range g.st.NSDs {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func (g *gpfsRun) fs(name string) *gpfsFS {
	name = strings.TrimPrefix(name, "/dev/")
	for _, f := range g.st.FS {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (g *gpfsRun) fsOrFail(name string) (*gpfsFS, int) {
	if name == "" {
		return nil, g.fail("6027-1268 Missing arguments.")
	}
	f := g.fs(name)
	if f == nil {
		return nil, g.fail("File system %s is not known to the GPFS cluster.", strings.TrimPrefix(name, "/dev/"))
	}
	return f, 0
}

// hash32 and hash64 are stable hashes of s (cluster, volume and file
// system identifiers).
func hash32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64() >> 1
}

func gpfsNow() string { return time.Now().UTC().Format("Mon Jan _2 15:04:05 2006") }

// nodeIP is the lab's made-up daemon address of node number n.
func nodeIP(n int) string { return fmt.Sprintf("10.20.0.%d", n) }

func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// mountLine is the /proc/mounts line of a mounted GPFS file system.
func mountLine(f *gpfsFS) string {
	return f.Name + " " + f.MountPoint + " gpfs rw,relatime 0 0"
}

// showMount adds or removes f in node's mount table (its root's
// proc/mounts), creating the mount point as GPFS does.
func (g *gpfsRun) showMount(node string, f *gpfsFS, mounted bool) {
	ne, done := g.nodeEnv(node)
	if ne == nil {
		return
	}
	defer done()
	data, _ := ne.read("/proc/mounts")
	var lines []string
	for _, l := range splitLines(string(data)) {
		if fl := strings.Fields(l); len(fl) >= 3 && fl[0] == f.Name && fl[2] == "gpfs" {
			continue
		}
		lines = append(lines, l)
	}
	if mounted {
		_, _ = ne.Root.MkdirAll(path.Clean(f.MountPoint), 0o755)
		lines = append(lines, mountLine(f))
	}
	_ = ne.write("/proc/mounts", joinLines(lines))
}
