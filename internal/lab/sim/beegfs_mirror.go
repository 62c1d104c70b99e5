package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Buddy mirroring of beegfs-ctl (BeeGFS 7.x, beegfs-ctl --addmirrorgroup
// --help, --listmirrorgroups, --mirrormd, --listnodes): the management
// service keeps the groups, so they are cluster-wide state
// (e.Shared("beegfs")), seen by beegfs-ctl on any node of the lab.
//
//   - `--addmirrorgroup --nodetype=storage|meta --primary=ID --secondary=ID
//     --groupid=ID` defines a group. Refused, exit 1: a missing or zero
//     ID, primary equal to secondary, a group ID already used for that
//     node type, a target or node already in a group. (--automatic is not
//     simulated: the product never uses it.)
//   - `--listmirrorgroups --nodetype=T` prints 7.x's table: a header
//     (BuddyGroupID PrimaryTargetID SecondaryTargetID; NodeID for meta), a
//     line of =, one line per group ordered by ID.
//   - `--mirrormd` turns metadata mirroring on, once. Refused without a
//     metadata group, when it is already on, and while any client is
//     mounted: BeeGFS 7.x documents that no client may be mounted
//     (BeeGFS 8's `beegfs mirror init` refuses then); the sim enforces it.
//   - `--listnodes --nodetype=client` prints one "NAME [ID: n]" line per
//     mounted client (a client registers when beegfs-client mounts, see
//     beegfs_client.go).
//
// Mirror groups and client registrations survive reboots of single nodes
// (they are the management service's store).

// mirrorState is the management service's view.
type mirrorState struct {
	Groups   map[string][]mirrorGroup `json:"groups"` // by node type
	MirrorMD bool                     `json:"mirror_md"`
	Clients  []string                 `json:"clients"`
	// Targets the services registered, by node type (beegfs_targets.go).
	Targets map[string][]beegfsTarget `json:"targets,omitempty"`
	// Mgmtd8 is the running BeeGFS 8 management daemon (beegfs8.go).
	Mgmtd8 *mgmtd8State `json:"mgmtd8,omitempty"`
}

type mirrorGroup struct {
	ID        int `json:"id"`
	Primary   int `json:"primary"`
	Secondary int `json:"secondary"`
	// Alias is BeeGFS 8's name of the group (beegfs mirror create).
	Alias string `json:"alias,omitempty"`
}

const mirrorFile = "mirror.json"

// withMirror loads the shared state, runs f and saves what f changed.
func (e *Env) withMirror(f func(st *mirrorState) (bool, error)) error {
	dir, unlock, err := e.Shared("beegfs")
	if err != nil {
		return err
	}
	defer unlock()
	p := filepath.Join(dir, mirrorFile)
	st := mirrorState{Groups: map[string][]mirrorGroup{}}
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(data, &st); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if st.Groups == nil {
			st.Groups = map[string][]mirrorGroup{}
		}
	}
	changed, err := f(&st)
	if err != nil || !changed {
		return err
	}
	out, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// errRefused is a refusal printed as the tool's own message.
type errRefused string

func (e errRefused) Error() string { return string(e) }

// beegfsMirror handles the mirror modes; handled is false for other modes.
func beegfsMirror(e *Env, opts map[string]string) (code int, handled bool) {
	nodeType := opts["nodetype"]
	run := func(f func(st *mirrorState) (bool, error)) int {
		err := e.withMirror(f)
		var r errRefused
		switch {
		case errors.As(err, &r):
			return e.fail(1, "%s", r)
		case err != nil:
			return e.fail(1, "%v", err)
		}
		return 0
	}
	if _, ok := opts["addmirrorgroup"]; ok {
		return run(func(st *mirrorState) (bool, error) {
			if nodeType != "storage" && nodeType != "meta" {
				return false, errRefused(fmt.Sprintf("invalid or missing node type %q: want storage or meta", nodeType))
			}
			if _, auto := opts["automatic"]; auto {
				return false, errRefused("--automatic is not simulated")
			}
			var ids [3]int
			for i, k := range []string{"primary", "secondary", "groupid"} {
				n, err := strconv.Atoi(opts[k])
				if err != nil || n < 1 || n > 65535 {
					return false, errRefused(fmt.Sprintf("invalid or missing --%s (want 1 to 65535): %q", k, opts[k]))
				}
				ids[i] = n
			}
			g := mirrorGroup{Primary: ids[0], Secondary: ids[1], ID: ids[2]}
			if g.Primary == g.Secondary {
				return false, errRefused("primary and secondary must differ")
			}
			for _, o := range st.Groups[nodeType] {
				if o.ID == g.ID {
					return false, errRefused(fmt.Sprintf("buddy group ID %d is already in use", g.ID))
				}
				for _, m := range []int{g.Primary, g.Secondary} {
					if m == o.Primary || m == o.Secondary {
						return false, errRefused(fmt.Sprintf("ID %d is already a member of buddy group %d", m, o.ID))
					}
				}
			}
			st.Groups[nodeType] = append(st.Groups[nodeType], g)
			fmt.Fprintf(e.Stdout, "Mirror buddy group successfully set: groupID %d -> target IDs %d, %d\n", g.ID, g.Primary, g.Secondary)
			return true, nil
		}), true
	}
	if _, ok := opts["listmirrorgroups"]; ok {
		return run(func(st *mirrorState) (bool, error) {
			if nodeType != "storage" && nodeType != "meta" {
				return false, errRefused(fmt.Sprintf("invalid or missing node type %q: want storage or meta", nodeType))
			}
			what := "Target"
			if nodeType == "meta" {
				what = "Node"
			}
			gs := append([]mirrorGroup(nil), st.Groups[nodeType]...)
			sort.Slice(gs, func(i, j int) bool { return gs[i].ID < gs[j].ID })
			fmt.Fprintf(e.Stdout, "     BuddyGroupID   Primary%sID   Secondary%sID\n", what, what)
			fmt.Fprintf(e.Stdout, "     ============   =========%s   ===========%s\n", strings.Repeat("=", len(what)), strings.Repeat("=", len(what)))
			for _, g := range gs {
				fmt.Fprintf(e.Stdout, "%17d %17d %19d\n", g.ID, g.Primary, g.Secondary)
			}
			return false, nil
		}), true
	}
	if _, ok := opts["mirrormd"]; ok {
		return run(func(st *mirrorState) (bool, error) {
			switch {
			case len(st.Groups["meta"]) == 0:
				return false, errRefused("no metadata buddy groups defined: define them with --addmirrorgroup --nodetype=meta first")
			case st.MirrorMD:
				return false, errRefused("metadata mirroring is already enabled")
			case len(st.Clients) > 0:
				return false, errRefused(fmt.Sprintf("clients are still mounted (%s): unmount every client first",
					strings.Join(st.Clients, ", ")))
			}
			st.MirrorMD = true
			fmt.Fprintln(e.Stdout, "Operation succeeded. NOTE: To complete activating metadata mirroring, please restart the metadata servers.")
			return true, nil
		}), true
	}
	if _, ok := opts["listtargets"]; ok {
		return run(func(st *mirrorState) (bool, error) {
			if nodeType == "" {
				nodeType = "storage" // beegfs-ctl's default
			}
			if _, ok := beegfsKinds[nodeType]; !ok {
				return false, errRefused(fmt.Sprintf("invalid node type %q: want storage or meta", nodeType))
			}
			e.scanTargets(st, nodeType)
			listTargets(e, st, nodeType, opts)
			return true, nil
		}), true
	}
	if _, ok := opts["listnodes"]; ok && nodeType == "client" {
		return run(func(st *mirrorState) (bool, error) {
			for i, c := range st.Clients {
				fmt.Fprintf(e.Stdout, "%s [ID: %d]\n", c, i+1)
			}
			return false, nil
		}), true
	}
	return 0, false
}

// registerClient records whether this node's client is mounted.
func (e *Env) registerClient(mounted bool) error {
	name := ""
	if b, err := e.read("/etc/hostname"); err == nil {
		name = strings.TrimSpace(string(b))
	}
	if name == "" {
		name = filepath.Base(e.Root.Dir())
	}
	return e.withMirror(func(st *mirrorState) (bool, error) {
		var out []string
		for _, c := range st.Clients {
			if c != name {
				out = append(out, c)
			}
		}
		if mounted {
			out = append(out, name)
			sort.Strings(out)
		}
		changed := len(out) != len(st.Clients)
		st.Clients = out
		return changed, nil
	})
}
