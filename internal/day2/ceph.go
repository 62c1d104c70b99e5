package day2

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// CephLockPrefix is where a Ceph domain's lock lives in the monitors'
// config-key store: one key per member, CephLockPrefix<domain>/<node>.
//
// config-key has no compare-and-set, but every set, rm and dump is one
// Paxos proposal, so the monitors order them. A run writes its claim,
// then reads every claim: when it reads its own alone, it holds the lock
// and marks the claim held; when it reads others, it withdraws (unless it
// has the smallest name, so that one of them wins) and tries again. Two
// runs cannot both read themselves alone: the later reading sees the
// earlier claim, which is only deleted by a withdrawal (before holding)
// or the release. A held claim survives the holder's failure, so the next
// run of that member resumes; a claim left by a run killed while it
// claimed blocks the others until that member runs again, or until an
// administrator removes it (ceph config-key rm).
const CephLockPrefix = "hpcstorage/day2/"

const (
	cephClaim = "claim"
	cephHeld  = "held"
)

// cephDomain is a Ceph cluster whose CRUSH failure domain (the host) is
// the member: its OSDs stay in (noout on the host) while it reboots, the
// others keep every pool served, and the PGs are active+clean again
// before the next.
type cephDomain struct {
	r Runner
	m Member
}

func (d *cephDomain) admin() string {
	if d.m.Admin != "" {
		return d.m.Admin
	}
	return d.m.Host
}

func (d *cephDomain) key(node string) string { return CephLockPrefix + d.m.Domain + "/" + node }

// cephQuery runs one read-only ceph command on the admin host.
func (d *cephDomain) cephQuery(ctx context.Context, args ...string) (string, error) {
	argv := append([]string{"ceph"}, args...)
	out, err := query(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "day2-ceph-" + args[0], Argv: argv, ReadOnly: true}})
	if err != nil {
		if strings.Contains(err.Error(), "error connecting to the cluster") {
			return "", fmt.Errorf("%w: %v", ErrNoCluster, err)
		}
		return "", err
	}
	return out[0], nil
}

func (d *cephDomain) cephJSON(ctx context.Context, v any, args ...string) error {
	out, err := d.cephQuery(ctx, append(args, "-f", "json")...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		return fmt.Errorf("ceph %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// claims are the domain's lock keys by member.
func (d *cephDomain) claims(ctx context.Context) (map[string]string, error) {
	var dump map[string]string
	if err := d.cephJSON(ctx, &dump, "config-key", "dump", CephLockPrefix+d.m.Domain+"/"); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range dump {
		if n, ok := strings.CutPrefix(k, CephLockPrefix+d.m.Domain+"/"); ok && !strings.Contains(n, "/") {
			out[n] = v
		}
	}
	return out, nil
}

func heldBy(claims map[string]string) string {
	for _, n := range slices.Sorted(maps.Keys(claims)) {
		if claims[n] == cephHeld {
			return n
		}
	}
	return ""
}

func (d *cephDomain) setClaim(ctx context.Context, val string) error {
	_, err := change(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "day2-lock-" + val,
		Argv:        []string{"ceph", "config-key", "set", d.key(d.m.Node), val},
		Unless:      []string{"ceph", "config-key", "get", d.key(d.m.Node)},
		UnlessMatch: []string{"^" + val + `\s*$`}}})
	return err
}

func (d *cephDomain) lock(ctx context.Context) (string, error) {
	c, err := d.claims(ctx)
	if err != nil {
		return "", err
	}
	if h := heldBy(c); h != "" {
		if _, mine := c[d.m.Node]; mine && h != d.m.Node {
			return h, d.release(ctx)
		}
		return h, nil
	}
	if err := d.setClaim(ctx, cephClaim); err != nil {
		return "", err
	}
	if c, err = d.claims(ctx); err != nil {
		return "", err
	}
	others := slices.DeleteFunc(slices.Sorted(maps.Keys(c)), func(n string) bool { return n == d.m.Node })
	if len(others) > 0 {
		if h := heldBy(c); h != "" {
			return h, d.release(ctx)
		}
		if others[0] < d.m.Node {
			if err := d.release(ctx); err != nil {
				return "", err
			}
		}
		return "", fmt.Errorf("%w: %s claim the domain too (%s)", ErrBusy, strings.Join(others, ", "), CephLockPrefix+d.m.Domain+"/")
	}
	return d.m.Node, d.setClaim(ctx, cephHeld)
}

func (d *cephDomain) pending(ctx context.Context) (bool, error) {
	c, err := d.claims(ctx)
	return c[d.m.Node] == cephHeld, err
}

// cephTree is ceph osd tree -f json.
type cephTree struct {
	Nodes []struct {
		ID       int    `json:"id"`
		Name     string `json:"name"`
		Type     string `json:"type"`
		Status   string `json:"status"`
		Children []int  `json:"children"`
	} `json:"nodes"`
}

// cephOSD is an OSD: whether up, and its ancestor of each CRUSH type
// ("host", "rack", ...; "osd" is the OSD itself).
type cephOSD struct {
	up    bool
	above map[string]string
}

func (d *cephDomain) osds(ctx context.Context) (map[int]cephOSD, error) {
	var t cephTree
	if err := d.cephJSON(ctx, &t, "osd", "tree"); err != nil {
		return nil, err
	}
	parent := map[int]int{}
	byID := map[int]int{}
	for i, n := range t.Nodes {
		byID[n.ID] = i
		for _, k := range n.Children {
			parent[k] = n.ID
		}
	}
	out := map[int]cephOSD{}
	for _, n := range t.Nodes {
		if n.Type != "osd" {
			continue
		}
		above := map[string]string{"osd": n.Name}
		for id, ok := parent[n.ID]; ok; id, ok = parent[id] {
			p := t.Nodes[byID[id]]
			above[p.Type] = p.Name
		}
		out[n.ID] = cephOSD{n.Status == "up", above}
	}
	return out, nil
}

// cephPool is a pool of ceph osd pool ls detail, with its rule's
// failure domain.
type cephPool struct {
	Name    string `json:"pool_name"`
	Size    int    `json:"size"`
	MinSize int    `json:"min_size"`
	Rule    int    `json:"crush_rule"`
	domain  string
}

func (d *cephDomain) pools(ctx context.Context) ([]cephPool, error) {
	var pools []cephPool
	if err := d.cephJSON(ctx, &pools, "osd", "pool", "ls", "detail"); err != nil {
		return nil, err
	}
	var rules []struct {
		ID    int `json:"rule_id"`
		Steps []struct {
			Op   string `json:"op"`
			Type string `json:"type"`
		} `json:"steps"`
	}
	if err := d.cephJSON(ctx, &rules, "osd", "crush", "rule", "dump"); err != nil {
		return nil, err
	}
	domains := map[int]string{}
	for _, r := range rules {
		for _, s := range r.Steps {
			if strings.HasPrefix(s.Op, "choose") && s.Type != "" {
				domains[r.ID] = s.Type // the last choose step places the replicas
			}
		}
	}
	for i := range pools {
		pools[i].domain = domains[pools[i].Rule]
		if pools[i].domain == "" {
			return nil, fmt.Errorf("pool %s: crush rule %d has no failure domain", pools[i].Name, pools[i].Rule)
		}
	}
	return pools, nil
}

// pgStates are ceph pg stat's counts by state.
func (d *cephDomain) pgStates(ctx context.Context) (map[string]int, int, error) {
	var s struct {
		Summary struct {
			ByState []struct {
				Name string `json:"name"`
				Num  int    `json:"num"`
			} `json:"num_pg_by_state"`
			NumPGs int `json:"num_pgs"`
		} `json:"pg_summary"`
	}
	if err := d.cephJSON(ctx, &s, "pg", "stat"); err != nil {
		return nil, 0, err
	}
	out := map[string]int{}
	for _, b := range s.Summary.ByState {
		out[b.Name] += b.Num
	}
	return out, s.Summary.NumPGs, nil
}

// clean is nil when every PG is active+clean.
func (d *cephDomain) clean(ctx context.Context) error {
	st, n, err := d.pgStates(ctx)
	if err != nil {
		return err
	}
	if st["active+clean"] == n {
		return nil
	}
	var b []string
	for _, k := range slices.Sorted(maps.Keys(st)) {
		if k != "active+clean" {
			b = append(b, fmt.Sprintf("%d %s", st[k], k))
		}
	}
	return fmt.Errorf("not every PG is active+clean: %s", strings.Join(b, ", "))
}

// canLeave needs the cluster whole (every PG active+clean) and every
// pool still served without the member: at least min_size of its CRUSH
// failure domains with an up OSD elsewhere. Fewer than size is what noout
// maintenance is (PGs undersized and degraded for the reboot, served).
func (d *cephDomain) canLeave(ctx context.Context) error {
	osds, err := d.osds(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(osds)), func(o cephOSD) bool { return o.above["host"] == d.m.Node }) {
		return fmt.Errorf("host %q holds no OSD in the CRUSH map", d.m.Node)
	}
	pools, err := d.pools(ctx)
	if err != nil {
		return err
	}
	var short, never []string
	for _, p := range pools {
		left, built := map[string]bool{}, map[string]bool{}
		for _, o := range osds {
			if o.above["host"] != d.m.Node && o.above[p.domain] != "" {
				built[o.above[p.domain]] = true
				if o.up {
					left[o.above[p.domain]] = true
				}
			}
		}
		if len(built) < p.MinSize {
			never = append(never, fmt.Sprintf("pool %s (min_size %d) has only %d other %s(s)", p.Name, p.MinSize, len(built), p.domain))
		}
		if len(left) < p.MinSize {
			short = append(short, fmt.Sprintf("pool %s (size %d, min_size %d) keeps %d %s(s) with OSDs up", p.Name, p.Size, p.MinSize, len(left), p.domain))
		}
	}
	if len(never) > 0 {
		// No wait helps: even with every other host up the pool stops.
		return fmt.Errorf("%w: without %s, %s: its I/O would stop", ErrRefused, d.m.Node, strings.Join(never, "; "))
	}
	if len(short) > 0 {
		return fmt.Errorf("%w: without %s, %s: its I/O would stop", ErrNoQuorum, d.m.Node, strings.Join(short, "; "))
	}
	return d.clean(ctx)
}

// flagRe matches the host's noout in ceph health detail.
func (d *cephDomain) flagRe() string {
	return `(?m)^\s*host ` + regexp.QuoteMeta(d.m.Node) + ` has flags [a-z,]*noout`
}

func (d *cephDomain) enter(ctx context.Context) error {
	_, err := change(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "noout-" + d.m.Node,
		Argv:   []string{"ceph", "osd", "set-group", "noout", d.m.Node},
		Unless: []string{"ceph", "health", "detail"}, UnlessMatch: []string{d.flagRe()}}})
	return err
}

// drained: the flag is in the OSD map; nothing moves off the host.
func (d *cephDomain) drained(ctx context.Context) error {
	out, err := d.cephQuery(ctx, "health", "detail")
	if err != nil {
		return err
	}
	if !regexp.MustCompile(d.flagRe()).MatchString(out) {
		return fmt.Errorf("host %s has no noout flag", d.m.Node)
	}
	return nil
}

// rejoined waits for the host's OSDs up and every PG active+clean again
// (the writes it missed recovered), before noout is cleared.
func (d *cephDomain) rejoined(ctx context.Context) error {
	osds, err := d.osds(ctx)
	if err != nil {
		return err
	}
	var down []string
	for id, o := range osds {
		if o.above["host"] == d.m.Node && !o.up {
			down = append(down, fmt.Sprintf("osd.%d", id))
		}
	}
	if len(down) > 0 {
		slices.Sort(down)
		return fmt.Errorf("%d OSD(s) of %s down (%s)", len(down), d.m.Node, strings.Join(down, ", "))
	}
	return d.clean(ctx)
}

func (d *cephDomain) leave(ctx context.Context) error {
	// The guard holds while the flag is gone: a POSIX case on the detail.
	absent := `case "$(ceph health detail)" in *"host $1 has flags "*noout*) exit 1;; esac`
	_, err := change(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "rm-noout-" + d.m.Node,
		Argv:   []string{"ceph", "osd", "unset-group", "noout", d.m.Node},
		Unless: []string{"sh", "-c", absent, "rm-noout", d.m.Node}}})
	return err
}

func (d *cephDomain) settled(ctx context.Context) error {
	out, err := d.cephQuery(ctx, "health", "detail")
	if err != nil {
		return err
	}
	if regexp.MustCompile(d.flagRe()).MatchString(out) {
		return fmt.Errorf("host %s still has its noout flag", d.m.Node)
	}
	return d.clean(ctx)
}

func (d *cephDomain) release(ctx context.Context) error {
	_, err := change(ctx, d.r, d.admin(), protocol.Item{Command: &protocol.Command{Name: "day2-unlock",
		Argv:   []string{"ceph", "config-key", "rm", d.key(d.m.Node)},
		Unless: []string{"sh", "-c", `! ceph config-key exists "$1" >/dev/null 2>&1`, "day2-unlock", d.key(d.m.Node)}}})
	return err
}
