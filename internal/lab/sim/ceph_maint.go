package sim

// What a maintenance window needs of the Ceph simulator (Pacific's
// OSDMonitor, PGMap and ConfigKeyService):
//
//	ceph osd set-group|unset-group FLAGS WHO... ; ceph osd add-noout|rm-noout ID...
//	ceph pg stat ; ceph osd crush rule dump
//	ceph config-key set|get|rm|exists|dump
//
// An OSD is up while its host's root is powered on (the lab's power off
// removes the reload stamp that boot writes): a host that reboots takes
// its OSDs down with it and brings them up when it boots. PGs follow the
// hosts whose OSDs are up (CRUSH failure domain host, rule 0): at least
// size of them is active+clean; fewer is undersized and degraded, active
// down to min_size. OSDs that stay down are never marked out here (the
// monitor would after mon_osd_down_out_interval, 600 s, without noout):
// the lab's reboots are shorter.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// osdNodeFlags are the flags set-group and add-* take.
var osdNodeFlags = []string{"noup", "nodown", "noin", "noout"}

// hostUp says whether host is powered on; a host the lab has no root for
// counts as up.
func (c *cephCluster) hostUp(host string) bool {
	if up, ok := c.upCache[host]; ok {
		return up
	}
	up := true
	if r := c.nodeRoot(host); r != nil {
		_, err := r.Stat(ReloadStamp)
		up = err == nil
		r.Close()
	}
	if c.upCache == nil {
		c.upCache = map[string]bool{}
	}
	c.upCache[host] = up
	return up
}

func (c *cephCluster) osdUp(o cephOSD) bool { return c.hostUp(o.Host) }

// upOSDHosts are the hosts holding at least one OSD that is up.
func (c *cephCluster) upOSDHosts() []string {
	var out []string
	for _, h := range c.osdHosts() {
		if c.hostUp(h) {
			out = append(out, h)
		}
	}
	return out
}

func (c *cephCluster) numUpOSDs() int {
	n := 0
	for _, o := range c.st.OSDs {
		if c.osdUp(o) {
			n++
		}
	}
	return n
}

// maintCmd runs the commands of this file; ok is false for others.
func (c *cephCluster) maintCmd(a cephArgs, w []string) (code int, ok bool) {
	switch {
	case len(w) >= 2 && w[0] == "osd" && (w[1] == "set-group" || w[1] == "unset-group"):
		return c.setGroup(w[1] == "set-group", w[2:]), true
	case len(w) >= 2 && w[0] == "osd" && (w[1] == "add-noout" || w[1] == "rm-noout"):
		return c.addNoout(w[1] == "add-noout", w[2:]), true
	case len(w) == 2 && w[0] == "pg" && w[1] == "stat":
		return c.pgStat(a), true
	case len(w) == 4 && w[0] == "osd" && w[1] == "crush" && w[2] == "rule" && w[3] == "dump":
		c.e.printJSON([]any{replicatedRule()}, a.pretty())
		return 0, true
	case w[0] == "config-key":
		return c.configKey(a, w[1:]), true
	}
	return 0, false
}

// replicatedRule is the rule every pool of the lab uses (crush_rule 0).
func replicatedRule() map[string]any {
	return map[string]any{"rule_id": 0, "rule_name": "replicated_rule", "ruleset": 0, "type": 1, "min_size": 1, "max_size": 10,
		"steps": []map[string]any{{"op": "take", "item": -1, "item_name": "default"}, {"op": "chooseleaf_firstn", "num": 0, "type": "host"}, {"op": "emit"}}}
}

func parseNodeFlags(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if !slices.Contains(osdNodeFlags, f) {
			return nil, fmt.Errorf("unrecognized flag '%s'", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// setGroup sets or clears flags on CRUSH nodes (hosts, the root) and
// OSDs: ceph osd set-group noout osd1 [osd.3 ...].
func (c *cephCluster) setGroup(set bool, w []string) int {
	if len(w) < 2 {
		return c.e.cephErr(cephErrnoEINVAL, "must specify flag(s) and at least one of osds, crush nodes or device classes")
	}
	flags, err := parseNodeFlags(w[0])
	if err != nil {
		return c.e.cephErr(cephErrnoEINVAL, "%v", err)
	}
	for _, who := range w[1:] {
		if _, err := c.osdByName(who); err == nil {
			if code := c.flagOSD(set, who, flags); code != 0 {
				return code
			}
			continue
		}
		if who != "default" && !slices.Contains(c.osdHosts(), who) {
			return c.e.cephErr(cephErrnoEINVAL, "unable to parse osd id or crush node or device class: \"%s\". ", who)
		}
		if c.st.NodeFlags == nil {
			c.st.NodeFlags = map[string][]string{}
		}
		c.st.NodeFlags[who] = toggle(c.st.NodeFlags[who], flags, set)
		if len(c.st.NodeFlags[who]) == 0 {
			delete(c.st.NodeFlags, who)
		}
	}
	c.st.OSDEpoch++
	return c.persist()
}

// addNoout marks OSDs (ids or osd.N) noout, or clears it.
func (c *cephCluster) addNoout(set bool, ids []string) int {
	if len(ids) == 0 {
		return c.e.cephErr(cephErrnoEINVAL, "must specify at least one osd id")
	}
	for _, id := range ids {
		if code := c.flagOSD(set, id, []string{"noout"}); code != 0 {
			return code
		}
	}
	c.st.OSDEpoch++
	return c.persist()
}

func (c *cephCluster) flagOSD(set bool, id string, flags []string) int {
	o, err := c.osdByName(id)
	if err != nil {
		return c.e.cephErr(cephErrnoEINVAL, "%v", err)
	}
	key := "osd." + strconv.Itoa(o.ID)
	if c.st.OSDFlags == nil {
		c.st.OSDFlags = map[string][]string{}
	}
	c.st.OSDFlags[key] = toggle(c.st.OSDFlags[key], flags, set)
	if len(c.st.OSDFlags[key]) == 0 {
		delete(c.st.OSDFlags, key)
	}
	return 0
}

func (c *cephCluster) osdByName(s string) (cephOSD, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "osd."))
	if err != nil {
		return cephOSD{}, fmt.Errorf("invalid osd id '%s'", s)
	}
	for _, o := range c.st.OSDs {
		if o.ID == n {
			return o, nil
		}
	}
	return cephOSD{}, fmt.Errorf("osd.%d does not exist", n)
}

func toggle(have, flags []string, set bool) []string {
	for _, f := range flags {
		if set && !slices.Contains(have, f) {
			have = append(have, f)
		} else if !set {
			have = slices.DeleteFunc(have, func(x string) bool { return x == f })
		}
	}
	slices.Sort(have)
	return have
}

// pgStat prints ceph pg stat: one line, or the pg_summary JSON.
func (c *cephCluster) pgStat(a cephArgs) int {
	st := c.pgStates()
	var total int64
	for _, o := range c.st.OSDs {
		total += o.Bytes
	}
	n := 0
	byState := []map[string]any{}
	var words []string
	for _, k := range sortedKeys(st) {
		byState = append(byState, map[string]any{"name": k, "num": st[k]})
		words = append(words, fmt.Sprintf("%d %s", st[k], k))
		n += st[k]
	}
	if a.json() {
		c.e.printJSON(map[string]any{"pg_ready": true, "pg_summary": map[string]any{"num_pg_by_state": byState, "num_pgs": n,
			"num_bytes": 0, "raw_bytes_used": 0, "raw_bytes_avail": total, "raw_bytes": total}}, a.pretty())
		return 0
	}
	fmt.Fprintf(c.e.Stdout, "%d pgs: %s; 0 B data, 0 B used, %d B / %d B avail\n", n, strings.Join(words, ", "), total, total)
	return 0
}

// configKey is the monitors' key/value store. Every command is one Paxos
// proposal: each is atomic, none is a compare-and-set.
func (c *cephCluster) configKey(a cephArgs, w []string) int {
	e := c.e
	if c.st.ConfigKeys == nil {
		c.st.ConfigKeys = map[string]string{}
	}
	switch {
	case len(w) >= 2 && w[0] == "set":
		val := ""
		if len(w) > 2 {
			val = strings.Join(w[2:], " ")
		}
		c.st.ConfigKeys[w[1]] = val
		fmt.Fprintf(e.Stderr, "set %s\n", w[1])
		return c.persist()
	case len(w) == 2 && w[0] == "get":
		v, ok := c.st.ConfigKeys[w[1]]
		if !ok {
			return e.cephErr(cephErrnoENOENT, "error obtaining '%s': (2) No such file or directory", w[1])
		}
		fmt.Fprint(e.Stdout, v)
		return 0
	case len(w) == 2 && (w[0] == "rm" || w[0] == "del"):
		delete(c.st.ConfigKeys, w[1])
		fmt.Fprintln(e.Stderr, "key deleted")
		return c.persist()
	case len(w) == 2 && w[0] == "exists":
		if _, ok := c.st.ConfigKeys[w[1]]; !ok {
			return e.cephErr(cephErrnoENOENT, "key '%s' doesn't exist", w[1])
		}
		fmt.Fprintf(e.Stderr, "key '%s' exists\n", w[1])
		return 0
	case (len(w) == 1 || len(w) == 2) && w[0] == "dump":
		out := map[string]string{}
		for k, v := range c.st.ConfigKeys {
			if len(w) == 1 || strings.HasPrefix(k, w[1]) {
				out[k] = v
			}
		}
		e.printJSON(out, true)
		return 0
	case len(w) == 1 && (w[0] == "ls" || w[0] == "list"):
		keys := sortedKeys(c.st.ConfigKeys)
		if keys == nil {
			keys = []string{}
		}
		e.printJSON(keys, true)
		return 0
	}
	return e.cephErr(cephErrnoEINVAL, "invalid command: config-key %s", strings.Join(w, " "))
}

// osdFlagsCheck is OSD_FLAGS: the OSDs and CRUSH nodes with flags.
func (c *cephCluster) osdFlagsCheck() (string, []string) {
	var detail []string
	for _, n := range sortedKeys(c.st.NodeFlags) {
		typ := "host"
		if n == "default" {
			typ = "root"
		}
		detail = append(detail, fmt.Sprintf("%s %s has flags %s", typ, n, strings.Join(c.st.NodeFlags[n], ",")))
	}
	for _, n := range sortedKeys(c.st.OSDFlags) {
		detail = append(detail, fmt.Sprintf("%s has flags %s", n, strings.Join(c.st.OSDFlags[n], ",")))
	}
	if len(detail) == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d OSDs or CRUSH {nodes, device-classes} have {NOUP,NODOWN,NOIN,NOOUT} flags set", len(detail)), detail
}

// downChecks are OSD_DOWN and OSD_HOST_DOWN.
func (c *cephCluster) downChecks(warn func(code, msg string, count int, detail ...string)) {
	var osds, hosts []string
	for _, h := range c.osdHosts() {
		if c.hostUp(h) {
			continue
		}
		n := 0
		for _, o := range c.st.OSDs {
			if o.Host == h {
				n++
				osds = append(osds, fmt.Sprintf("osd.%d (root=default,host=%s) is down", o.ID, h))
			}
		}
		hosts = append(hosts, fmt.Sprintf("host %s (root=default) (%d osds) is down", h, n))
	}
	if len(osds) > 0 {
		warn("OSD_DOWN", fmt.Sprintf("%d osds down", len(osds)), len(osds), osds...)
	}
	if len(hosts) > 0 {
		warn("OSD_HOST_DOWN", fmt.Sprintf("%d host (%d osds) down", len(hosts), len(osds)), len(hosts), hosts...)
	}
}
