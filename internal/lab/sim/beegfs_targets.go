package sim

// BeeGFS targets and their states (BeeGFS 7.x): beegfs-setup-storage and
// beegfs-setup-meta write a target's IDs into its directory, the service
// registers its targets with the management service when it starts (the
// lab finds them when beegfs-ctl asks: every registered node's active
// beegfs-storage/beegfs-meta units, their storeStorageDirectory or
// storeMetaDirectory, the IDs there), and `beegfs-ctl --listtargets
// --nodetype=storage|meta [--state] [--longnodes]` prints them.
//
// States follow the management service: a target whose service is not
// running (stopped, or its node powered off) is Offline; a buddy group
// member that is offline while its buddy is online misses the writes the
// buddy takes and is Needs-resync; once it is back the resync runs
// (BeegfsResyncTime in the lab) and it is Good again. The lab does not
// switch a group's primary over (real BeeGFS does after
// sysTargetOfflineTimeoutSecs): the buddy serves either way here.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// BeegfsResyncTime is how long a returned target stays Needs-resync.
const BeegfsResyncTime = 200 * time.Millisecond

// beegfsTarget is one target the management service knows.
type beegfsTarget struct {
	ID       int       `json:"id"`
	NodeID   int       `json:"node_id"`
	Node     string    `json:"node"` // the node's string ID (its host name)
	Online   bool      `json:"online"`
	Resync   bool      `json:"needs_resync,omitempty"`
	BackFrom time.Time `json:"back_from,omitempty"` // when a target needing resync came back
}

// beegfsSetup is beegfs-setup-storage / beegfs-setup-meta: -p DIR, -s
// NODEID, -i TARGETID (storage), -S ALIAS, -P POOL, -m HOST, -C (leave the
// config file). It writes targetNumID (storage) and nodeNumID in DIR and
// refuses a directory set up with other IDs.
func beegfsSetup(e *Env, args []string) int {
	storage := strings.HasSuffix(e.tool, "storage")
	vals := map[string]string{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-p", "-s", "-i", "-S", "-P", "-m":
			if i+1 == len(args) {
				return e.fail(1, "option %s needs a value", a)
			}
			vals[a] = args[i+1]
			i++
		case "-C", "-f", "-r", "-q":
		default:
			return e.fail(1, "unknown option %s", a)
		}
	}
	dir := vals["-p"]
	if !path.IsAbs(dir) {
		return e.fail(1, "ERROR: a storage directory (-p) is required, as an absolute path")
	}
	files := map[string]string{"nodeNumID": vals["-s"]}
	if storage {
		files["targetNumID"] = vals["-i"]
	}
	for f, v := range files {
		if v == "" {
			continue
		}
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 65535 {
			return e.fail(1, "ERROR: invalid numeric ID %q (1 to 65535)", v)
		}
		if old, _ := e.read(dir + "/" + f); strings.TrimSpace(string(old)) != "" && strings.TrimSpace(string(old)) != v {
			return e.fail(1, "ERROR: %s/%s already holds ID %s", dir, f, strings.TrimSpace(string(old)))
		}
	}
	if _, err := e.Root.MkdirAll(dir, 0o755); err != nil {
		return e.fail(1, "%v", err)
	}
	for _, f := range sortedKeys(files) {
		if files[f] == "" {
			continue
		}
		if err := e.write(dir+"/"+f, []byte(files[f]+"\n")); err != nil {
			return e.fail(1, "%v", err)
		}
	}
	return 0
}

// beegfsKinds: per node type, the unit name prefix, the config key
// listing its directories and the ID file there.
var beegfsKinds = map[string]struct{ unit, key, file string }{
	"storage": {"beegfs-storage", "storeStorageDirectory", "targetNumID"},
	"meta":    {"beegfs-meta", "storeMetaDirectory", "nodeNumID"},
}

// scanTargets registers the targets of every running service of the lab
// and marks the others offline, then moves the buddy states on.
func (e *Env) scanTargets(st *mirrorState, nodeType string) {
	if st.Targets == nil {
		st.Targets = map[string][]beegfsTarget{}
	}
	k := beegfsKinds[nodeType]
	online := map[int]beegfsTarget{}
	reg := e.sharedPath(NodesDir)
	ents, _ := os.ReadDir(reg)
	for _, ent := range ents {
		root, err := fsroot.Open(filepath.Join(reg, ent.Name()))
		if err != nil {
			continue
		}
		ne := &Env{Root: root, Stdin: strings.NewReader(""), Stdout: discard{}, Stderr: discard{}}
		units, _ := ne.loadUnits()
		for name, u := range units.Units {
			if !u.Active {
				continue
			}
			conf := ""
			switch {
			case name == k.unit+".service":
				conf = "/etc/beegfs/" + k.unit + ".conf"
			case strings.HasPrefix(name, k.unit+"@") && strings.HasSuffix(name, ".service"):
				inst := strings.TrimSuffix(strings.TrimPrefix(name, k.unit+"@"), ".service")
				conf = "/etc/beegfs/" + inst + ".d/" + k.unit + ".conf"
			default:
				continue
			}
			data, _ := ne.read(conf)
			for _, dir := range confList(string(data), k.key) {
				id := readID(ne, dir+"/"+k.file)
				if id == 0 {
					continue
				}
				online[id] = beegfsTarget{ID: id, NodeID: readID(ne, dir+"/nodeNumID"), Node: ent.Name(), Online: true}
			}
		}
		root.Close()
	}
	known := st.Targets[nodeType]
	for i := range known {
		t, ok := online[known[i].ID]
		known[i].Online = ok
		if ok {
			known[i].Node, known[i].NodeID = t.Node, t.NodeID
			delete(online, known[i].ID)
		}
	}
	for _, t := range online {
		known = append(known, t)
	}
	sort.Slice(known, func(i, j int) bool { return known[i].ID < known[j].ID })
	now := time.Now()
	byID := map[int]*beegfsTarget{}
	for i := range known {
		byID[known[i].ID] = &known[i]
	}
	for _, g := range st.Groups[nodeType] {
		for _, pair := range [][2]int{{g.Primary, g.Secondary}, {g.Secondary, g.Primary}} {
			t, buddy := byID[pair[0]], byID[pair[1]]
			if t == nil || buddy == nil {
				continue
			}
			if !t.Online && buddy.Online {
				t.Resync, t.BackFrom = true, time.Time{}
			}
		}
	}
	for i := range known {
		t := &known[i]
		switch {
		case !t.Resync || !t.Online:
		case t.BackFrom.IsZero():
			t.BackFrom = now
		case now.Sub(t.BackFrom) >= BeegfsResyncTime:
			t.Resync, t.BackFrom = false, time.Time{}
		}
	}
	st.Targets[nodeType] = known
}

// confList is a comma list value of a BeeGFS config file.
func confList(conf, key string) []string {
	var out []string
	for _, l := range strings.Split(conf, "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				out = append(out, d)
			}
		}
	}
	return out
}

func readID(e *Env, p string) int {
	b, _ := e.read(p)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func (t beegfsTarget) reachability() string {
	if t.Online {
		return "Online"
	}
	return "Offline"
}

func (t beegfsTarget) consistency() string {
	if t.Resync {
		return "Needs-resync"
	}
	return "Good"
}

// listTargets prints --listtargets as 7.x does: TargetID and NodeID, with
// --state Reachability and Consistency between them; --longnodes names
// the node ("beegfs-storage stor1 [ID: 1]").
func listTargets(e *Env, st *mirrorState, nodeType string, opts map[string]string) {
	_, state := opts["state"]
	_, long := opts["longnodes"]
	if state {
		fmt.Fprintf(e.Stdout, "TargetID     Reachability  Consistency   NodeID\n========     ============  ===========   ======\n")
	} else {
		fmt.Fprintf(e.Stdout, "TargetID     NodeID\n========     ======\n")
	}
	for _, t := range st.Targets[nodeType] {
		node := strconv.Itoa(t.NodeID)
		if long {
			node = fmt.Sprintf("%s %s [ID: %d]", beegfsKinds[nodeType].unit, t.Node, t.NodeID)
		}
		if state {
			fmt.Fprintf(e.Stdout, "%8d %16s %12s   %s\n", t.ID, t.reachability(), t.consistency(), node)
		} else {
			fmt.Fprintf(e.Stdout, "%8d     %s\n", t.ID, node)
		}
	}
}

// BeegfsGroupState is a buddy group as the probe sees it.
type BeegfsGroupState struct {
	NodeType string
	ID       int
	// Serving: at least one member online and Good (the group's files are
	// reachable); Whole: both are.
	Serving, Whole bool
	// Nodes hold the group's targets; Down are those whose target is
	// offline.
	Nodes, Down []string
}

// BeegfsGroups reads the buddy groups' states of the lab whose shared
// folder is sharedDir (the management service's view, as beegfs-ctl
// --listtargets --state shows it).
func BeegfsGroups(sharedDir string) ([]BeegfsGroupState, error) {
	if _, err := os.Stat(filepath.Join(sharedDir, "beegfs", mirrorFile)); err != nil {
		return nil, nil // no buddy group defined in this lab
	}
	// Any registered node's root links to sharedDir: ask as that node.
	ents, err := os.ReadDir(filepath.Join(sharedDir, NodesDir))
	if err != nil || len(ents) == 0 {
		return nil, err
	}
	// The real root, not the registry's link (a simulator registers the
	// root it runs in).
	dir, err := filepath.EvalSymlinks(filepath.Join(sharedDir, NodesDir, ents[0].Name()))
	if err != nil {
		return nil, err
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	e := &Env{Root: root, Stdin: strings.NewReader(""), Stdout: discard{}, Stderr: discard{}}
	var out []BeegfsGroupState
	err = e.withMirror(func(st *mirrorState) (bool, error) {
		for _, nt := range []string{"meta", "storage"} {
			if len(st.Groups[nt]) == 0 {
				continue
			}
			e.scanTargets(st, nt)
			good := map[int]bool{}
			byID := map[int]beegfsTarget{}
			for _, t := range st.Targets[nt] {
				good[t.ID] = t.Online && !t.Resync
				byID[t.ID] = t
			}
			for _, g := range st.Groups[nt] {
				gs := BeegfsGroupState{NodeType: nt, ID: g.ID, Serving: good[g.Primary] || good[g.Secondary], Whole: good[g.Primary] && good[g.Secondary]}
				for _, id := range []int{g.Primary, g.Secondary} {
					if t, ok := byID[id]; ok {
						gs.Nodes = append(gs.Nodes, t.Node)
						if !t.Online {
							gs.Down = append(gs.Down, t.Node)
						}
					}
				}
				out = append(out, gs)
			}
		}
		return true, nil
	})
	slices.SortFunc(out, func(a, b BeegfsGroupState) int {
		if a.NodeType != b.NodeType {
			return strings.Compare(a.NodeType, b.NodeType)
		}
		return a.ID - b.ID
	})
	return out, err
}
