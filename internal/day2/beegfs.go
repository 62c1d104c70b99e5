package day2

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/beegfs"
)

// BeeGFSLockDir holds a BeeGFS domain's lock on its admin host (the
// management host, which every member must name): BeeGFS keeps no
// key-value store, so the lock is mkdir(2) there, atomic on one host. Each
// maintenance takes the next numbered folder BeeGFSLockDir/<domain>/<n>
// (one mkdir wins, the other gets EEXIST), writes its holder in it and,
// done, creates <n>/released: nothing is ever deleted, so a lock is
// taken and given back with mkdir alone. A run that dies between the
// mkdir and the holder leaves <n> without one: the domain reads as being
// taken until an administrator creates <n>/released. The holder is
// written by the shell: a reader that finds it empty reads "taking".
const BeeGFSLockDir = "/var/lib/hpcstorage/day2"

// beegfsLockState prints "free N" (N: the next folder), "held N NODE" or
// "taking N".
const beegfsLockState = `b=$1; n=0
while [ -d "$b/$((n+1))" ]; do n=$((n+1)); done
if [ "$n" -eq 0 ] || [ -d "$b/$n/released" ]; then echo "free $((n+1))"; exit 0; fi
h=
if [ -s "$b/$n/holder" ]; then read -r h < "$b/$n/holder" || :; fi
if [ -n "$h" ]; then echo "held $n $h"; else echo "taking $n"; fi`

// beegfsDomain is a BeeGFS file system whose buddy groups keep it served
// while one member node is away: every group of the node's targets must
// be Good on both sides before it goes and again (resynced) after.
type beegfsDomain struct {
	r Runner
	m Member
}

func (d *beegfsDomain) dir() string { return BeeGFSLockDir + "/" + d.m.Domain }

// lockState reads the lock on the admin host.
func (d *beegfsDomain) lockState(ctx context.Context) (state string, n int, holder string, err error) {
	if d.m.Admin == "" {
		return "", 0, "", errors.New("a beegfs domain needs its admin host (the management host, the same for every member): its lock lives there")
	}
	out, err := query(ctx, d.r, d.m.Admin, protocol.Item{Command: &protocol.Command{Name: "day2-lock-state",
		Argv: []string{"sh", "-c", beegfsLockState, "day2-lock", d.dir()}, ReadOnly: true}})
	if err != nil {
		return "", 0, "", err
	}
	f := strings.Fields(out[0])
	if len(f) < 2 {
		return "", 0, "", fmt.Errorf("lock %s: unreadable state %q", d.dir(), out[0])
	}
	if n, err = strconv.Atoi(f[1]); err != nil {
		return "", 0, "", fmt.Errorf("lock %s: unreadable state %q", d.dir(), out[0])
	}
	if len(f) > 2 {
		holder = f[2]
	}
	return f[0], n, holder, nil
}

func (d *beegfsDomain) lock(ctx context.Context) (string, error) {
	state, n, holder, err := d.lockState(ctx)
	switch {
	case err != nil:
		return "", err
	case state == "held":
		return holder, nil
	case state == "taking":
		return "", fmt.Errorf("%w: %s/%d is being taken (no holder yet)", ErrBusy, d.dir(), n)
	}
	at := fmt.Sprintf("%s/%d", d.dir(), n)
	res, err := d.r.Run(ctx, d.m.Admin, []protocol.Item{
		{Command: &protocol.Command{Name: "day2-lock-dir", Argv: []string{"mkdir", "-p", d.dir()}, Creates: d.dir()}},
		{Command: &protocol.Command{Name: "day2-lock", Argv: []string{"mkdir", at}, Creates: at}},
	}, false)
	if err != nil {
		return "", err
	}
	if len(res.Items) < 2 || !res.Items[1].Changed || res.Items[1].Error != "" {
		// Another run made the folder first: it holds the domain.
		if _, _, h, err := d.lockState(ctx); err != nil || h != "" {
			return h, err
		}
		return "", fmt.Errorf("%w: %s was taken by another run", ErrBusy, at)
	}
	// A command, not a file item: the agent would prune a file its owner
	// stops declaring, and the holder must outlive this request.
	if _, err := change(ctx, d.r, d.m.Admin, protocol.Item{Command: &protocol.Command{Name: "day2-lock-holder",
		Argv: []string{"sh", "-c", `echo "$2" > "$1"`, "day2-lock", at + "/holder", d.m.Node}, Creates: at + "/holder"}}); err != nil {
		return "", err
	}
	return d.m.Node, nil
}

func (d *beegfsDomain) pending(ctx context.Context) (bool, error) {
	state, _, holder, err := d.lockState(ctx)
	return state == "held" && holder == d.m.Node, err
}

// beegfsTarget is a row of beegfs-ctl --listtargets --state --longnodes.
type beegfsTarget struct {
	id                       int
	reach, consistency, node string
}

var reTargetLine = regexp.MustCompile(`^\s*(\d+)\s+(\S+)\s+(\S+)\s+(.*\S)\s*$`)
var reLongNode = regexp.MustCompile(`^\S+\s+(\S+)\s+\[ID:\s*\d+\]$`)

// targets reads the targets of a node type, by ID.
func (d *beegfsDomain) targets(ctx context.Context, nodeType string) (map[int]beegfsTarget, error) {
	out, err := query(ctx, d.r, d.m.Admin, protocol.Item{Command: &protocol.Command{Name: "day2-targets-" + nodeType,
		Argv: []string{"beegfs-ctl", "--listtargets", "--nodetype=" + nodeType, "--state", "--longnodes"}, ReadOnly: true}})
	if err != nil {
		return nil, err
	}
	ts := map[int]beegfsTarget{}
	for _, l := range strings.Split(out[0], "\n") {
		m := reTargetLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		node := m[4]
		if n := reLongNode.FindStringSubmatch(node); n != nil {
			node = n[1]
		}
		ts[id] = beegfsTarget{id: id, reach: m[2], consistency: m[3], node: node}
	}
	return ts, nil
}

func (d *beegfsDomain) groups(ctx context.Context, nodeType string) ([]beegfs.ListedGroup, error) {
	out, err := query(ctx, d.r, d.m.Admin, protocol.Item{Command: &protocol.Command{Name: "day2-groups-" + nodeType,
		Argv: []string{"beegfs-ctl", "--listmirrorgroups", "--nodetype=" + nodeType}, ReadOnly: true}})
	if err != nil {
		return nil, err
	}
	return beegfs.ParseMirrorGroups(out[0])
}

// whole checks the buddy groups of the member's targets: each Online and
// Good on both sides; orphan reports the member's targets in no group
// (their files go with the node) and groups with both sides on it.
func (d *beegfsDomain) whole(ctx context.Context, orphan bool) error {
	var bad []string
	mine := 0
	for _, nt := range []string{"meta", "storage"} {
		ts, err := d.targets(ctx, nt)
		if err != nil {
			return err
		}
		gs, err := d.groups(ctx, nt)
		if err != nil {
			return err
		}
		grouped := map[int]bool{}
		for _, g := range gs {
			grouped[g.Primary], grouped[g.Secondary] = true, true
			p, s := ts[g.Primary], ts[g.Secondary]
			if p.node != d.m.Node && s.node != d.m.Node {
				continue
			}
			mine++
			if orphan && p.node == s.node {
				bad = append(bad, fmt.Sprintf("%s buddy group %d has both targets on %s", nt, g.ID, d.m.Node))
				continue
			}
			for _, t := range []beegfsTarget{p, s} {
				if t.reach != "Online" || t.consistency != "Good" {
					bad = append(bad, fmt.Sprintf("%s buddy group %d: target %d on %s is %s/%s", nt, g.ID, t.id, t.node, t.reach, t.consistency))
				}
			}
		}
		for _, id := range slices.Sorted(maps.Keys(ts)) {
			if t := ts[id]; t.node == d.m.Node && !grouped[t.id] {
				mine++
				if orphan {
					bad = append(bad, fmt.Sprintf("%s target %d is in no buddy group: its files would be unreachable", nt, t.id))
				}
			}
		}
	}
	if orphan && mine == 0 {
		return fmt.Errorf("BeeGFS lists no target of node %q", d.m.Node)
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// canLeave: every group of the node's targets Good on both sides, none
// without a buddy elsewhere.
func (d *beegfsDomain) canLeave(ctx context.Context) error { return d.whole(ctx, true) }

// enter takes nothing out by hand: the node's services stop with its
// shutdown and the buddies serve; BeeGFS marks what they take for resync.
func (d *beegfsDomain) enter(context.Context) error { return nil }

func (d *beegfsDomain) drained(context.Context) error { return nil }

// rejoined waits for the node's targets Online again.
func (d *beegfsDomain) rejoined(ctx context.Context) error {
	var away []string
	for _, nt := range []string{"meta", "storage"} {
		ts, err := d.targets(ctx, nt)
		if err != nil {
			return err
		}
		for _, id := range slices.Sorted(maps.Keys(ts)) {
			if t := ts[id]; t.node == d.m.Node && t.reach != "Online" {
				away = append(away, fmt.Sprintf("%s target %d %s", nt, t.id, t.reach))
			}
		}
	}
	if len(away) > 0 {
		return errors.New(strings.Join(away, ", "))
	}
	return nil
}

// leave: the management service starts the resync by itself.
func (d *beegfsDomain) leave(context.Context) error { return nil }

// settled waits until the resync is done: every group Good on both sides.
func (d *beegfsDomain) settled(ctx context.Context) error { return d.whole(ctx, false) }

func (d *beegfsDomain) release(ctx context.Context) error {
	state, n, holder, err := d.lockState(ctx)
	if err != nil || state != "held" || holder != d.m.Node {
		return err
	}
	at := fmt.Sprintf("%s/%d/released", d.dir(), n)
	_, err = change(ctx, d.r, d.m.Admin, protocol.Item{Command: &protocol.Command{Name: "day2-unlock", Argv: []string{"mkdir", at}, Creates: at}})
	return err
}
