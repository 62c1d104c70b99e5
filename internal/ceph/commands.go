package ceph

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/runonce"
)

// Files on the admin host and the clients.
const (
	ConfDir      = "/etc/ceph"
	AdminKeyring = ConfDir + "/ceph.client.admin.keyring"
	ConfFile     = ConfDir + "/ceph.conf"
	PubKeyFile   = ConfDir + "/ceph.pub"
	RbdmapFile   = ConfDir + "/rbdmap"
	RbdmapUnit   = "rbdmap"
	// SpecDir holds the spec files `ceph orch apply -i` reads.
	SpecDir = ConfDir + "/hpcstorage"
	// AuthorizedKeys is where cephadm's key goes on every host (root: the
	// bootstrap's --ssh-user).
	AuthorizedKeys = "/root/.ssh/authorized_keys"
)

// KeyringPath is a client's keyring.
func KeyringPath(client string) string { return ConfDir + "/ceph.client." + client + ".keyring" }

// SpecPath is the file an applied spec is written to.
func SpecPath(serviceName string) string { return SpecDir + "/" + serviceName + ".yaml" }

// Query is a read-only command item (its stdout comes back in the result).
func Query(name string, argv ...string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: name, Argv: argv, ReadOnly: true}}
}

// Guarded is a command run unless the guard exits 0 and its stdout matches
// every pattern.
func Guarded(name string, argv, unless []string, match ...string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: name, Argv: argv, Unless: unless, UnlessMatch: match}}
}

// Bootstrap is cephadm's first-monitor setup. Without a dashboard cephadm
// also skips the monitoring stack (Prometheus, Grafana) it would feed.
type Bootstrap struct {
	MonIP          string
	PublicNetwork  string
	ClusterNetwork string
	Dashboard      bool
	// AllowFQDN passes --allow-fqdn-hostname (hosts named by FQDN).
	AllowFQDN bool
	// Image is the container image (cephadm's global --image): "" keeps
	// cephadm's own default, as the Pacific paper deployed.
	Image string
}

// Validate checks the addresses: the monitor IP inside the public network
// (cephadm derives the public network from it).
func (b Bootstrap) Validate() error {
	ip, err := netip.ParseAddr(b.MonIP)
	if err != nil {
		return invalid(located.At("mon_ip"), "%q is not an IP address", b.MonIP)
	}
	if b.PublicNetwork != "" {
		p, err := netip.ParsePrefix(b.PublicNetwork)
		if err != nil {
			return invalid(located.At("public_network"), "%q is not a CIDR", b.PublicNetwork)
		}
		if !p.Contains(ip) {
			return invalid(located.At("mon_ip"), "%s is outside public_network %s", b.MonIP, b.PublicNetwork)
		}
	}
	if b.ClusterNetwork != "" {
		if _, err := netip.ParsePrefix(b.ClusterNetwork); err != nil {
			return invalid(located.At("cluster_network"), "%q is not a CIDR", b.ClusterNetwork)
		}
	}
	return nil
}

// Argv is the bootstrap command line.
func (b Bootstrap) Argv() []string {
	argv := []string{"cephadm", "bootstrap", "--mon-ip", b.MonIP}
	if b.Image != "" {
		argv = []string{"cephadm", "--image", b.Image, "bootstrap", "--mon-ip", b.MonIP}
	}
	if b.ClusterNetwork != "" {
		argv = append(argv, "--cluster-network", b.ClusterNetwork)
	}
	if !b.Dashboard {
		argv = append(argv, "--skip-dashboard", "--skip-monitoring-stack")
	}
	argv = append(argv, "--ssh-user", "root", "--output-dir", ConfDir)
	if b.AllowFQDN {
		argv = append(argv, "--allow-fqdn-hostname")
	}
	return argv
}

// Item runs the bootstrap once: the admin keyring it writes is the guard.
// (An unless test, not creates: under a fake root the agent writes an
// empty creates file after the command, which would blank the keyring.)
func (b Bootstrap) Item() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "cephadm-bootstrap", Argv: b.Argv(), Unless: nonEmpty(AdminKeyring)}}
}

// nonEmpty is a guard holding when the file exists and is not empty.
func nonEmpty(file string) []string {
	return []string{"sh", "-c", `[ -s "$1" ]`, "sh", file}
}

// AuthorizeKey adds cephadm's public key to root's authorized_keys unless
// it is there; plain POSIX sh (builtins only), so any node runs it.
func AuthorizeKey(pubKey string) protocol.Item {
	const add = `k="$1"; f="$2"; mkdir -p "${f%/*}"; printf '%s\n' "$k" >> "$f"`
	return protocol.Item{Command: &protocol.Command{Name: "ceph-authorize-key",
		Argv:   []string{"sh", "-c", add, "sh", pubKey, AuthorizedKeys},
		Unless: hasLine(pubKey)}}
}

// RevokeKey removes cephadm's key from authorized_keys, keeping every
// other line (destroy).
func RevokeKey(pubKey string) protocol.Item {
	const rm = `k="$1"; f="$2"; out=""; while IFS= read -r l || [ -n "$l" ]; do [ "$l" = "$k" ] || out="$out$l
"; done < "$f"; printf '%s' "$out" > "$f"`
	const absent = `k="$1"; f="$2"; [ -f "$f" ] || exit 0; while IFS= read -r l || [ -n "$l" ]; do [ "$l" = "$k" ] && exit 1; done < "$f"; exit 0`
	return protocol.Item{Command: &protocol.Command{Name: "ceph-revoke-key",
		Argv:   []string{"sh", "-c", rm, "sh", pubKey, AuthorizedKeys},
		Unless: []string{"sh", "-c", absent, "sh", pubKey, AuthorizedKeys}}}
}

func hasLine(line string) []string {
	const has = `k="$1"; f="$2"; [ -f "$f" ] || exit 1; while IFS= read -r l || [ -n "$l" ]; do [ "$l" = "$k" ] && exit 0; done < "$f"; exit 1`
	return []string{"sh", "-c", has, "sh", line, AuthorizedKeys}
}

// Read-only queries, by the name of their item.
var (
	QueryHostLs     = Query("ceph-host-ls", "ceph", "orch", "host", "ls", "--format", "json")
	QueryExport     = Query("ceph-orch-export", "ceph", "orch", "ls", "--export", "--format", "json")
	QueryMonDump    = Query("ceph-mon-dump", "ceph", "mon", "dump", "-f", "json")
	QueryPools      = Query("ceph-pools", "ceph", "osd", "pool", "ls", "detail", "-f", "json")
	QueryStatus     = Query("ceph-status", "ceph", "status", "-f", "json")
	QueryCrushRules = Query("ceph-crush-rules", "ceph", "osd", "crush", "rule", "dump", "-f", "json")
	QueryOSDTree    = Query("ceph-osd-tree", "ceph", "osd", "tree", "-f", "json")
	QueryShowmapped = Query("rbd-showmapped", "rbd", "showmapped", "--format", "json")
	// QueryPubKey prints cephadm's public key (`cat`, in sh builtins so
	// a node without coreutils in PATH answers too).
	QueryPubKey = Query("ceph-pubkey", "sh", "-c", `while IFS= read -r l || [ -n "$l" ]; do printf '%s\n' "$l"; done < "$1"`, "sh", PubKeyFile)
)

// QueryDeviceLs lists one host's devices (`ceph orch device ls
// [<hostname>...]`): one host per query keeps each answer well under the
// agent's output bound (a 23-device host prints about 20 KiB).
func QueryDeviceLs(host string) protocol.Item {
	return Query("ceph-device-ls-"+host, "ceph", "orch", "device", "ls", host, "--format", "json")
}

// QueryImages lists a pool's images.
func QueryImages(pool string) protocol.Item {
	return Query("rbd-ls-"+pool, "rbd", "ls", "-l", "--format", "json", pool)
}

// QueryAuth reads a client's key and caps.
func QueryAuth(client string) protocol.Item {
	return Query("ceph-auth-"+client, "ceph", "auth", "get", "client."+client, "-f", "json")
}

// HostAdd adds a host with its labels unless `ceph orch host ls` lists it.
// The labels are positional (`orch host add <hostname> [<addr>]
// [<labels>...]`): Ceph's CLI takes each word as one label and would keep
// `--labels a,b` as the single label "a,b".
func HostAdd(name, addr string, labels []string) protocol.Item {
	argv := append([]string{"ceph", "orch", "host", "add", name, addr}, labels...)
	return Guarded("ceph-host-add-"+name, argv, QueryHostLs.Command.Argv, `"hostname":\s*"`+regexp.QuoteMeta(name)+`"`)
}

// HostLabel adds a label to a host already in the cluster; sent when the
// read-back lacks it.
func HostLabel(name, label, nonce string) protocol.Item {
	return Once("ceph-host-label-"+name+"-"+label, nonce, "ceph", "orch", "host", "label", "add", name, label)
}

// HostRm removes a host from the cluster.
func HostRm(name, nonce string) protocol.Item {
	return Once("ceph-host-rm-"+name, nonce, "ceph", "orch", "host", "rm", name)
}

// Once runs argv one time for this request: the provider sends such a
// command only when its read-back says the cluster differs, and the nonce
// (new for each apply) names the marker the command leaves behind, so an
// agent that replays the same request does not run it twice.
func Once(name, nonce string, argv ...string) protocol.Item {
	return runonce.Item(name, "ceph-once", runonce.Marker(SpecDir+"/.done", name, nonce), argv...)
}

// SpecFile writes a spec file for `ceph orch apply -i`.
func SpecFile(serviceName string, yamlDoc []byte) protocol.Item {
	content := string(yamlDoc)
	return protocol.Item{File: &protocol.File{Path: SpecPath(serviceName), Content: &content, Mode: "0644"}}
}

// SpecApply applies the spec file (`ceph orch apply -i`); sent when the
// spec cephadm exports differs.
func SpecApply(serviceName, nonce string) protocol.Item {
	return Once("ceph-orch-apply-"+serviceName, nonce, "ceph", "orch", "apply", "-i", SpecPath(serviceName))
}

// SpecDirItem creates the spec folder.
func SpecDirItem() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "ceph-spec-dir", Argv: []string{"mkdir", "-p", SpecDir},
		Unless: []string{"sh", "-c", `[ -d "$1" ]`, "sh", SpecDir}}}
}

// Pool settings.
const (
	MinPoolSize = 1
	MaxPoolSize = 10
)

// PGAutoscaleModes are Ceph's pg_autoscale_mode values.
var PGAutoscaleModes = []string{"on", "off", "warn"}

// Kinds of object the provider marks as its own.
const (
	OwnedPool = "pool"
)

// OwnedImage is the kind of a pool's images.
func OwnedImage(pool string) string { return "image." + pool }

// ownedMark is the file that says the provider created the object: a pool
// or image in the cluster without one was made by someone else, and a
// resource that would create it refuses to take it over (import adopts).
// The mark is written before the object is created, so a run killed in
// between finds its own object on the re-run.
func ownedMark(kind, name string) string { return SpecDir + "/owned/" + kind + "/" + name }

// markThen writes the mark of kind/name, then runs argv (sh builtins
// only, so any node and the lab's sh run it).
func markThen(kind, name string, argv ...string) []string {
	return append([]string{"sh", "-c", `m="$1"; shift; mkdir -p "${m%/*}" && printf 'hpcstorage\n' > "$m" && "$@"`, "sh",
		ownedMark(kind, name)}, argv...)
}

// QueryOwned lists the objects of a kind the provider marked as its own,
// one name a line.
func QueryOwned(kind string) protocol.Item {
	return Query("ceph-owned-"+kind, "sh", "-c", `for f in "$1"/*; do [ -s "$f" ] && printf '%s\n' "${f##*/}"; done; exit 0`,
		"sh", SpecDir+"/owned/"+kind)
}

// ParseOwned reads QueryOwned's output.
func ParseOwned(out string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Fields(out) {
		m[l] = true
	}
	return m
}

// Disown clears the mark of an object this provider deleted (emptied:
// the mark is only read when not empty).
func Disown(kind, name, nonce string) protocol.Item {
	return Once("ceph-disown-"+kind+"-"+name, nonce, "sh", "-c", `[ ! -e "$1" ] || : > "$1"`, "sh", ownedMark(kind, name))
}

// PoolCreate creates a pool (pg_num given or left to the autoscaler),
// marking it as this provider's first.
func PoolCreate(name string, pgNum int) protocol.Item {
	argv := []string{"ceph", "osd", "pool", "create", name}
	if pgNum > 0 {
		argv = append(argv, strconv.Itoa(pgNum))
	}
	return Guarded("ceph-pool-create-"+name, markThen(OwnedPool, name, argv...), QueryPools.Command.Argv,
		`"pool_name":\s*"`+regexp.QuoteMeta(name)+`"`)
}

// PoolSet sets one pool variable; sent when the read-back differs.
func PoolSet(name, key, value, nonce string) protocol.Item {
	return Once("ceph-pool-set-"+name+"-"+key, nonce, "ceph", "osd", "pool", "set", name, key, value)
}

// PoolApplication enables an application on a pool; sent when the
// read-back lacks it.
func PoolApplication(name, app, nonce string) protocol.Item {
	return Once("ceph-pool-app-"+name, nonce, "ceph", "osd", "pool", "application", "enable", name, app)
}

// RbdPoolInit initialises a pool for RBD once (the marker is the
// provider's: rbd pool init leaves no file behind).
func RbdPoolInit(name string) protocol.Item {
	marker := SpecDir + "/pool-" + name + ".rbd-init"
	return protocol.Item{Command: &protocol.Command{Name: "rbd-pool-init-" + name,
		Argv:    []string{"sh", "-c", `rbd pool init "$1" && mkdir -p "${2%/*}" && : > "$2"`, "sh", name, marker},
		Creates: marker}}
}

// PoolRm deletes a pool. The monitors refuse unless mon_allow_pool_delete
// is true: it is turned on for this one deletion and off again, so the
// cluster keeps refusing pool deletions by hand.
func PoolRm(name, nonce string) []protocol.Item {
	allow := func(v string) protocol.Item {
		return Once("ceph-pool-delete-"+v+"-"+name, nonce, "ceph", "config", "set", "mon", "mon_allow_pool_delete", v)
	}
	return []protocol.Item{allow("true"),
		Once("ceph-pool-rm-"+name, nonce, "ceph", "osd", "pool", "rm", name, name, "--yes-i-really-really-mean-it"),
		allow("false"), Disown(OwnedPool, name, nonce)}
}

// MiB is rbd's size unit.
const MiB = 1 << 20

// ImageCreateArgv is the rbd create command line of an image.
func ImageCreateArgv(pool, name string, sizeBytes int64, features []string) []string {
	argv := []string{"rbd", "create", pool + "/" + name, "--size", strconv.FormatInt(sizeBytes/MiB, 10)}
	if len(features) > 0 {
		argv = append(argv, "--image-feature", strings.Join(features, ","))
	}
	return argv
}

// ImageCreate creates an image of sizeBytes (a whole number of MiB),
// marking it as this provider's first.
func ImageCreate(pool, name string, sizeBytes int64, features []string) protocol.Item {
	return Guarded("rbd-create-"+pool+"-"+name, markThen(OwnedImage(pool), name, ImageCreateArgv(pool, name, sizeBytes, features)...),
		[]string{"rbd", "info", pool + "/" + name, "--format", "json"})
}

// ImageGrow grows an image in place (never --allow-shrink: rbd refuses a
// shrink without it).
func ImageGrow(pool, name string, sizeBytes int64) protocol.Item {
	return Guarded("rbd-resize-"+pool+"-"+name, []string{"rbd", "resize", pool + "/" + name, "--size", strconv.FormatInt(sizeBytes/MiB, 10)},
		[]string{"rbd", "info", pool + "/" + name, "--format", "json"}, `"size":\s*`+strconv.FormatInt(sizeBytes, 10)+`\b`)
}

// ImageRm deletes an image and clears its mark; sent when the pool lists
// it.
func ImageRm(pool, name, nonce string) []protocol.Item {
	return []protocol.Item{Once("rbd-rm-"+pool+"-"+name, nonce, "rbd", "rm", pool+"/"+name), Disown(OwnedImage(pool), name, nonce)}
}

// ImageFeatures are the features rbd create takes (Pacific).
var ImageFeatures = []string{"layering", "exclusive-lock", "object-map", "fast-diff", "deep-flatten", "journaling"}

var reImageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// ValidName checks a pool, image or client name; the error is located at
// at (the attribute holding the name).
func ValidName(at located.Path, name string) error {
	if !reImageName.MatchString(name) {
		return invalid(at, "%q: want letters, digits, '_', '.', '-' (at most 128), starting with a letter or digit", name)
	}
	return nil
}
