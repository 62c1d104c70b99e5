package lab

// R2 (NFS-HA) in the lab: two R740 NFS servers, each with two SAS cards,
// each card cabled to both controllers of the ME4084, so every volume
// mapped to a server shows up there as two sd devices with one WWN (the
// lab models one path per card); RHEL 7.6 with the packages the paper
// fixes, and the units an NFS-HA node has.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/fakenode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// R2 figures.
const (
	// R2PathsPerVolume is how many sd devices one volume gives a server.
	R2PathsPerVolume = 2
	// R2Kernel is the running kernel of the lab's R2 nodes: RHEL 7.6 with
	// the NFS fix (the floor is 3.10.0-957.5.1.el7).
	R2Kernel = "3.10.0-957.10.1.el7.x86_64"
)

// R2Packages is the rpm database of an R2 node (RHEL 7.6, updated), as
// name → epoch:version-release.
var R2Packages = map[string]string{
	"kernel":                  "0:3.10.0-957.10.1.el7",
	"resource-agents":         "0:4.1.1-12.el7_6.4",
	"lvm2":                    "7:2.02.180-10.el7_6.3",
	"device-mapper":           "7:1.02.149-10.el7_6.3",
	"device-mapper-multipath": "0:0.4.9-123.el7",
	"nfs-utils":               "1:1.3.0-0.61.el7",
	"pacemaker":               "0:1.1.19-8.el7_6.4",
	"corosync":                "0:2.4.3-4.el7",
	"pcs":                     "0:0.9.165-6.el7",
	"fence-agents-redfish":    "0:4.2.1-11.el7_6.7",
	"xfsprogs":                "0:4.5.0-18.el7",
	"systemd":                 "0:219-62.el7_6.5",
	"tuned":                   "0:2.10.0-6.el7_6.3",
}

// r2Units are the unit files an NFS-HA node has (nfs-utils,
// device-mapper-multipath, pacemaker, corosync, pcs).
var r2Units = []string{"multipathd.service", "nfs-server.service", "nfs-idmapd.service", "nfs-mountd.service",
	"rpcbind.service", "rpc-statd.service", "nfs-config.service", "corosync.service", "pacemaker.service", "pcsd.service"}

const rhel76OSRelease = `NAME="Red Hat Enterprise Linux Server"
VERSION="7.6 (Maipo)"
ID="rhel"
ID_LIKE="fedora"
VARIANT="Server"
VARIANT_ID="server"
VERSION_ID="7.6"
PRETTY_NAME="Red Hat Enterprise Linux Server 7.6 (Maipo)"
CPE_NAME="cpe:/o:redhat:enterprise_linux:7.6:GA:server"
`

// pathsFor is how many paths one volume gives a server of the design.
func pathsFor(design string) int {
	if design == "r2" {
		return R2PathsPerVolume
	}
	return 1
}

// seedDesign adds what a design's server has beyond its profile (clients
// keep theirs).
func seedDesign(design, role, root string) error {
	if design != "r2" || role == RoleClient {
		return nil
	}
	return seedR2(root)
}

// seedR2 turns a seeded storage node into an RHEL 7.6 NFS-HA node.
func seedR2(root string) error {
	write := func(rel, content string) error {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	}
	if err := writeRPMDB(root, R2Packages); err != nil {
		return err
	}
	old, err := os.ReadFile(filepath.Join(root, "proc/sys/kernel/osrelease"))
	if err != nil {
		return err
	}
	if err := write("proc/sys/kernel/osrelease", R2Kernel); err != nil {
		return err
	}
	// The modules of the profile's kernel serve the lab's 3.10 as well.
	if err := os.Symlink(strings.TrimSpace(string(old)), filepath.Join(root, "lib/modules", R2Kernel)); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := write("etc/os-release", rhel76OSRelease); err != nil {
		return err
	}
	if err := write("etc/redhat-release", "Red Hat Enterprise Linux Server release 7.6 (Maipo)\n"); err != nil {
		return err
	}
	for _, u := range r2Units {
		name := strings.TrimSuffix(u, ".service")
		if err := write("usr/lib/systemd/system/"+u, fmt.Sprintf("[Unit]\nDescription=%s\n\n[Service]\nExecStart=/usr/sbin/%s\n\n"+
			"[Install]\nWantedBy=multi-user.target\n", name, name)); err != nil {
			return err
		}
	}
	// The packaged lvm.conf: system_id_source comes from lvmlocal.conf.
	return write("etc/lvm/lvm.conf", "config {\n    checks = 1\n}\nglobal {\n    use_lvmetad = 0\n}\n")
}

func writeRPMDB(root string, pkgs map[string]string) error {
	var b strings.Builder
	b.WriteString("# hpcstorage fake rpm database: name<TAB>epoch:version-release<TAB>arch\n")
	for _, n := range sortedNames(pkgs) {
		fmt.Fprintf(&b, "%s\t%s\tx86_64\n", n, pkgs[n])
	}
	return os.WriteFile(filepath.Join(root, filepath.FromSlash(fakenode.RPMDBPath)), []byte(b.String()), 0o644)
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var reEVR = regexp.MustCompile(`^([0-9]+:)?[A-Za-z0-9._+~]+-[A-Za-z0-9._+~]+$`)

// SetPackage installs version (epoch:version-release) of one package on a
// node in place of the one it has, as a downgrade or an update would; for
// the kernel the node also runs it. Tests use it for a node below a floor.
func (l *Lab) SetPackage(node, name, version string) error {
	root, ok := l.roots[node]
	if !ok {
		return fmt.Errorf("no node %s", node)
	}
	if !reEVR.MatchString(version) {
		return fmt.Errorf("package %s: version %q: want [epoch:]version-release", name, version)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(fakenode.RPMDBPath)))
	if err != nil {
		return fmt.Errorf("node %s has no rpm database: %w", node, err)
	}
	pkgs := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, "\t"); len(f) >= 2 && !strings.HasPrefix(line, "#") {
			pkgs[f[0]] = f[1]
		}
	}
	pkgs[name] = version
	if err := writeRPMDB(root, pkgs); err != nil {
		return err
	}
	if name == "kernel" {
		_, vr, _ := strings.Cut(version, ":")
		if vr == "" {
			vr = version
		}
		return os.WriteFile(filepath.Join(root, "proc/sys/kernel/osrelease"), []byte(vr+".x86_64"), 0o644)
	}
	return nil
}

// cableMore adds the further paths of a volume mapped to a node (r2: the
// second SAS card), as sd devices with the volume's WWN; unmapped removes
// them. Called with l.mu held.
func (l *Lab) cableMore(root string, ev redfishmock.MappingEvent, d fakenode.Disk) error {
	if l.paths < 2 {
		return nil
	}
	wwn := normWWN(ev.WWN)
	if l.morePaths[ev.Host] == nil {
		l.morePaths[ev.Host] = map[string][]string{}
	}
	names := l.morePaths[ev.Host][wwn]
	if ev.Kind == "unmapped" {
		for _, n := range names {
			if err := fakenode.RemoveBlockDevice(root, n); err != nil {
				return err
			}
		}
		delete(l.morePaths[ev.Host], wwn)
		return nil
	}
	for k := len(names); k < l.paths-1; k++ {
		name, err := freeDiskName(root)
		if err != nil {
			return err
		}
		// Reserve the name before the next free one is looked up.
		names = append(names, name)
		dd := d
		dd.Name = name
		if err := fakenode.AddBlockDevice(root, dd); err != nil {
			return err
		}
	}
	for _, n := range names[:min(len(names), l.paths-1)] {
		dd := d
		dd.Name = n
		if err := fakenode.AddBlockDevice(root, dd); err != nil { // resized
			return err
		}
	}
	l.morePaths[ev.Host][wwn] = names
	return nil
}

// Paths returns node -> wwn -> every kernel name the volume has there.
func (l *Lab) Paths() map[string]map[string][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]map[string][]string{}
	for n, m := range l.disks {
		out[n] = map[string][]string{}
		for w, k := range m {
			out[n][w] = append([]string{k}, l.morePaths[n][w]...)
		}
	}
	return out
}
