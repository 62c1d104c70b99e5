package day2

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
)

// GPFSLockPrefix names a GPFS domain's lock: the user node class
// GPFSLockPrefix+<domain>, whose one member is the holder.
//
// The lock is a node class because mmcrnodeclass is a compare-and-set in
// the cluster's own configuration (the CCR): GPFS serialises every
// configuration change and refuses a class that exists ("Node class ...
// already exists"), any member node reads it back (mmlsnodeclass), and it
// survives the holder's reboot, so a stopped run is resumed by the next.
// The cluster resource only checks the classes it declares, so the lock
// is not drift.
const GPFSLockPrefix = "hpcstorage-day2-"

// gpfsDomain is a Spectrum Scale cluster: the member's daemon stops
// (mmshutdown -N) while quorum and every NSD it serves stay reachable
// through the others, and starts again after the work.
type gpfsDomain struct {
	r Runner
	m Member
}

func (d *gpfsDomain) admin() string {
	if d.m.Admin != "" {
		return d.m.Admin
	}
	return d.m.Host
}

func (d *gpfsDomain) class() string { return GPFSLockPrefix + d.m.Domain }

// gpfsQuery runs one read-only mm command; "not in a cluster" is
// ErrNoCluster.
func (d *gpfsDomain) gpfsQuery(ctx context.Context, host string, argv ...string) (string, error) {
	out, err := query(ctx, d.r, host, protocol.Item{Command: &protocol.Command{Name: "day2-" + argv[0], Argv: argv, ReadOnly: true}})
	if err != nil {
		if strings.Contains(err.Error(), "6027-1382") {
			return "", fmt.Errorf("%w: %v", ErrNoCluster, err)
		}
		return "", err
	}
	return out[0], nil
}

func (d *gpfsDomain) holder(ctx context.Context) (string, error) {
	out, err := d.gpfsQuery(ctx, d.admin(), "mmlsnodeclass", "-Y")
	if err != nil {
		return "", err
	}
	classes, err := gpfs.ParseNodeClasses(out)
	if err != nil {
		return "", fmt.Errorf("mmlsnodeclass -Y: %w", err)
	}
	members, ok := classes[d.class()]
	if !ok {
		return "", nil
	}
	if len(members) == 0 {
		return "", fmt.Errorf("lock class %s has no member: delete it (mmdelnodeclass %s) if no run holds the domain", d.class(), d.class())
	}
	return gpfs.ShortName(members[0]), nil
}

// gpfsNode is one row of mmgetstate -a -Y.
type gpfsNode struct {
	state  string
	quorum bool
}

func (d *gpfsDomain) states(ctx context.Context, host string) (map[string]gpfsNode, error) {
	out, err := d.gpfsQuery(ctx, host, "mmgetstate", "-a", "-Y")
	if err != nil {
		return nil, err
	}
	p, err := gpfs.ParseY(out)
	if err != nil {
		return nil, fmt.Errorf("mmgetstate -a -Y: %w", err)
	}
	nodes := map[string]gpfsNode{}
	for _, r := range p.Table("mmgetstate", "").Rows {
		nodes[gpfs.ShortName(r["nodeName"])] = gpfsNode{state: r["state"], quorum: strings.Contains(r["remarks"], "quorum node")}
	}
	if len(nodes) == 0 {
		return nil, errors.New("mmgetstate -a -Y listed no node")
	}
	return nodes, nil
}

func (d *gpfsDomain) lock(ctx context.Context) (string, error) {
	h, err := d.holder(ctx)
	if err != nil || h != "" {
		return h, err
	}
	nodes, err := d.states(ctx, d.admin())
	if err != nil {
		return "", err
	}
	if _, ok := nodes[d.m.Node]; !ok {
		return "", fmt.Errorf("node %q is not a member of the GPFS cluster (members: %s)", d.m.Node, strings.Join(slices.Sorted(maps.Keys(nodes)), ", "))
	}
	take := protocol.Item{Command: &protocol.Command{Name: "day2-lock",
		Argv:   []string{"mmcrnodeclass", d.class(), "-N", d.m.Node},
		Unless: []string{"mmlsnodeclass", d.class(), "-Y"}}}
	res, err := d.r.Run(ctx, d.admin(), []protocol.Item{take}, false)
	if err != nil {
		return "", err
	}
	// Another run may have created it between the read and the create:
	// GPFS refused the second, the class names the holder.
	h, err = d.holder(ctx)
	if err == nil && h == "" {
		err = fmt.Errorf("taking the lock: %s", itemErrors(res))
	}
	return h, err
}

func (d *gpfsDomain) pending(ctx context.Context) (bool, error) {
	h, err := d.holder(ctx)
	return h == d.m.Node, err
}

// canLeave keeps node quorum (a majority of the quorum nodes active, or
// one with tiebreaker disks) and a server for every NSD the member
// serves.
func (d *gpfsDomain) canLeave(ctx context.Context) error {
	nodes, err := d.states(ctx, d.admin())
	if err != nil {
		return err
	}
	nsds, err := d.served(ctx)
	if err != nil {
		return err
	}
	var alone []string
	for _, n := range slices.Sorted(maps.Keys(nsds)) {
		if !slices.ContainsFunc(nsds[n].Servers, func(s string) bool { return s != d.m.Node && nodes[s].state == "active" }) {
			alone = append(alone, n)
		}
	}
	if len(alone) > 0 {
		return fmt.Errorf("%w: NSD %s would have no active server without %s", ErrNoQuorum, strings.Join(alone, ", "), d.m.Node)
	}
	if nodes[d.m.Node].quorum {
		total, others := 0, 0
		for n, s := range nodes {
			if s.quorum {
				total++
				if n != d.m.Node && s.state == "active" {
					others++
				}
			}
		}
		tb, err := d.tiebreaker(ctx)
		if err != nil {
			return err
		}
		need := total/2 + 1
		if tb != "" {
			need = 1 // node quorum with tiebreaker disks: one quorum node and the disks' majority
		}
		if others < need {
			why := fmt.Sprintf("%d of %d quorum nodes would stay active, quorum needs %d", others, total, need)
			if total == 2 && tb == "" {
				// No wait helps: the cluster as built cannot lose a node.
				return fmt.Errorf("%w: taking %s out loses the cluster's quorum: %s (a two-node cluster needs tiebreaker disks, mmchconfig tiebreakerDisks, to lose one)",
					ErrRefused, d.m.Node, why)
			}
			return fmt.Errorf("%w: taking %s out loses the cluster's quorum: %s", ErrNoQuorum, d.m.Node, why)
		}
	}
	return nil
}

// ErrNoQuorum is wrapped by a refusal: the domain cannot lose the member.
// Waiting may end it (another member coming back), so the check waits.
var ErrNoQuorum = errors.New("the domain cannot lose this member")

func (d *gpfsDomain) tiebreaker(ctx context.Context) (string, error) {
	out, err := d.gpfsQuery(ctx, d.admin(), "mmlsconfig", "-Y")
	if err != nil {
		return "", err
	}
	c, err := gpfs.ParseConfig(out)
	if err != nil {
		return "", fmt.Errorf("mmlsconfig -Y: %w", err)
	}
	v, _ := c.Value("tiebreakerDisks", gpfs.AllNodes)
	if v == "no" {
		v = ""
	}
	return v, nil
}

// served are the NSDs of file systems the member serves.
func (d *gpfsDomain) served(ctx context.Context) (map[string]gpfs.NSDInfo, error) {
	out, err := d.gpfsQuery(ctx, d.admin(), "mmlsnsd", "-Y")
	if err != nil {
		return nil, err
	}
	all, err := gpfs.ParseNSDs(out)
	if err != nil {
		return nil, fmt.Errorf("mmlsnsd -Y: %w", err)
	}
	mine := map[string]gpfs.NSDInfo{}
	for n, i := range all {
		if i.FileSystem != "" && slices.Contains(i.Servers, d.m.Node) {
			mine[n] = i
		}
	}
	return mine, nil
}

// stateIs is the guard of mmshutdown/mmstartup: the node's state reads
// state already.
func (d *gpfsDomain) stateIs(state string) ([]string, []string) {
	return []string{"mmgetstate", "-N", d.m.Node, "-Y"},
		[]string{`(?m)^mmgetstate::0:1:::` + regexp.QuoteMeta(d.m.Node) + `(?:\.[^:\n]*)?:[0-9]+:` + state + `:`}
}

func (d *gpfsDomain) enter(ctx context.Context) error {
	q, m := d.stateIs("down")
	_, err := change(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "mmshutdown-" + d.m.Node,
		Argv: []string{"mmshutdown", "-N", d.m.Node}, Unless: q, UnlessMatch: m}})
	return err
}

func (d *gpfsDomain) nodeState(ctx context.Context, host string) (string, error) {
	nodes, err := d.states(ctx, host)
	if err != nil {
		return "", err
	}
	return nodes[d.m.Node].state, nil
}

func (d *gpfsDomain) drained(ctx context.Context) error {
	s, err := d.nodeState(ctx, d.admin())
	if err == nil && s != "down" {
		err = fmt.Errorf("GPFS on %s is %s, not down", d.m.Node, s)
	}
	return err
}

// rejoined asks the member itself: it answers once it has booted.
func (d *gpfsDomain) rejoined(ctx context.Context) error {
	_, err := d.nodeState(ctx, d.m.Host)
	return err
}

func (d *gpfsDomain) leave(ctx context.Context) error {
	q, m := d.stateIs("active")
	_, err := change(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "mmstartup-" + d.m.Node,
		Argv: []string{"mmstartup", "-N", d.m.Node}, Unless: q, UnlessMatch: m}})
	return err
}

// settled waits for the daemon active and, on an NSD server, every disk
// of the file systems it serves up and ready.
func (d *gpfsDomain) settled(ctx context.Context) error {
	s, err := d.nodeState(ctx, d.admin())
	if err != nil {
		return err
	}
	if s != "active" {
		return fmt.Errorf("GPFS on %s is %s, not active", d.m.Node, s)
	}
	nsds, err := d.served(ctx)
	if err != nil {
		return err
	}
	var fss []string
	for _, i := range nsds {
		if !slices.Contains(fss, i.FileSystem) {
			fss = append(fss, i.FileSystem)
		}
	}
	slices.Sort(fss)
	var bad []string
	for _, fs := range fss {
		out, err := d.gpfsQuery(ctx, d.admin(), "mmlsdisk", fs, "-Y")
		if err != nil {
			return err
		}
		disks, err := gpfs.ParseDisks(out)
		if err != nil {
			return fmt.Errorf("mmlsdisk %s -Y: %w", fs, err)
		}
		for _, k := range disks {
			if k.Status != "ready" || k.Availability != "up" {
				bad = append(bad, fmt.Sprintf("%s/%s %s/%s", fs, k.Name, k.Status, k.Availability))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("disks not ready/up: %s", strings.Join(bad, ", "))
	}
	return nil
}

func (d *gpfsDomain) release(ctx context.Context) error {
	_, err := change(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "day2-unlock",
		Argv:   []string{"mmdelnodeclass", d.class()},
		Unless: []string{"sh", "-c", `! mmlsnodeclass "$1" -Y >/dev/null 2>&1`, "day2-unlock", d.class()}}})
	return err
}
