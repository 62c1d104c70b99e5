package sim

// multipath follows multipath(8) and multipathd(8) of device-mapper-
// multipath 0.4.9 (RHEL 7) for what an NFS-HA node uses:
//
//   - `multipath`, `multipath -r` (and -v0..-v3): read /etc/multipath.conf,
//     group the SCSI disks by WWID (sys/block/sd*/device/wwid) and create or
//     reload one map per volume: with find_multipaths yes only volumes seen
//     through two paths or more (or already in /etc/multipath/wwids) become
//     maps, as multipath does; a map is named by its multipaths{} alias,
//     else mpatha, mpathb... (user_friendly_names yes), else the WWID. A map
//     is a dm-N device with its name in /dev/mapper; the volume's
//     signature (a reused volume) is seen through it.
//   - `multipath -ll [NAME|WWID]`: the topology, in multipath's format.
//   - `multipath -f NAME` / `multipath -F`: flush maps; a map in use (a
//     logical volume on it is active, or it is mounted) is refused ("map
//     in use"), exit 1.
//   - `multipathd show maps`, `multipathd reconfigure` (and the -k"..."
//     form): only while multipathd.service runs, else "ux_socket_connect:
//     No such file or directory", exit 1, as the CLI without its daemon.
//
// Refusals: a config that does not parse (unbalanced braces) fails with
// multipath's "error parsing config file", exit 1. Maps are kernel state:
// MapsPath is volatile (RunDir).

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// MapsPath is the simulated device-mapper multipath table.
const MapsPath = RunDir + "/multipath.json"

// WWIDsPath is multipath's record of the volumes it has made maps of.
const WWIDsPath = "/etc/multipath/wwids"

type mpathMap struct {
	Name  string   `json:"name"`
	DM    string   `json:"dm"` // dm-N
	WWID  string   `json:"wwid"`
	Paths []string `json:"paths"`
}

type mpathMaps struct {
	Maps map[string]*mpathMap `json:"maps"` // by wwid
}

type mpathConf struct {
	userFriendly, findMultipaths bool
	aliases                      map[string]string // wwid -> alias
	devices                      []mpathDevice
}

type mpathDevice struct {
	vendor, product string
	settings        map[string]string
}

// parseMultipathConf reads the config's sections; "name value" lines and
// nested {} blocks, # comments, quoted values.
func parseMultipathConf(s string) (mpathConf, error) {
	c := mpathConf{aliases: map[string]string{}}
	type frame struct {
		name string
		kv   map[string]string
	}
	var stack []frame
	for n, raw := range strings.Split(s, "\n") {
		line := raw
		if i := strings.IndexAny(line, "#!"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		switch {
		case strings.HasSuffix(line, "{"):
			stack = append(stack, frame{name: strings.TrimSpace(strings.TrimSuffix(line, "{")), kv: map[string]string{}})
		case line == "}":
			if len(stack) == 0 {
				return c, fmt.Errorf("line %d: unmatched }", n+1)
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1].name
			}
			switch {
			case top.name == "defaults":
				c.userFriendly = top.kv["user_friendly_names"] == "yes"
				c.findMultipaths = top.kv["find_multipaths"] == "yes"
			case top.name == "multipath" && parent == "multipaths":
				if top.kv["wwid"] != "" && top.kv["alias"] != "" {
					c.aliases[top.kv["wwid"]] = top.kv["alias"]
				}
			case top.name == "device" && parent == "devices":
				c.devices = append(c.devices, mpathDevice{vendor: top.kv["vendor"], product: top.kv["product"], settings: top.kv})
			}
		default:
			if len(stack) == 0 {
				return c, fmt.Errorf("line %d: %q outside a section", n+1, line)
			}
			k, v, _ := strings.Cut(line, " ")
			stack[len(stack)-1].kv[k] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	if len(stack) > 0 {
		return c, fmt.Errorf("section %s not closed", stack[len(stack)-1].name)
	}
	return c, nil
}

func (e *Env) loadMaps() (mpathMaps, error) {
	m := mpathMaps{Maps: map[string]*mpathMap{}}
	data, err := e.read(MapsPath)
	if err != nil || data == nil {
		return m, err
	}
	err = json.Unmarshal(data, &m)
	if m.Maps == nil {
		m.Maps = map[string]*mpathMap{}
	}
	return m, err
}

func (e *Env) saveMaps(m mpathMaps) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return e.write(MapsPath, append(data, '\n'))
}

// scsiPaths groups the node's sd disks by multipath WWID ("3" + NAA hex).
func (e *Env) scsiPaths() map[string][]string {
	out := map[string][]string{}
	ents, _ := e.Root.ReadDir("/sys/block")
	for _, ent := range ents {
		name := ent.Name()
		if !strings.HasPrefix(name, "sd") {
			continue
		}
		data, err := e.read("/sys/block/" + name + "/device/wwid")
		if err != nil || data == nil {
			continue
		}
		w := strings.TrimSpace(string(data))
		if !strings.HasPrefix(w, "naa.") {
			continue
		}
		id := "3" + strings.ToLower(strings.TrimPrefix(w, "naa."))
		out[id] = append(out[id], name)
	}
	for _, p := range out {
		slices.SortFunc(p, func(a, b string) int {
			if len(a) != len(b) {
				return len(a) - len(b)
			}
			return strings.Compare(a, b)
		})
	}
	return out
}

// freeDM is the first dm-N not in sys/block.
func (e *Env) freeDM() string {
	for n := 0; ; n++ {
		if !e.exists("/sys/block/dm-" + strconv.Itoa(n)) {
			return "dm-" + strconv.Itoa(n)
		}
	}
}

// addDM creates a device-mapper device: dm-N in /dev and sys/block, its
// /dev/mapper name; slaves are the devices it sits on.
func (e *Env) addDM(dm, name, uuid string, sizeSectors int64, slaves []string) error {
	b := "/sys/block/" + dm
	for p, v := range map[string]string{b + "/size": strconv.FormatInt(sizeSectors, 10), b + "/dm/name": name,
		b + "/dm/uuid": uuid, b + "/dev": "253:" + strings.TrimPrefix(dm, "dm-"), b + "/queue/rotational": "1",
		b + "/ro": "0", "/dev/" + dm: ""} {
		if err := e.write(p, []byte(v)); err != nil {
			return err
		}
	}
	for _, s := range slaves {
		if err := e.write(b+"/slaves/"+s, nil); err != nil {
			return err
		}
	}
	return e.link("/dev/mapper/"+name, "../"+dm)
}

// link replaces p with a symlink to target (both built by the simulators
// from checked names).
func (e *Env) link(p, target string) error {
	if !reDMName.MatchString(path.Base(p)) {
		return fmt.Errorf("bad device name %q", path.Base(p))
	}
	if _, err := e.Root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	_ = e.Root.Remove(p)
	hp, err := e.hostPath(p)
	if err != nil {
		return err
	}
	return os.Symlink(target, hp)
}

// hostPath is p inside the root on the host, never outside it.
func (e *Env) hostPath(p string) (string, error) {
	hp := e.Root.HostPath(p)
	if !path.IsAbs(p) || !strings.HasPrefix(hp, e.Root.Dir()+"/") {
		return "", fmt.Errorf("%s: not inside the node root", p)
	}
	return hp, nil
}

// removeTree removes a simulated sysfs folder.
func (e *Env) removeTree(p string) error {
	if err := e.Root.CheckConfined(path.Dir(p)); err != nil {
		return err
	}
	hp, err := e.hostPath(p)
	if err != nil {
		return err
	}
	return os.RemoveAll(hp)
}

var reDMName = regexp.MustCompile(`^[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,127}$`)

func (e *Env) removeDM(dm, name string) error {
	for _, p := range []string{"/dev/mapper/" + name, "/dev/" + dm, SigDir + "/" + dm} {
		if err := e.Root.Remove(p); err != nil && e.exists(p) {
			return err
		}
	}
	return e.removeTree("/sys/block/" + dm)
}

// holders reports what uses a dm device: an active logical volume on it,
// or a mount.
func (e *Env) dmInUse(dm string) bool {
	if e.mountedAt("/dev/"+dm) != "" {
		return true
	}
	ents, _ := e.Root.ReadDir("/sys/block")
	for _, ent := range ents {
		if e.exists("/sys/block/" + ent.Name() + "/slaves/" + dm) {
			return true
		}
	}
	return false
}

func multipathCmd(e *Env, args []string) int {
	var list, flushAll bool
	var flush, target string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-ll" || a == "-l":
			list = true
		case a == "-r" || strings.HasPrefix(a, "-v"):
		case a == "-f":
			if i+1 >= len(args) {
				return e.fail(1, "option -f requires an argument")
			}
			flush = args[i+1]
			i++
		case a == "-F":
			flushAll = true
		case strings.HasPrefix(a, "-"):
			return e.fail(1, "invalid option -- '%s'", strings.TrimLeft(a, "-"))
		default:
			target = a
		}
	}
	maps, err := e.loadMaps()
	if err != nil {
		return e.fail(1, "%v", err)
	}
	switch {
	case list:
		return e.multipathList(maps, target)
	case flush != "" || flushAll:
		return e.multipathFlush(maps, flush)
	}
	return e.multipathReload(maps)
}

// multipathReload builds the maps from the config and the paths.
func (e *Env) multipathReload(maps mpathMaps) int {
	data, err := e.read("/etc/multipath.conf")
	if err != nil {
		return e.fail(1, "%v", err)
	}
	conf := mpathConf{aliases: map[string]string{}}
	if data == nil {
		fmt.Fprintln(e.Stderr, "/etc/multipath.conf does not exist, blacklisting all devices.")
		return 0
	}
	if conf, err = parseMultipathConf(string(data)); err != nil {
		return e.fail(1, "error parsing config file: %v", err)
	}
	known := map[string]bool{}
	if w, _ := e.read(WWIDsPath); w != nil {
		for _, l := range splitLines(string(w)) {
			known[strings.Trim(l, "/")] = true
		}
	}
	paths := e.scsiPaths()
	wwids := make([]string, 0, len(paths))
	for w := range paths {
		wwids = append(wwids, w)
	}
	slices.Sort(wwids)
	// Maps whose volume is gone (unmapped) go, unless in use.
	for w, m := range maps.Maps {
		if _, ok := paths[w]; !ok && !e.dmInUse(m.DM) {
			if err := e.removeDM(m.DM, m.Name); err != nil {
				return e.fail(1, "%v", err)
			}
			delete(maps.Maps, w)
		}
	}
	friendly := 0
	for _, w := range wwids {
		p := paths[w]
		if conf.findMultipaths && len(p) < 2 && !known[w] && maps.Maps[w] == nil {
			continue
		}
		name := conf.aliases[w]
		if name == "" && conf.userFriendly {
			for {
				name = "mpath" + string(rune('a'+friendly%26))
				friendly++
				if !e.exists("/dev/mapper/" + name) {
					break
				}
			}
		}
		if name == "" {
			name = w
		}
		m := maps.Maps[w]
		if m == nil {
			m = &mpathMap{WWID: w, DM: e.freeDM()}
			maps.Maps[w] = m
		} else if m.Name != name {
			_ = e.Root.Remove("/dev/mapper/" + m.Name)
		}
		if !known[w] {
			known[w] = true
			old, _ := e.read(WWIDsPath)
			if err := e.write(WWIDsPath, append(old, []byte("/"+w+"/\n")...)); err != nil {
				return e.fail(1, "%v", err)
			}
		}
		m.Name, m.Paths = name, p
		size, _ := e.read("/sys/block/" + p[0] + "/size")
		n, _ := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64)
		_ = e.removeTree("/sys/block/" + m.DM + "/slaves")
		if err := e.addDM(m.DM, name, "mpath-"+w, n, p); err != nil {
			return e.fail(1, "%v", err)
		}
		// What the volume carries is seen through its map.
		if sig, _ := e.read(SigDir + "/" + p[0]); sig != nil && !e.exists(SigDir+"/"+m.DM) {
			if err := e.write(SigDir+"/"+m.DM, sig); err != nil {
				return e.fail(1, "%v", err)
			}
		}
	}
	if err := e.saveMaps(maps); err != nil {
		return e.fail(1, "%v", err)
	}
	return 0
}

func (e *Env) multipathFlush(maps mpathMaps, which string) int {
	code := 0
	for w, m := range maps.Maps {
		if which != "" && m.Name != which && w != which {
			continue
		}
		if e.dmInUse(m.DM) {
			fmt.Fprintf(e.Stderr, "%s: map in use\n", m.Name)
			code = 1
			continue
		}
		if err := e.removeDM(m.DM, m.Name); err != nil {
			return e.fail(1, "%v", err)
		}
		delete(maps.Maps, w)
	}
	if err := e.saveMaps(maps); err != nil {
		return e.fail(1, "%v", err)
	}
	return code
}

// multipathList prints the topology as multipath -ll does.
func (e *Env) multipathList(maps mpathMaps, target string) int {
	conf := mpathConf{}
	if data, _ := e.read("/etc/multipath.conf"); data != nil {
		conf, _ = parseMultipathConf(string(data))
	}
	var ms []*mpathMap
	for _, m := range maps.Maps {
		if target == "" || m.Name == target || m.WWID == target {
			ms = append(ms, m)
		}
	}
	slices.SortFunc(ms, func(a, b *mpathMap) int { return strings.Compare(a.Name, b.Name) })
	for _, m := range ms {
		vendor, model := e.sysAttr(m.Paths[0], "device/vendor"), e.sysAttr(m.Paths[0], "device/model")
		dev := mpathDevice{settings: map[string]string{}}
		for _, d := range conf.devices {
			if strings.HasPrefix(vendor, d.vendor) && strings.HasPrefix(model, d.product) {
				dev = d
			}
		}
		size, _ := strconv.ParseInt(e.sysAttr(m.DM, "size"), 10, 64)
		hw := dev.settings["hardware_handler"]
		if hw == "" {
			hw = "0"
		}
		selector := dev.settings["path_selector"]
		if selector == "" {
			selector = "service-time 0"
		}
		fmt.Fprintf(e.Stdout, "%s (%s) %s %s,%s\nsize=%s features='0' hwhandler='%s' wp=rw\n", m.Name, m.WWID, m.DM, vendor, model,
			humanSize(size*512), hw)
		// group_by_prio with ALUA: the owning controller's path is active
		// (prio 50), the other one enabled (prio 10); one group otherwise.
		groups := [][]string{m.Paths}
		if dev.settings["path_grouping_policy"] == "group_by_prio" && len(m.Paths) > 1 {
			groups = [][]string{m.Paths[:1], m.Paths[1:]}
		}
		for g, paths := range groups {
			last := g == len(groups)-1
			prio, status := 50, "active"
			if g > 0 {
				prio, status = 10, "enabled"
			}
			lead, inner := "|-+-", "| "
			if last {
				lead, inner = "`-+-", "  "
			}
			fmt.Fprintf(e.Stdout, "%s policy='%s' prio=%d status=%s\n", lead, selector, prio, status)
			for i, p := range paths {
				branch := "|-"
				if i == len(paths)-1 {
					branch = "`-"
				}
				host := 1 + slices.Index(m.Paths, p)
				fmt.Fprintf(e.Stdout, "%s%s %d:0:0:1 %s %s active ready running\n", inner, branch, host, p, e.sysAttr(p, "dev"))
			}
		}
	}
	return 0
}

func (e *Env) sysAttr(dev, attr string) string {
	data, _ := e.read("/sys/block/" + dev + "/" + attr)
	return strings.TrimSpace(string(data))
}

// humanSize prints a size as multipath does (1024-based, one letter).
func humanSize(b int64) string {
	units := "KMGTPE"
	v, u := float64(b)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + units[u:u+1]
}

func multipathd(e *Env, args []string) int {
	cmd := strings.Join(args, " ")
	cmd = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(cmd, "-k"), "\""))
	cmd = strings.TrimSuffix(cmd, "\"")
	st, err := e.loadUnits()
	if err != nil {
		return e.fail(1, "%v", err)
	}
	if !st.Units["multipathd.service"].Active {
		fmt.Fprintln(e.Stderr, "ux_socket_connect: No such file or directory")
		return 1
	}
	maps, err := e.loadMaps()
	if err != nil {
		return e.fail(1, "%v", err)
	}
	switch cmd {
	case "show maps", "list maps":
		fmt.Fprintln(e.Stdout, "name sysfs uuid")
		var ms []*mpathMap
		for _, m := range maps.Maps {
			ms = append(ms, m)
		}
		slices.SortFunc(ms, func(a, b *mpathMap) int { return strings.Compare(a.Name, b.Name) })
		for _, m := range ms {
			fmt.Fprintf(e.Stdout, "%s %s %s\n", m.Name, m.DM, m.WWID)
		}
		return 0
	case "reconfigure":
		if code := e.multipathReload(maps); code != 0 {
			return code
		}
		fmt.Fprintln(e.Stdout, "ok")
		return 0
	}
	fmt.Fprintf(e.Stdout, "multipathd: unknown command %q\n", cmd)
	return 1
}
