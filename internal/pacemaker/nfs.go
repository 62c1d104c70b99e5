package pacemaker

import (
	"errors"
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Export is one NFS export, an exportfs resource of the NFS group.
type Export struct {
	// Directory is on the group's file system.
	Directory string
	// ClientSpec is who may mount it (a host, a network like
	// 10.10.0.0/16, a netgroup); one spec per export.
	ClientSpec string
	// Options are exportfs options, e.g. rw,sync,no_root_squash.
	Options string
	// FSID identifies the export to clients across failover; unique per
	// export and never 0 (the root of NFSv4's pseudo file system).
	FSID int
}

// NFSGroup is R2's NFS service: one resource group that activates the
// volume group (HA-LVM, system_id), mounts the file system, starts the NFS
// server with its state (info dir) on that file system, exports, raises the
// floating IP and notifies clients, in that order, on one node at a time.
type NFSGroup struct {
	ID            string
	VolumeGroup   string
	LogicalVolume string
	MountPoint    string
	FSType        string
	MountOptions  string
	// InfoDir is the NFS server's shared state (rmtab, v4 recovery), on
	// the file system so it moves with the service. Default:
	// <mount point>/nfsinfo.
	InfoDir     string
	Exports     []Export
	FloatingIP  string
	CIDRNetmask int
	// NIC is the interface for the floating IP; empty: the one whose
	// network holds it.
	NIC string
}

var reLVM = regexp.MustCompile(`^[A-Za-z0-9+_.][A-Za-z0-9+_.-]{0,126}$`)

// Member ids of the group, in start order.
func (n NFSGroup) memberID(what string) string { return n.ID + "-" + what }

// ExportID is the id of export i's exportfs resource.
func (n NFSGroup) ExportID(i int) string { return n.memberID(fmt.Sprintf("export-%d", i+1)) }

func (n NFSGroup) infoDir() string {
	if n.InfoDir != "" {
		return n.InfoDir
	}
	return path.Join(n.MountPoint, "nfsinfo")
}

// under reports whether p lies inside dir (or is dir).
func under(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// Validate checks the group's input; errors name the field.
func (n NFSGroup) Validate() error {
	var errs []error
	if !reID.MatchString(n.ID) {
		errs = append(errs, invalid(located.At("id"), "%q: want an XML id", n.ID))
	}
	if !reLVM.MatchString(n.VolumeGroup) {
		errs = append(errs, invalid(located.At("volume_group"), "%q: want an LVM name", n.VolumeGroup))
	}
	if !reLVM.MatchString(n.LogicalVolume) {
		errs = append(errs, invalid(located.At("logical_volume"), "%q: want an LVM name", n.LogicalVolume))
	}
	if !path.IsAbs(n.MountPoint) || path.Clean(n.MountPoint) == "/" {
		errs = append(errs, invalid(located.At("mount_point"), "%q: want an absolute path below /", n.MountPoint))
	}
	if n.FSType == "" {
		errs = append(errs, invalid(located.At("fstype"), "want the file system type (R2: xfs)"))
	}
	if !under(n.infoDir(), n.MountPoint) || path.Clean(n.infoDir()) == path.Clean(n.MountPoint) {
		errs = append(errs, invalid(located.At("info_dir"), "%q: the NFS server's state must be in a folder of the shared file system %s, "+
			"or clients lose their locks on failover", n.infoDir(), n.MountPoint))
	}
	if len(n.Exports) == 0 {
		errs = append(errs, invalid(located.At("exports"), "an NFS service needs at least one export"))
	}
	fsids, dirs := map[int]int{}, map[string]int{}
	for i, e := range n.Exports {
		field := located.At("exports").Index(i)
		if strings.TrimSpace(e.ClientSpec) == "" {
			errs = append(errs, invalid(field, "no client spec: say who may mount %s (a host, a network like 10.10.0.0/16 or *)", e.Directory))
		} else if strings.ContainsAny(e.ClientSpec, " \t(") {
			errs = append(errs, invalid(field, "client spec %q: one host, network or netgroup per export, options go in options", e.ClientSpec))
		}
		if !under(e.Directory, n.MountPoint) {
			errs = append(errs, invalid(field, "directory %q is not on the shared file system %s", e.Directory, n.MountPoint))
		}
		if e.FSID < 1 {
			errs = append(errs, invalid(field, "fsid %d: want a positive number, unique per export", e.FSID))
		} else if j, ok := fsids[e.FSID]; ok {
			errs = append(errs, invalid(field, "fsid %d is also used by exports[%d]", e.FSID, j))
		}
		fsids[e.FSID] = i
		key := path.Clean(e.Directory) + " " + e.ClientSpec
		if j, ok := dirs[key]; ok {
			errs = append(errs, invalid(field, "exports %s to %s again (exports[%d])", e.Directory, e.ClientSpec, j))
		}
		dirs[key] = i
		if strings.ContainsAny(e.Options, " \t") {
			errs = append(errs, invalid(field, "options %q: comma-separated, no blanks", e.Options))
		}
	}
	ip, err := netip.ParseAddr(n.FloatingIP)
	if err != nil {
		errs = append(errs, invalid(located.At("floating_ip"), "%q: want an IP address", n.FloatingIP))
	} else if n.CIDRNetmask < 1 || n.CIDRNetmask > ip.BitLen() {
		errs = append(errs, invalid(located.At("cidr_netmask"), "%d: want 1 to %d", n.CIDRNetmask, ip.BitLen()))
	}
	return errors.Join(errs...)
}

// Group renders the NFS group's primitives in start order.
func (n NFSGroup) Group() (Group, error) {
	if err := n.Validate(); err != nil {
		return Group{}, err
	}
	ocf := func(what, typ string, params map[string]string) Primitive {
		return Primitive{ID: n.memberID(what), Class: "ocf", Provider: "heartbeat", Type: typ, Params: params}
	}
	fs := map[string]string{"device": "/dev/" + n.VolumeGroup + "/" + n.LogicalVolume, "directory": n.MountPoint, "fstype": n.FSType}
	if n.MountOptions != "" {
		fs["options"] = n.MountOptions
	}
	g := Group{ID: n.ID, Members: []Primitive{
		ocf("lvm", "LVM-activate", map[string]string{"vgname": n.VolumeGroup, "vg_access_mode": "system_id"}),
		ocf("fs", "Filesystem", fs),
		// nfsnotify, after the IP is up, tells clients to reclaim locks.
		ocf("server", "nfsserver", map[string]string{"nfs_shared_infodir": n.infoDir(), "nfs_ip": n.FloatingIP, "nfs_no_notify": "true"}),
	}}
	for i, e := range n.Exports {
		p := map[string]string{"clientspec": e.ClientSpec, "directory": e.Directory, "fsid": fmt.Sprint(e.FSID)}
		if e.Options != "" {
			p["options"] = e.Options
		}
		g.Members = append(g.Members, Primitive{ID: n.ExportID(i), Class: "ocf", Provider: "heartbeat", Type: "exportfs", Params: p})
	}
	ip := map[string]string{"ip": n.FloatingIP, "cidr_netmask": fmt.Sprint(n.CIDRNetmask)}
	if n.NIC != "" {
		ip["nic"] = n.NIC
	}
	g.Members = append(g.Members, ocf("ip", "IPaddr2", ip), ocf("notify", "nfsnotify", map[string]string{"source_host": n.FloatingIP}))
	return g, nil
}
