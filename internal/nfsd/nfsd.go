// Package nfsd renders the NFS server's node configuration for a cluster
// that runs it: /etc/nfs.conf (nfsd threads; the nfsserver resource agent
// has no thread parameter), /etc/idmapd.conf (the NFSv4 id domain), and
// the NFS units disabled at boot, since the cluster starts them on the
// active node. Exports are cluster resources (exportfs), not /etc/exports.
package nfsd

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// ErrInvalid is wrapped by every validation error, each located
// (internal/located) at the attribute it is about.
var ErrInvalid = errors.New("invalid NFS server setting")

// Files and units.
const (
	NFSConf     = "/etc/nfs.conf"
	IdmapdConf  = "/etc/idmapd.conf"
	ThreadsProc = "/proc/fs/nfsd/threads"
	Unit        = "nfs-server"
)

// Threads: R2 runs 256; the kernel takes 1 to 8192.
const (
	DefaultThreads = 256
	MinThreads     = 1
	MaxThreads     = 8192
)

// Server is the NFS server settings of one cluster node.
type Server struct {
	Threads int
	// IdmapDomain is the NFSv4 domain; the same on servers and clients.
	// Empty: the DNS domain of the host (idmapd's default).
	IdmapDomain string
}

var reDomain = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,62}\.)*[A-Za-z0-9-]{1,63}$`)

// Validate checks the settings.
func (s Server) Validate() error {
	var errs []error
	if s.Threads < MinThreads || s.Threads > MaxThreads {
		errs = append(errs, located.Errorf(located.At("threads"), "%w: %d: want %d to %d", ErrInvalid, s.Threads, MinThreads, MaxThreads))
	}
	if s.IdmapDomain != "" && !reDomain.MatchString(s.IdmapDomain) {
		errs = append(errs, located.Errorf(located.At("idmap_domain"), "%w: %q: want a DNS domain", ErrInvalid, s.IdmapDomain))
	}
	return errors.Join(errs...)
}

// NFSConfContent is /etc/nfs.conf. The whole file is written: the agent's
// key overlay does not know INI sections, and the packaged file holds only
// comments.
func (s Server) NFSConfContent() string {
	return "# Managed by hpcstorage; local changes are reverted.\n" +
		"# The cluster's nfsserver resource starts nfsd on the active node with these.\n" +
		"[nfsd]\n" +
		"threads=" + strconv.Itoa(s.Threads) + "\n"
}

// IdmapdContent is /etc/idmapd.conf.
func (s Server) IdmapdContent() string {
	var b strings.Builder
	b.WriteString("# Managed by hpcstorage; local changes are reverted.\n[General]\n")
	if s.IdmapDomain != "" {
		b.WriteString("Domain = " + s.IdmapDomain + "\n")
	}
	b.WriteString("\n[Mapping]\nNobody-User = nobody\nNobody-Group = nobody\n\n[Translation]\nMethod = nsswitch\n")
	return b.String()
}

// Items are the agent items of one node. The NFS unit is disabled but
// neither started nor stopped: on the active node the cluster runs it.
func (s Server) Items() ([]protocol.Item, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	nfs, idmap := s.NFSConfContent(), s.IdmapdContent()
	off := false
	file := func(p string, c *string) protocol.Item {
		return protocol.Item{File: &protocol.File{Path: p, Content: c, Mode: "0644", Owner: "root", Group: "root"}}
	}
	threads := strconv.Itoa(s.Threads)
	probe := ThreadsProbe().Command.Argv
	return []protocol.Item{
		file(NFSConf, &nfs),
		file(IdmapdConf, &idmap),
		{Service: &protocol.Service{Name: Unit, Enabled: &off}},
		// Where nfsd runs (the active node) with another thread count,
		// set it live: nfs.conf only counts at the next start.
		{Command: &protocol.Command{Name: "nfsd-threads-live", Argv: []string{"rpc.nfsd", threads},
			Unless: probe, UnlessMatch: []string{`^(stopped|0|` + threads + `)\s*$`}}},
	}, nil
}

// Package floors of R2 (RHEL 7.6), each with what goes wrong below it.
var (
	KernelFloor = protocol.PackageVersion{Name: "kernel", Min: "3.10.0-957.5.1.el7",
		Why: "NFS service hangs, with a kworker thread at 100 % CPU"}
	ResourceAgentsFloor = protocol.PackageVersion{Name: "resource-agents", Min: "4.1.1-12.el7_6.4",
		Why: "nfs-idmapd fails to start, so the cluster's nfsserver resource fails"}
)

// FloorItems are the package floors an NFS server checks before anything
// is changed.
func FloorItems() []protocol.Item {
	k, r := KernelFloor, ResourceAgentsFloor
	return []protocol.Item{{PackageVersion: &k}, {PackageVersion: &r}}
}

// ThreadsProbe is the read-only query whose output ParseThreads reads:
// the running thread count, or "stopped" where nfsd does not run (the
// passive node). Shell built-ins only (read, echo): no other program.
func ThreadsProbe() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "nfsd-threads", ReadOnly: true,
		Argv: []string{"/bin/sh", "-c", `if [ -e "$1" ]; then read -r n < "$1"; echo "$n"; else echo stopped; fi`, "nfsd-threads", ThreadsProc}}}
}

// ParseThreads reads the probe's output: running is false where nfsd does
// not run.
func ParseThreads(out string) (threads int, running bool, err error) {
	out = strings.TrimSpace(out)
	if out == "stopped" {
		return 0, false, nil
	}
	n, err := strconv.Atoi(out)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("%s: %q is not a thread count", ThreadsProc, out)
	}
	// nfsd with 0 threads is stopped too (rpc.nfsd 0).
	return n, n > 0, nil
}
