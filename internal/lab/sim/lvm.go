package sim

// LVM follows lvm2 2.02.180 (RHEL 7.6) for what HA-LVM with system ID
// access uses: pvcreate, vgcreate (with --systemid, else the host's system
// ID from lvm.conf/lvmlocal.conf system_id_source), lvcreate (striped:
// -i/--stripes, -I/--stripesize, -l/--extents N|N%FREE|N%VG, -n/--name),
// vgchange (-a y|n|ay|ey, --systemid, --config "local/extra_system_ids=[..]"),
// and the reports vgs, pvs, lvs (-o fields, --noheadings, --foreign,
// --units b --nosuffix, --reportformat json). Messages and exit status 5
// are LVM's, refusals included:
//
//   - a device that does not exist or that multipath owns (a path of a map)
//     ("excluded by a filter"); a PV of another VG without -ff; a signature
//     without -y ("Wipe it? [y/n]: [n]", "Aborted wiping");
//   - a VG name in use; a PV of another VG given to vgcreate;
//   - lvcreate with more stripes than PVs, a stripe size that is not a
//     power of two (a larger one than the extent is reduced, with LVM's
//     warning), an LV name in use;
//   - any change to, or activation of, a foreign VG (another host's
//     system ID): "Cannot access VG ... with system ID ... with local
//     system ID ..."; reports skip foreign VGs unless --foreign;
//   - deactivating a VG whose LV is mounted.
//
// PVs, VGs and LVs are on-disk metadata on shared array volumes, so they
// live in the lab's shared state (Shared("lvm")), keyed by the volume's
// WWN, and every node cabled to the volumes sees them; activation (the dm
// device of an LV) is per node. blkid sees PVs (LVM2_member) and the file
// system on an LV through sharedSignature.

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type lvmState struct {
	PVs map[string]*lvmPV `json:"pvs"` // by volume WWN (hex)
	VGs map[string]*lvmVG `json:"vgs"`
}

type lvmPV struct {
	UUID      string `json:"uuid"`
	VG        string `json:"vg,omitempty"`
	SizeBytes int64  `json:"size_bytes"`
}

type lvmVG struct {
	UUID        string   `json:"uuid"`
	SystemID    string   `json:"system_id,omitempty"`
	ExtentBytes int64    `json:"extent_bytes"`
	PVs         []string `json:"pvs"` // WWNs, in order
	LVs         []*lvmLV `json:"lvs"`
	Tags        []string `json:"tags,omitempty"`
}

type lvmLV struct {
	Name        string `json:"name"`
	UUID        string `json:"uuid"`
	Stripes     int    `json:"stripes"`
	StripeBytes int64  `json:"stripe_bytes"`
	Extents     int64  `json:"extents"`
	FSType      string `json:"fstype,omitempty"`
}

const lvmFile = "lvm.json"

// pvMetadataBytes is what LVM keeps at the start of a PV (1 MiB data
// alignment).
const pvMetadataBytes = 1 << 20

var (
	reLVMName = regexp.MustCompile(`^[A-Za-z0-9+_.][A-Za-z0-9+_.-]{0,126}$`)
	reLVMTag  = regexp.MustCompile(`^[A-Za-z0-9_+.\-/=!:&#@]+$`)
)

// checkTags refuses a tag LVM would not take.
func (e *Env) checkTags(a lvmArgs) int {
	for _, k := range []string{"addtag", "deltag"} {
		if t, ok := a.opts[k]; ok && (len(t) > 1024 || !reLVMTag.MatchString(t)) {
			fmt.Fprintf(e.Stderr, "  Invalid tag: %s\n", t)
			return 3
		}
	}
	return 0
}

// withLVM runs f on the shared LVM metadata, saving it when f returns 0.
func (e *Env) withLVM(f func(st *lvmState) int) int {
	dir, unlock, err := e.Shared("lvm")
	if err != nil {
		return e.fail(5, "%v", err)
	}
	defer unlock()
	st := &lvmState{}
	file := filepath.Join(dir, lvmFile)
	if data, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(data, st); err != nil {
			return e.fail(5, "%s: %v", file, err)
		}
	}
	if st.PVs == nil {
		st.PVs = map[string]*lvmPV{}
	}
	if st.VGs == nil {
		st.VGs = map[string]*lvmVG{}
	}
	code := f(st)
	if code != 0 {
		return code
	}
	data, _ := json.MarshalIndent(st, "", "  ")
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return e.fail(5, "%v", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return e.fail(5, "%v", err)
	}
	return 0
}

// readLVM reads the shared metadata without holding it.
func (e *Env) readLVM() *lvmState {
	st := &lvmState{PVs: map[string]*lvmPV{}, VGs: map[string]*lvmVG{}}
	if !e.hasShared("lvm") {
		return st
	}
	e.withLVM(func(s *lvmState) int { *st = *s; return 1 })
	return st
}

func lvmUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:32]
}

// diskID names what a device is: the volume's WWN (hex) for an sd path or
// a multipath map ("disk"), or an LV's uuid ("lv").
func (e *Env) diskID(real string) (id, kind string) {
	base := path.Base(real)
	switch {
	case strings.HasPrefix(base, "dm-"):
		uuid := e.sysAttr(base, "dm/uuid")
		switch {
		case strings.HasPrefix(uuid, "mpath-3"):
			return strings.TrimPrefix(uuid, "mpath-3"), "disk"
		case strings.HasPrefix(uuid, "LVM-"):
			return strings.TrimPrefix(uuid, "LVM-"), "lv"
		}
	case strings.HasPrefix(base, "sd"):
		if w := e.sysAttr(base, "device/wwid"); strings.HasPrefix(w, "naa.") {
			return strings.ToLower(strings.TrimPrefix(w, "naa.")), "disk"
		}
	}
	return "", ""
}

func (st *lvmState) lvByUUID(uuid string) (*lvmVG, string, *lvmLV) {
	for name, vg := range st.VGs {
		for _, lv := range vg.LVs {
			if vg.UUID+lv.UUID == uuid {
				return vg, name, lv
			}
		}
	}
	return nil, "", nil
}

// sharedSignature is what blkid finds on a device from the shared LVM
// metadata: LVM2_member on a PV, the file system of an LV.
func (e *Env) sharedSignature(real string) string {
	id, kind := e.diskID(real)
	if id == "" {
		return ""
	}
	st := e.readLVM()
	if kind == "lv" {
		if _, _, lv := st.lvByUUID(id); lv != nil {
			return lv.FSType
		}
		return ""
	}
	if st.PVs[id] != nil {
		return "LVM2_member"
	}
	return ""
}

// recordSharedSignature keeps a file system made on an LV in the shared
// metadata (every node that activates it sees it).
func (e *Env) recordSharedSignature(real, fstype string) {
	id, kind := e.diskID(real)
	if kind != "lv" {
		return
	}
	e.withLVM(func(st *lvmState) int {
		if _, _, lv := st.lvByUUID(id); lv != nil {
			lv.FSType = fstype
			return 0
		}
		return 1
	})
}

// wipeShared erases a PV label or an LV's file system (wipefs -a).
func (e *Env) wipeShared(real string) {
	id, kind := e.diskID(real)
	if id == "" || !e.hasShared("lvm") {
		return
	}
	e.withLVM(func(st *lvmState) int {
		if kind == "lv" {
			if _, _, lv := st.lvByUUID(id); lv != nil {
				lv.FSType = ""
				return 0
			}
			return 1
		}
		if _, ok := st.PVs[id]; ok {
			delete(st.PVs, id)
			return 0
		}
		return 1
	})
}

var (
	reSystemIDSource = regexp.MustCompile(`(?m)^\s*system_id_source\s*=\s*"([a-z_]+)"`)
	reSystemID       = regexp.MustCompile(`(?m)^\s*system_id\s*=\s*"([^"]*)"`)
	reExtraIDs       = regexp.MustCompile(`extra_system_ids\s*=\s*\[([^\]]*)\]`)
)

// localSystemID is the host's system ID as lvm.conf and lvmlocal.conf
// (read after it, so it wins) set it.
func (e *Env) localSystemID() string {
	source, id := "none", ""
	for _, f := range []string{"/etc/lvm/lvm.conf", "/etc/lvm/lvmlocal.conf"} {
		data, _ := e.read(f)
		if m := reSystemIDSource.FindSubmatch(data); m != nil {
			source = string(m[1])
		}
		if m := reSystemID.FindSubmatch(data); m != nil {
			id = string(m[1])
		}
	}
	switch source {
	case "uname":
		h, _ := e.read("/etc/hostname")
		return strings.TrimSpace(string(h))
	case "lvmlocal":
		return id
	case "machineid":
		m, _ := e.read("/etc/machine-id")
		return strings.TrimSpace(string(m))
	}
	return ""
}

// lvmArgs are an LVM command's options and positional arguments.
type lvmArgs struct {
	opts  map[string]string
	flags map[string]int
	pos   []string
}

// lvmValued are the options that take a value, by every spelling.
var lvmValued = map[string]string{"-o": "o", "--options": "o", "--reportformat": "reportformat", "--units": "units",
	"--separator": "separator", "--config": "config", "--systemid": "systemid", "-s": "extent",
	"--physicalextentsize": "extent", "-i": "stripes", "--stripes": "stripes", "-I": "stripesize", "--stripesize": "stripesize",
	"-l": "extents", "--extents": "extents", "-L": "size", "--size": "size", "-n": "name", "--name": "name", "--type": "type",
	"-a": "activate", "--activate": "activate", "-S": "select", "--select": "select", "-O": "sort", "--sort": "sort", "--addtag": "addtag", "--deltag": "deltag"}

func parseLVM(args []string) (lvmArgs, error) {
	a := lvmArgs{opts: map[string]string{}, flags: map[string]int{}}
	for i := 0; i < len(args); i++ {
		s := args[i]
		if k, v, ok := strings.Cut(s, "="); ok && strings.HasPrefix(s, "--") && lvmValued[k] != "" {
			a.opts[lvmValued[k]] = v
			continue
		}
		if key := lvmValued[s]; key != "" {
			if i+1 >= len(args) {
				return a, fmt.Errorf("option %s requires an argument", s)
			}
			a.opts[key] = args[i+1]
			i++
			continue
		}
		switch {
		case s == "-an" || s == "-ay" || s == "-aey" || s == "-aay":
			a.opts["activate"] = s[2:]
		case strings.HasPrefix(s, "-i") && len(s) > 2 && s[2] >= '0' && s[2] <= '9':
			a.opts["stripes"] = s[2:]
		case strings.HasPrefix(s, "-I") && len(s) > 2:
			a.opts["stripesize"] = s[2:]
		case strings.HasPrefix(s, "-l") && len(s) > 2:
			a.opts["extents"] = s[2:]
		case strings.HasPrefix(s, "-n") && len(s) > 2:
			a.opts["name"] = s[2:]
		case s == "-ff":
			a.flags["f"] += 2
		case s == "-y" || s == "--yes":
			a.flags["y"]++
		case s == "-f" || s == "--force":
			a.flags["f"]++
		case strings.HasPrefix(s, "--") || strings.HasPrefix(s, "-"):
			a.flags[strings.TrimLeft(s, "-")]++
		default:
			a.pos = append(a.pos, s)
		}
	}
	return a, nil
}

// parseLVMSize reads "4096k", "4m", "512" (default unit per command).
func parseLVMSize(s string, defUnit int64) (int64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := defUnit
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'b':
			mult, s = 1, s[:n-1]
		case 's':
			mult, s = 512, s[:n-1]
		case 'k':
			mult, s = 1<<10, s[:n-1]
		case 'm':
			mult, s = 1<<20, s[:n-1]
		case 'g':
			mult, s = 1<<30, s[:n-1]
		case 't':
			mult, s = 1<<40, s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return int64(v * float64(mult)), true
}

func lvmSize(b int64) string {
	units := []string{"k", "m", "g", "t", "p"}
	v, u := float64(b)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + units[u]
}

func powerOfTwo(n int64) bool { return n > 0 && n&(n-1) == 0 }

// lvmDevice checks a device argument: it exists and multipath does not
// own it. It returns the volume's WWN and size.
func (e *Env) lvmDevice(dev string) (string, int64, int) {
	real, ok := e.device(dev)
	if !ok {
		fmt.Fprintf(e.Stderr, "  Device %s not found.\n", dev)
		return "", 0, 5
	}
	base := path.Base(real)
	if strings.HasPrefix(base, "sd") && e.mpathOwner(base) != "" {
		fmt.Fprintf(e.Stderr, "  Device %s excluded by a filter.\n", dev)
		return "", 0, 5
	}
	id, kind := e.diskID(real)
	if kind != "disk" {
		fmt.Fprintf(e.Stderr, "  Device %s excluded by a filter.\n", dev)
		return "", 0, 5
	}
	n, _ := strconv.ParseInt(e.sysAttr(base, "size"), 10, 64)
	return id, n * 512, 0
}

// mpathOwner is the map a path belongs to, "" when none.
func (e *Env) mpathOwner(sd string) string {
	ents, _ := e.Root.ReadDir("/sys/block")
	for _, ent := range ents {
		if strings.HasPrefix(ent.Name(), "dm-") && strings.HasPrefix(e.sysAttr(ent.Name(), "dm/uuid"), "mpath-") &&
			e.exists("/sys/block/"+ent.Name()+"/slaves/"+sd) {
			return ent.Name()
		}
	}
	return ""
}

// initPV does pvcreate's work on one device (the caller has checked all).
func (e *Env) initPV(st *lvmState, dev string, a lvmArgs) (string, int) {
	id, size, code := e.lvmDevice(dev)
	if code != 0 {
		return "", code
	}
	if pv := st.PVs[id]; pv != nil && pv.VG != "" && a.flags["f"] < 2 {
		fmt.Fprintf(e.Stderr, "  Can't initialize physical volume \"%s\" of volume group \"%s\" without -ff\n", dev, pv.VG)
		return "", 5
	}
	if st.PVs[id] == nil {
		// Not e.signature: it reads the LVM metadata this command holds.
		if sig := e.localSignature(dev); sig != "" {
			if a.flags["y"] == 0 {
				fmt.Fprintf(e.Stdout, "WARNING: %s signature detected on %s at offset 0. Wipe it? [y/n]: [n]\n", sig, dev)
				fmt.Fprintf(e.Stderr, "  Aborted wiping of %s.\n  1 existing signature left on the device.\n", sig)
				return "", 5
			}
			fmt.Fprintf(e.Stdout, "  Wiping %s signature on %s.\n", sig, dev)
			if f, ok := e.sigFile(dev); ok {
				_ = e.Root.Remove(f)
			}
		}
	}
	st.PVs[id] = &lvmPV{UUID: lvmUUID(), SizeBytes: size}
	return id, 0
}

func pvcreate(e *Env, args []string) int {
	a, err := parseLVM(args)
	if err != nil {
		return e.fail(3, "%v", err)
	}
	if len(a.pos) == 0 {
		fmt.Fprintln(e.Stderr, "  Please enter a physical volume path.")
		return 3
	}
	return e.withLVM(func(st *lvmState) int {
		for _, dev := range a.pos {
			if _, code := e.initPV(st, dev, a); code != 0 {
				return code
			}
			fmt.Fprintf(e.Stdout, "  Physical volume \"%s\" successfully created.\n", dev)
		}
		return 0
	})
}

// foreign reports whether the VG belongs to another host; extra are the
// system IDs --config adds (local/extra_system_ids).
func (e *Env) foreign(vg *lvmVG, a lvmArgs) bool {
	if vg.SystemID == "" || vg.SystemID == e.localSystemID() {
		return false
	}
	if m := reExtraIDs.FindStringSubmatch(a.opts["config"]); m != nil {
		for _, id := range strings.Split(m[1], ",") {
			if strings.Trim(strings.TrimSpace(id), `"`) == vg.SystemID {
				return false
			}
		}
	}
	return true
}

func (e *Env) refuseForeign(name string, vg *lvmVG) int {
	fmt.Fprintf(e.Stderr, "  Cannot access VG %s with system ID %s with local system ID %s.\n", name, vg.SystemID, e.localSystemID())
	return 5
}

func vgcreate(e *Env, args []string) int {
	a, err := parseLVM(args)
	if err != nil {
		return e.fail(3, "%v", err)
	}
	if len(a.pos) < 2 {
		fmt.Fprintln(e.Stderr, "  Please provide volume group name and physical volumes")
		return 3
	}
	name, devs := a.pos[0], a.pos[1:]
	if !reLVMName.MatchString(name) {
		fmt.Fprintf(e.Stderr, "  New volume group name \"%s\" is invalid.\n", name)
		return 3
	}
	extent := int64(4 << 20)
	if s, ok := a.opts["extent"]; ok {
		v, ok := parseLVMSize(s, 1<<20)
		if !ok || !powerOfTwo(v) || v < 1<<10 {
			fmt.Fprintf(e.Stderr, "  Invalid physical extent size %s: it must be a power of 2 of at least 1 KiB.\n", s)
			return 3
		}
		extent = v
	}
	sid, set := a.opts["systemid"]
	if !set {
		sid = e.localSystemID()
	}
	if code := e.checkTags(a); code != 0 {
		return code
	}
	return e.withLVM(func(st *lvmState) int {
		if st.VGs[name] != nil {
			fmt.Fprintf(e.Stderr, "  A volume group called %s already exists.\n", name)
			return 5
		}
		vg := &lvmVG{UUID: lvmUUID(), SystemID: sid, ExtentBytes: extent}
		if t := a.opts["addtag"]; t != "" {
			vg.Tags = []string{t}
		}
		for _, dev := range devs {
			id, _, code := e.lvmDevice(dev)
			if code != 0 {
				return code
			}
			if pv := st.PVs[id]; pv != nil && pv.VG != "" {
				fmt.Fprintf(e.Stderr, "  Physical volume '%s' is already in volume group '%s'\n  Unable to add physical volume '%s' to volume group '%s'\n",
					dev, pv.VG, dev, name)
				return 5
			}
			if slices.Contains(vg.PVs, id) {
				fmt.Fprintf(e.Stderr, "  Physical volume '%s' listed more than once.\n", dev)
				return 5
			}
			if st.PVs[id] == nil {
				if _, code := e.initPV(st, dev, a); code != 0 {
					return code
				}
				fmt.Fprintf(e.Stdout, "  Physical volume \"%s\" successfully created.\n", dev)
			}
			st.PVs[id].VG = name
			vg.PVs = append(vg.PVs, id)
		}
		st.VGs[name] = vg
		if sid != "" {
			fmt.Fprintf(e.Stdout, "  Volume group \"%s\" successfully created with system ID %s\n", name, sid)
		} else {
			fmt.Fprintf(e.Stdout, "  Volume group \"%s\" successfully created\n", name)
		}
		return 0
	})
}

// freeExtents is what each PV of vg has left.
func (st *lvmState) freeExtents(vg *lvmVG) []int64 {
	free := make([]int64, len(vg.PVs))
	for i, id := range vg.PVs {
		if pv := st.PVs[id]; pv != nil {
			free[i] = (pv.SizeBytes - pvMetadataBytes) / vg.ExtentBytes
		}
	}
	for _, lv := range vg.LVs {
		per := lv.Extents / int64(max(lv.Stripes, 1))
		for i := 0; i < lv.Stripes && i < len(free); i++ {
			free[i] -= per
		}
	}
	return free
}

func lvcreate(e *Env, args []string) int {
	a, err := parseLVM(args)
	if err != nil {
		return e.fail(3, "%v", err)
	}
	if len(a.pos) == 0 {
		fmt.Fprintln(e.Stderr, "  Please specify a volume group to use.")
		return 3
	}
	vgName := a.pos[0]
	name := a.opts["name"]
	if !reLVMName.MatchString(name) {
		fmt.Fprintf(e.Stderr, "  Logical volume name \"%s\" is invalid.\n", name)
		return 3
	}
	stripes := 1
	if s, ok := a.opts["stripes"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 128 {
			fmt.Fprintf(e.Stderr, "  Number of stripes (%s) must be between 1 and 128.\n", s)
			return 3
		}
		stripes = n
	}
	stripeBytes := int64(64 << 10)
	if s, ok := a.opts["stripesize"]; ok {
		v, ok := parseLVMSize(s, 1<<10)
		if !ok || !powerOfTwo(v) || v < 4<<10 {
			fmt.Fprintf(e.Stderr, "  Invalid stripe size %s.\n", s)
			return 3
		}
		stripeBytes = v
	}
	var code int
	var dm string
	var lvSectors int64
	var slaves []string
	code = e.withLVM(func(st *lvmState) int {
		vg := st.VGs[vgName]
		if vg == nil {
			fmt.Fprintf(e.Stderr, "  Volume group \"%s\" not found\n  Cannot process volume group %s\n", vgName, vgName)
			return 5
		}
		if e.foreign(vg, a) {
			return e.refuseForeign(vgName, vg)
		}
		for _, lv := range vg.LVs {
			if lv.Name == name {
				fmt.Fprintf(e.Stderr, "  Logical Volume \"%s\" already exists in volume group \"%s\"\n", name, vgName)
				return 5
			}
		}
		if stripes > len(vg.PVs) {
			fmt.Fprintf(e.Stderr, "  Number of stripes (%d) must not exceed number of physical volumes (%d)\n", stripes, len(vg.PVs))
			return 5
		}
		if stripeBytes > vg.ExtentBytes {
			fmt.Fprintf(e.Stderr, "  Reducing requested stripe size %s to maximum, physical extent size %s.\n",
				strings.ToUpper(lvmSize(stripeBytes)), strings.ToUpper(lvmSize(vg.ExtentBytes)))
			stripeBytes = vg.ExtentBytes
		}
		free := st.freeExtents(vg)
		slices.SortFunc(free, func(x, y int64) int { return int(y - x) })
		perStripe := free[stripes-1] // the stripes take the PVs with most room
		var total int64
		for _, f := range free {
			total += f
		}
		want := int64(0)
		switch ext, size := a.opts["extents"], a.opts["size"]; {
		case strings.HasSuffix(ext, "%FREE"), strings.HasSuffix(ext, "%VG"):
			pct, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(ext, "%FREE"), "%VG"))
			if err != nil || pct < 1 || pct > 100 {
				fmt.Fprintf(e.Stderr, "  Invalid argument for --extents: %s\n", ext)
				return 3
			}
			want = min(total*int64(pct)/100, perStripe*int64(stripes))
		case ext != "":
			n, err := strconv.ParseInt(ext, 10, 64)
			if err != nil || n < 1 {
				fmt.Fprintf(e.Stderr, "  Invalid argument for --extents: %s\n", ext)
				return 3
			}
			want = n
		case size != "":
			b, ok := parseLVMSize(size, 1<<20)
			if !ok {
				fmt.Fprintf(e.Stderr, "  Invalid argument for --size: %s\n", size)
				return 3
			}
			want = (b + vg.ExtentBytes - 1) / vg.ExtentBytes
		default:
			fmt.Fprintln(e.Stderr, "  Please specify either size or extents")
			return 3
		}
		if r := want % int64(stripes); r != 0 {
			fmt.Fprintf(e.Stderr, "  Rounding size (%d extents) down to stripe boundary size (%d extents)\n", want, want-r)
			want -= r
		}
		if want < 1 || want/int64(stripes) > perStripe {
			fmt.Fprintf(e.Stderr, "  Insufficient free space: %d extents needed, but only %d available\n", want, perStripe*int64(stripes))
			return 5
		}
		lv := &lvmLV{Name: name, UUID: lvmUUID(), Stripes: stripes, StripeBytes: stripeBytes, Extents: want}
		vg.LVs = append(vg.LVs, lv)
		dm = vg.UUID + lv.UUID
		lvSectors = want * vg.ExtentBytes / 512
		slaves = e.localPVDevices(vg)
		fmt.Fprintf(e.Stdout, "  Logical volume \"%s\" created.\n", name)
		return 0
	})
	if code != 0 {
		return code
	}
	if err := e.activateLV(vgName, name, dm, lvSectors, slaves); err != nil {
		return e.fail(5, "%v", err)
	}
	return 0
}

// localPVDevices are the dm (or sd) names this node sees the VG's PVs as.
func (e *Env) localPVDevices(vg *lvmVG) []string {
	var out []string
	for _, id := range vg.PVs {
		if d := e.localDevice(id); d != "" {
			if real, ok := e.device(d); ok {
				out = append(out, path.Base(real))
			}
		}
	}
	return out
}

// localDevice is how this node names a volume: its multipath map
// (/dev/mapper/<name>), else its first sd path.
func (e *Env) localDevice(id string) string {
	ents, _ := e.Root.ReadDir("/sys/block")
	sd := ""
	for _, ent := range ents {
		n := ent.Name()
		if strings.HasPrefix(n, "dm-") && e.sysAttr(n, "dm/uuid") == "mpath-3"+id {
			return "/dev/mapper/" + e.sysAttr(n, "dm/name")
		}
		if strings.HasPrefix(n, "sd") && sd == "" && strings.EqualFold(e.sysAttr(n, "device/wwid"), "naa."+id) {
			sd = "/dev/" + n
		}
	}
	return sd
}

// activeLV finds the local dm device of an LV, "" when inactive here.
func (e *Env) activeLV(uuid string) string {
	ents, _ := e.Root.ReadDir("/sys/block")
	for _, ent := range ents {
		if strings.HasPrefix(ent.Name(), "dm-") && e.sysAttr(ent.Name(), "dm/uuid") == "LVM-"+uuid {
			return ent.Name()
		}
	}
	return ""
}

// dmName is device-mapper's name of an LV: dashes doubled, joined by one.
func dmName(vg, lv string) string {
	return strings.ReplaceAll(vg, "-", "--") + "-" + strings.ReplaceAll(lv, "-", "--")
}

func (e *Env) activateLV(vg, lv, uuid string, sectors int64, slaves []string) error {
	if e.activeLV(uuid) != "" {
		return nil
	}
	dm := e.freeDM()
	if err := e.addDM(dm, dmName(vg, lv), "LVM-"+uuid, sectors, nil); err != nil {
		return err
	}
	// The LV sits on the PVs: they are its slaves, so multipath sees its
	// maps in use.
	for _, s := range slaves {
		if err := e.write("/sys/block/"+dm+"/slaves/"+s, nil); err != nil {
			return err
		}
	}
	return e.link("/dev/"+vg+"/"+lv, "../"+dm)
}

func (e *Env) deactivateLV(vg, lv, uuid string) error {
	dm := e.activeLV(uuid)
	if dm == "" {
		return nil
	}
	if err := e.Root.Remove("/dev/" + vg + "/" + lv); err != nil && e.exists("/dev/"+vg+"/"+lv) {
		return err
	}
	_ = e.Root.Remove("/dev/" + vg)
	return e.removeDM(dm, dmName(vg, lv))
}

func vgchange(e *Env, args []string) int {
	a, err := parseLVM(args)
	if err != nil {
		return e.fail(3, "%v", err)
	}
	act, hasAct := a.opts["activate"]
	sid, hasSID := a.opts["systemid"]
	addTag, delTag := a.opts["addtag"], a.opts["deltag"]
	if code := e.checkTags(a); code != 0 {
		return code
	}
	if !hasAct && !hasSID && addTag == "" && delTag == "" {
		fmt.Fprintln(e.Stderr, "  Need one or more command options.")
		return 3
	}
	if hasAct && !slices.Contains([]string{"y", "n", "ay", "ey", "ly", "ln", "en"}, act) {
		fmt.Fprintf(e.Stderr, "  Invalid argument for --activate: %s\n", act)
		return 3
	}
	type todo struct {
		vg, lv, uuid string
		sectors      int64
		slaves       []string
	}
	var up, down []todo
	code := e.withLVM(func(st *lvmState) int {
		names := a.pos
		if len(names) == 0 {
			for n, vg := range st.VGs {
				if !e.foreign(vg, a) {
					names = append(names, n)
				}
			}
			slices.Sort(names)
		}
		for _, n := range names {
			vg := st.VGs[n]
			if vg == nil {
				fmt.Fprintf(e.Stderr, "  Volume group \"%s\" not found\n  Cannot process volume group %s\n", n, n)
				return 5
			}
			if e.foreign(vg, a) {
				return e.refuseForeign(n, vg)
			}
			if hasSID || addTag != "" || delTag != "" {
				if hasSID {
					vg.SystemID = sid
				}
				if addTag != "" && !slices.Contains(vg.Tags, addTag) {
					vg.Tags = append(vg.Tags, addTag)
				}
				if delTag != "" {
					vg.Tags = slices.DeleteFunc(vg.Tags, func(t string) bool { return t == delTag })
				}
				fmt.Fprintf(e.Stdout, "  Volume group \"%s\" successfully changed\n", n)
			}
			for _, lv := range vg.LVs {
				t := todo{n, lv.Name, vg.UUID + lv.UUID, lv.Extents * vg.ExtentBytes / 512, e.localPVDevices(vg)}
				if hasAct && strings.HasSuffix(act, "n") {
					if dm := e.activeLV(t.uuid); dm != "" && e.mountedAt("/dev/"+dm) != "" {
						fmt.Fprintf(e.Stderr, "  Logical volume %s/%s contains a filesystem in use.\n  Can't deactivate volume group \"%s\" with 1 open logical volume(s)\n", n, lv.Name, n)
						return 5
					}
					down = append(down, t)
				} else if hasAct {
					up = append(up, t)
				}
			}
		}
		return 0
	})
	if code != 0 {
		return code
	}
	for _, t := range down {
		if err := e.deactivateLV(t.vg, t.lv, t.uuid); err != nil {
			return e.fail(5, "%v", err)
		}
	}
	for _, t := range up {
		if err := e.activateLV(t.vg, t.lv, t.uuid, t.sectors, t.slaves); err != nil {
			return e.fail(5, "%v", err)
		}
	}
	if hasAct {
		counts := map[string]int{}
		for _, t := range up {
			counts[t.vg]++
		}
		seen := map[string]bool{}
		for _, t := range append(up, down...) {
			if !seen[t.vg] {
				seen[t.vg] = true
				fmt.Fprintf(e.Stdout, "  %d logical volume(s) in volume group \"%s\" now active\n", counts[t.vg], t.vg)
			}
		}
	}
	return 0
}

// lvmReport is one report row: field -> value.
type lvmReport []map[string]string

var lvmColumns = map[string]struct {
	defaults []string
	heads    map[string]string
}{
	"vg": {[]string{"vg_name", "pv_count", "lv_count", "snap_count", "vg_attr", "vg_size", "vg_free"},
		map[string]string{"vg_name": "VG", "pv_count": "#PV", "lv_count": "#LV", "snap_count": "#SN", "vg_attr": "Attr",
			"vg_size": "VSize", "vg_free": "VFree", "vg_systemid": "System ID", "vg_uuid": "VG UUID", "vg_extent_size": "Ext",
			"vg_tags": "VG Tags"}},
	"pv": {[]string{"pv_name", "vg_name", "pv_fmt", "pv_attr", "pv_size", "pv_free"},
		map[string]string{"pv_name": "PV", "vg_name": "VG", "pv_fmt": "Fmt", "pv_attr": "Attr", "pv_size": "PSize",
			"pv_free": "PFree", "pv_uuid": "PV UUID"}},
	"lv": {[]string{"lv_name", "vg_name", "lv_attr", "lv_size"},
		map[string]string{"lv_name": "LV", "vg_name": "VG", "lv_attr": "Attr", "lv_size": "LSize", "lv_active": "Active",
			"stripes": "#Str", "stripe_size": "Stripe", "lv_path": "Path", "lv_uuid": "LV UUID", "vg_systemid": "System ID"}},
}

// lvmAliases are the short field names LVM also takes.
var lvmAliases = map[string]string{"systemid": "vg_systemid", "name": "", "size": "", "attr": "", "uuid": "", "stripesize": "stripe_size"}

func vgs(e *Env, args []string) int { return e.lvmReportCmd("vg", args) }
func pvs(e *Env, args []string) int { return e.lvmReportCmd("pv", args) }
func lvs(e *Env, args []string) int { return e.lvmReportCmd("lv", args) }

func (e *Env) lvmReportCmd(kind string, args []string) int {
	a, err := parseLVM(args)
	if err != nil {
		return e.fail(3, "%v", err)
	}
	cols := lvmColumns[kind]
	fields := cols.defaults
	if o, ok := a.opts["o"]; ok {
		o = strings.TrimPrefix(o, "+")
		fields = nil
		for _, f := range strings.Split(o, ",") {
			f = strings.TrimSpace(f)
			if full, ok := lvmAliases[f]; ok {
				if full == "" {
					full = kind + "_" + f
				}
				f = full
			} else if _, ok := cols.heads[f]; !ok && !strings.Contains(f, "_") {
				f = kind + "_" + f
			}
			if _, ok := cols.heads[f]; !ok && f != "vg_name" {
				fmt.Fprintf(e.Stderr, "  Unrecognised field: %s\n", strings.TrimPrefix(f, kind+"_"))
				return 5
			}
			fields = append(fields, f)
		}
		if strings.HasPrefix(a.opts["o"], "+") {
			fields = append(append([]string{}, cols.defaults...), fields...)
		}
	}
	bytes := strings.HasPrefix(a.opts["units"], "b")
	size := func(b int64) string {
		if bytes {
			if a.flags["nosuffix"] > 0 {
				return strconv.FormatInt(b, 10)
			}
			return strconv.FormatInt(b, 10) + "B"
		}
		return lvmSize(b)
	}
	st := e.readLVM()
	var rows lvmReport
	code := 0
	names := map[string]bool{}
	for _, p := range a.pos {
		names[strings.TrimPrefix(p, "/dev/")] = true
	}
	vgNames := make([]string, 0, len(st.VGs))
	for n := range st.VGs {
		vgNames = append(vgNames, n)
	}
	slices.Sort(vgNames)
	if kind != "pv" {
		for p := range names {
			vgn, lvn, isLV := strings.Cut(p, "/")
			vg := st.VGs[vgn]
			switch {
			case vg == nil:
				fmt.Fprintf(e.Stderr, "  Volume group \"%s\" not found\n  Cannot process volume group %s\n", vgn, vgn)
				code = 5
			case isLV && !slices.ContainsFunc(vg.LVs, func(lv *lvmLV) bool { return lv.Name == lvn }):
				fmt.Fprintf(e.Stderr, "  Failed to find logical volume \"%s\"\n", p)
				code = 5
			}
		}
	}
	visible := func(n string, vg *lvmVG) bool {
		if len(e.localPVDevices(vg)) == 0 {
			return false
		}
		if e.foreign(vg, a) && a.flags["foreign"] == 0 {
			if names[n] {
				e.refuseForeign(n, vg)
				code = 5
			}
			return false
		}
		return true
	}
	switch kind {
	case "vg":
		for _, n := range vgNames {
			vg := st.VGs[n]
			if (len(names) > 0 && !names[n]) || !visible(n, vg) {
				continue
			}
			free := st.freeExtents(vg)
			var freeB, sizeB int64
			for i, id := range vg.PVs {
				freeB += free[i] * vg.ExtentBytes
				if pv := st.PVs[id]; pv != nil {
					sizeB += (pv.SizeBytes - pvMetadataBytes) / vg.ExtentBytes * vg.ExtentBytes
				}
			}
			rows = append(rows, map[string]string{"vg_name": n, "pv_count": strconv.Itoa(len(vg.PVs)), "lv_count": strconv.Itoa(len(vg.LVs)),
				"snap_count": "0", "vg_attr": "wz--n-", "vg_size": size(sizeB), "vg_free": size(freeB), "vg_systemid": vg.SystemID,
				"vg_uuid": vg.UUID, "vg_extent_size": size(vg.ExtentBytes), "vg_tags": strings.Join(vg.Tags, ",")})
		}
	case "lv":
		for _, n := range vgNames {
			vg := st.VGs[n]
			if (len(names) > 0 && !names[n] && !anyPrefix(names, n+"/")) || !visible(n, vg) {
				continue
			}
			for _, lv := range vg.LVs {
				if len(names) > 0 && !names[n] && !names[n+"/"+lv.Name] {
					continue
				}
				attr, active := "-wi-------", ""
				if e.activeLV(vg.UUID+lv.UUID) != "" {
					attr, active = "-wi-a-----", "active"
				}
				rows = append(rows, map[string]string{"lv_name": lv.Name, "vg_name": n, "lv_attr": attr, "lv_active": active,
					"lv_size": size(lv.Extents * vg.ExtentBytes), "stripes": strconv.Itoa(lv.Stripes), "stripe_size": size(lv.StripeBytes),
					"lv_path": "/dev/" + n + "/" + lv.Name, "lv_uuid": lv.UUID, "vg_systemid": vg.SystemID})
			}
		}
	case "pv":
		ids := make([]string, 0, len(st.PVs))
		for id := range st.PVs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			pv := st.PVs[id]
			dev := e.localDevice(id)
			if dev == "" || (len(names) > 0 && !names[strings.TrimPrefix(dev, "/dev/")]) {
				continue
			}
			if vg := st.VGs[pv.VG]; vg != nil && e.foreign(vg, a) && a.flags["foreign"] == 0 {
				continue
			}
			rows = append(rows, map[string]string{"pv_name": dev, "vg_name": pv.VG, "pv_fmt": "lvm2", "pv_attr": "a--",
				"pv_size": size(pv.SizeBytes - pvMetadataBytes), "pv_free": size(pv.SizeBytes - pvMetadataBytes), "pv_uuid": pv.UUID})
		}
	}
	e.printReport(kind, fields, cols.heads, rows, a)
	return code
}

func anyPrefix(m map[string]bool, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func (e *Env) printReport(kind string, fields []string, heads map[string]string, rows lvmReport, a lvmArgs) {
	if a.opts["reportformat"] == "json" {
		fmt.Fprintf(e.Stdout, "  {\n      \"report\": [\n          {\n              \"%s\": [\n", kind)
		for i, r := range rows {
			var kv []string
			for _, f := range fields {
				v, _ := json.Marshal(r[f])
				kv = append(kv, fmt.Sprintf("%q:%s", f, v))
			}
			sep := ","
			if i == len(rows)-1 {
				sep = ""
			}
			fmt.Fprintf(e.Stdout, "                  {%s}%s\n", strings.Join(kv, ", "), sep)
		}
		fmt.Fprint(e.Stdout, "              ]\n          }\n      ]\n  }\n")
		return
	}
	if a.opts["separator"] != "" {
		for _, r := range rows {
			var vals []string
			for _, f := range fields {
				vals = append(vals, r[f])
			}
			fmt.Fprintf(e.Stdout, "  %s\n", strings.Join(vals, a.opts["separator"]))
		}
		return
	}
	width := map[string]int{}
	for _, f := range fields {
		if a.flags["noheadings"] == 0 {
			width[f] = len(heads[f])
		}
		for _, r := range rows {
			width[f] = max(width[f], len(r[f]))
		}
	}
	line := func(vals func(f string) string) {
		var parts []string
		for _, f := range fields {
			parts = append(parts, fmt.Sprintf("%-*s", width[f], vals(f)))
		}
		fmt.Fprintf(e.Stdout, "  %s\n", strings.TrimRight(strings.Join(parts, " "), " "))
	}
	if a.flags["noheadings"] == 0 {
		line(func(f string) string { return heads[f] })
	}
	for _, r := range rows {
		line(func(f string) string { return r[f] })
	}
}

// checkXFSStripe follows mkfs.xfs's (xfsprogs 6.1) checks of -d su=,sw=:
// both or neither, su a multiple of the 512-byte sector, sw at least 1
// (else "stripe unit ... is larger than the stripe width (0)"); each
// refusal prints the message, then the usage, exit 1. A log stripe unit
// (-l su=) above 256 KiB is only warned about and falls back to 32 KiB.
func (e *Env) checkXFSStripe(args []string) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(e.Stderr, format+"\nUsage: mkfs.xfs\n", a...)
		return 1
	}
	for i, a := range args {
		if (a != "-d" && a != "-l") || i+1 >= len(args) {
			continue
		}
		var su, sw string
		for _, kv := range strings.Split(args[i+1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "su":
				su = v
			case "sw":
				sw = v
			}
		}
		b, ok := parseLVMSize(su, 1)
		if a == "-l" {
			if ok && b > 256<<10 {
				fmt.Fprintf(e.Stderr, "log stripe unit (%d bytes) is too large (maximum is 256KiB)\nlog stripe unit adjusted to 32KiB\n", b)
			}
			continue
		}
		if (su == "") != (sw == "") {
			return usage("both data su and data sw options must be specified")
		}
		if su == "" {
			continue
		}
		if !ok || b%512 != 0 {
			return usage("stripe unit (%s) must be a multiple of the sector size (512)", su)
		}
		if n, err := strconv.Atoi(sw); err != nil || n < 1 {
			return usage("stripe unit (%d) is larger than the stripe width (0)", b)
		}
	}
	return 0
}
