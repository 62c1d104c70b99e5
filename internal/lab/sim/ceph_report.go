package sim

// The reports of the ceph CLI in Ceph Pacific's JSON shapes (field names as
// Ceph prints them): orch ls [--export] (ServiceSpec.to_json plus status,
// mgr/orchestrator ServiceDescription), orch device ls (InventoryHost:
// name, addr, devices, labels), orch ps (DaemonDescription.to_json), osd
// tree (CrushWrapper dump: root "default", host buckets -3, -5, ..., OSDs
// with crush_weight in TiB), mon dump (MonMap::dump: addrvec v2:3300 and
// v1:6789, ranks by address), status and health detail (HealthMonitor:
// checks keyed by code, severity, summary.message, detail[].message).
//
// Health follows the monitor's checks the lab can cause: TOO_FEW_OSDS
// (OSD count below osd_pool_default_size 3), POOL_APP_NOT_ENABLED,
// POOL_NO_REDUNDANCY (size 1), and the placement groups a pool cannot
// place: with CRUSH's host failure domain a pool whose size exceeds the
// OSD hosts has undersized PGs (PG_DEGRADED "Degraded data redundancy: N
// pgs undersized"), and below min_size hosts they are inactive too
// (PG_AVAILABILITY "Reduced data availability: N pgs inactive").

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

func specJSON(s cephSpec) map[string]any {
	out := map[string]any{"service_type": s.Type, "service_name": s.name()}
	if s.ID != "" {
		out["service_id"] = s.ID
	}
	p := map[string]any{}
	if s.Placement.Label != "" {
		p["label"] = s.Placement.Label
	}
	if len(s.Placement.Hosts) > 0 {
		p["hosts"] = s.Placement.Hosts
	}
	if s.Placement.Count > 0 {
		p["count"] = s.Placement.Count
	}
	if s.Placement.HostPattern != "" {
		p["host_pattern"] = s.Placement.HostPattern
	}
	if len(p) > 0 {
		out["placement"] = p
	}
	if s.Unmanaged {
		out["unmanaged"] = true
	}
	if len(s.Spec) > 0 {
		out["spec"] = s.Spec
	}
	return out
}

func (c *cephCluster) orchLs(a cephArgs) int {
	e := c.e
	out := []map[string]any{}
	for _, s := range c.st.Specs {
		j := specJSON(s)
		if a.flags["--export"] == "" {
			running := 0
			for _, d := range c.st.Daemons {
				if d.Service == s.name() {
					running++
				}
			}
			size := running
			if s.Placement.Count > 0 {
				size = s.Placement.Count
			}
			j["status"] = map[string]any{"created": cephTime(s.Created), "last_refresh": cephTime(c.now()), "running": running, "size": size}
		}
		out = append(out, j)
	}
	if a.json() {
		e.printJSON(out, a.pretty())
		return 0
	}
	if a.flags["--export"] != "" {
		for _, j := range out {
			data, _ := yamlMarshal(j)
			fmt.Fprintf(e.Stdout, "---\n%s", data)
		}
		return 0
	}
	fmt.Fprintf(e.Stdout, "%-12s %-8s\n", "NAME", "RUNNING")
	for _, j := range out {
		st := j["status"].(map[string]any)
		fmt.Fprintf(e.Stdout, "%-12s %d/%d\n", j["service_name"], st["running"], st["size"])
	}
	return 0
}

type inventoryHost struct {
	Addr    string       `json:"addr"`
	Devices []cephDevice `json:"devices"`
	Labels  []string     `json:"labels"`
	Name    string       `json:"name"`
}

func (c *cephCluster) deviceLs(a cephArgs, w []string) int {
	e := c.e
	out := []inventoryHost{}
	for _, h := range c.st.Hosts {
		if len(w) > 0 && !slices.Contains(w, h.Hostname) {
			continue
		}
		ih := inventoryHost{Addr: h.Addr, Name: h.Hostname, Labels: h.Labels, Devices: []cephDevice{}}
		if ih.Labels == nil {
			ih.Labels = []string{}
		}
		if r := c.nodeRoot(h.Hostname); r != nil {
			ih.Devices = c.inventory(h.Hostname, r)
			r.Close()
		}
		out = append(out, ih)
	}
	if a.json() {
		e.printJSON(out, a.pretty())
		return 0
	}
	fmt.Fprintf(e.Stdout, "%-8s %-14s %-4s %-22s %-10s %-9s %s\n", "HOST", "PATH", "TYPE", "DEVICE ID", "SIZE", "AVAILABLE", "REFUSED REASONS")
	for _, h := range out {
		for _, d := range h.Devices {
			avail := "No"
			if d.Available {
				avail = "Yes"
			}
			fmt.Fprintf(e.Stdout, "%-8s %-14s %-4s %-22s %-10s %-9s %s\n", h.Name, d.Path, d.HumanReadableType, d.DeviceID,
				d.SysAPI.HumanReadableSize, avail, strings.Join(d.RejectedReasons, ", "))
		}
	}
	return 0
}

func (c *cephCluster) orchPs(a cephArgs) int {
	e := c.e
	out := []map[string]any{}
	for _, d := range c.st.Daemons {
		out = append(out, map[string]any{
			"daemon_type": d.Type, "daemon_id": d.ID, "daemon_name": d.Type + "." + d.ID, "hostname": d.Host,
			"service_name": d.Service, "status": 1, "status_desc": "running", "is_active": false, "version": cephVersion,
			"container_image_name": cephImage, "created": cephTime(d.Created), "started": cephTime(d.Created),
			"last_refresh": cephTime(c.now()), "systemd_unit": "ceph-" + c.st.FSID + "@" + d.Type + "." + d.ID,
		})
	}
	if a.json() {
		e.printJSON(out, a.pretty())
		return 0
	}
	fmt.Fprintf(e.Stdout, "%-24s %-8s %s\n", "NAME", "HOST", "STATUS")
	for _, d := range out {
		fmt.Fprintf(e.Stdout, "%-24s %-8s running\n", d["daemon_name"], d["hostname"])
	}
	return 0
}

// osdHosts are the hosts holding OSDs, in host order.
func (c *cephCluster) osdHosts() []string {
	var out []string
	for _, h := range c.st.Hosts {
		for _, o := range c.st.OSDs {
			if o.Host == h.Hostname {
				out = append(out, h.Hostname)
				break
			}
		}
	}
	// OSDs of hosts removed with --force still count in CRUSH.
	for _, o := range c.st.OSDs {
		if !slices.Contains(out, o.Host) {
			out = append(out, o.Host)
		}
	}
	return out
}

func tib(b int64) float64 { return math.Round(float64(b)/(1<<40)*1e4) / 1e4 }

func (c *cephCluster) osdTree(a cephArgs) int {
	e := c.e
	hosts := c.osdHosts()
	root := map[string]any{"id": -1, "name": "default", "type": "root", "type_id": 11, "children": []int{}}
	nodes := []map[string]any{root}
	var rootChildren []int
	var osdNodes []map[string]any
	for i, h := range hosts {
		id := -3 - 2*i
		rootChildren = append([]int{id}, rootChildren...)
		var kids []int
		status := "up"
		if !c.hostUp(h) {
			status = "down"
		}
		for _, o := range c.st.OSDs {
			if o.Host != h {
				continue
			}
			kids = append([]int{o.ID}, kids...)
			osdNodes = append(osdNodes, map[string]any{"id": o.ID, "device_class": o.Class, "name": "osd." + strconv.Itoa(o.ID),
				"type": "osd", "type_id": 0, "crush_weight": tib(o.Bytes), "depth": 2, "pool_weights": map[string]any{},
				"exists": 1, "status": status, "reweight": 1, "primary_affinity": 1})
		}
		slices.SortFunc(kids, func(x, y int) int { return y - x })
		nodes = append(nodes, map[string]any{"id": id, "name": h, "type": "host", "type_id": 1, "pool_weights": map[string]any{}, "children": kids})
	}
	if rootChildren == nil {
		rootChildren = []int{}
	}
	root["children"] = rootChildren
	nodes = append(nodes, osdNodes...)
	out := map[string]any{"nodes": nodes, "stray": []any{}}
	if a.json() {
		e.printJSON(out, a.pretty())
		return 0
	}
	fmt.Fprintf(e.Stdout, "ID  CLASS  WEIGHT  TYPE NAME\n-1         root default\n")
	for _, h := range hosts {
		fmt.Fprintf(e.Stdout, "           host %s\n", h)
		for _, o := range c.st.OSDs {
			if o.Host == h {
				status := "up"
				if !c.osdUp(o) {
					status = "down"
				}
				fmt.Fprintf(e.Stdout, "%3d  %s  %.5f  osd.%d  %s  1.00000  1.00000\n", o.ID, o.Class, tib(o.Bytes), o.ID, status)
			}
		}
	}
	return 0
}

func (c *cephCluster) osdLs(a cephArgs) int {
	ids := []int{}
	for _, o := range c.st.OSDs {
		ids = append(ids, o.ID)
	}
	slices.Sort(ids)
	if a.words[1] == "stat" {
		up := c.numUpOSDs()
		out := map[string]any{"epoch": c.st.OSDEpoch, "num_osds": len(ids), "num_up_osds": up, "num_in_osds": len(ids), "num_remapped_pgs": 0}
		if a.json() {
			c.e.printJSON(out, a.pretty())
		} else {
			fmt.Fprintf(c.e.Stdout, "%d osds: %d up, %d in; epoch: e%d\n", len(ids), up, len(ids), c.st.OSDEpoch)
		}
		return 0
	}
	if a.json() {
		c.e.printJSON(ids, a.pretty())
		return 0
	}
	for _, id := range ids {
		fmt.Fprintln(c.e.Stdout, id)
	}
	return 0
}

// mons are the monitors ranked as the monmap ranks them (by address).
func (c *cephCluster) mons() []cephDaemon {
	var out []cephDaemon
	for _, d := range c.st.Daemons {
		if d.Type == "mon" {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(x, y cephDaemon) int { return strings.Compare(c.host(x.Host).Addr, c.host(y.Host).Addr) })
	return out
}

func (c *cephCluster) monDump(a cephArgs) int {
	e := c.e
	mons := []map[string]any{}
	quorum := []int{}
	for i, d := range c.mons() {
		ip := c.host(d.Host).Addr
		mons = append(mons, map[string]any{"rank": i, "name": d.ID,
			"public_addrs": map[string]any{"addrvec": []map[string]any{{"type": "v2", "addr": ip + ":3300", "nonce": 0}, {"type": "v1", "addr": ip + ":6789", "nonce": 0}}},
			"addr":         ip + ":6789/0", "public_addr": ip + ":6789/0", "priority": 0, "weight": 0, "crush_location": "{}"})
		quorum = append(quorum, i)
	}
	out := map[string]any{"epoch": c.st.MonEpoch, "fsid": c.st.FSID, "modified": cephTime(c.now()), "created": cephTime(c.st.Created),
		"min_mon_release": 16, "min_mon_release_name": "pacific", "election_strategy": 1, "disallowed_leaders: ": "",
		"stretch_mode": false, "tiebreaker_mon": "",
		"features": map[string]any{"persistent": []string{"kraken", "luminous", "mimic", "osdmap-prune", "nautilus", "octopus", "pacific", "elector-pinging"}, "optional": []string{}},
		"mons":     mons, "quorum": quorum}
	fmt.Fprintf(e.Stderr, "dumped monmap epoch %d\n", c.st.MonEpoch)
	if a.json() {
		e.printJSON(out, a.pretty())
		return 0
	}
	fmt.Fprintf(e.Stdout, "epoch %d\nfsid %s\nmin_mon_release 16 (pacific)\n", c.st.MonEpoch, c.st.FSID)
	for _, m := range mons {
		fmt.Fprintf(e.Stdout, "%d: [v2:%s,v1:%s] mon.%s\n", m["rank"], strings.TrimSuffix(m["addr"].(string), ":6789/0")+":3300/0", m["addr"], m["name"])
	}
	return 0
}

type healthCheck struct {
	Severity string            `json:"severity"`
	Summary  healthSummary     `json:"summary"`
	Detail   []healthDetailMsg `json:"detail,omitempty"`
	Muted    bool              `json:"muted"`
}

type healthSummary struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

type healthDetailMsg struct {
	Message string `json:"message"`
}

// pgStates counts the placement groups by state: one replica per host
// whose OSDs are up; replicas on a host that went down are degraded.
func (c *cephCluster) pgStates() map[string]int {
	out := map[string]int{}
	hosts := len(c.osdHosts())
	up := len(c.upOSDHosts())
	for _, p := range c.st.Pools {
		degraded := ""
		if up < min(hosts, p.Size) {
			degraded = "+degraded"
		}
		switch {
		case len(c.st.OSDs) == 0:
			out["unknown"] += p.PGNum
		case up >= p.Size:
			out["active+clean"] += p.PGNum
		case up >= p.MinSize:
			out["active+undersized"+degraded] += p.PGNum
		default:
			out["undersized"+degraded+"+peered"] += p.PGNum
		}
	}
	return out
}

func (c *cephCluster) healthChecks() (string, map[string]healthCheck) {
	checks := map[string]healthCheck{}
	warn := func(code, msg string, count int, detail ...string) {
		h := healthCheck{Severity: "HEALTH_WARN", Summary: healthSummary{Message: msg, Count: count}}
		for _, d := range detail {
			h.Detail = append(h.Detail, healthDetailMsg{Message: d})
		}
		checks[code] = h
	}
	if n := len(c.st.OSDs); n < poolDefaultSize {
		warn("TOO_FEW_OSDS", fmt.Sprintf("OSD count %d < osd_pool_default_size %d", n, poolDefaultSize), 1)
	}
	var noApp, noRed []string
	for _, p := range c.st.Pools {
		if len(p.Application) == 0 {
			noApp = append(noApp, fmt.Sprintf("application not enabled on pool '%s'", p.Name))
		}
		if p.Size == 1 {
			noRed = append(noRed, fmt.Sprintf("pool '%s' has no replicas configured", p.Name))
		}
	}
	if len(noApp) > 0 {
		noApp = append(noApp, "use 'ceph osd pool application enable <pool-name> <app-name>', where <app-name> is 'cephfs', 'rbd', 'rgw', or freeform for custom applications.")
		warn("POOL_APP_NOT_ENABLED", fmt.Sprintf("%d pool(s) do not have an application enabled", len(noApp)-1), len(noApp)-1, noApp...)
	}
	if len(noRed) > 0 {
		warn("POOL_NO_REDUNDANCY", fmt.Sprintf("%d pool(s) have no replicas configured", len(noRed)), len(noRed), noRed...)
	}
	c.downChecks(warn)
	if msg, detail := c.osdFlagsCheck(); msg != "" {
		warn("OSD_FLAGS", msg, len(detail), detail...)
	}
	st := c.pgStates()
	hosts := len(c.upOSDHosts())
	var undersized, inactive int
	var underDetail, inactDetail []string
	for _, p := range c.st.Pools {
		if len(c.st.OSDs) == 0 {
			inactive += p.PGNum
			inactDetail = append(inactDetail, fmt.Sprintf("pool '%s': %d pgs inactive (no OSDs)", p.Name, p.PGNum))
			continue
		}
		if hosts < p.Size {
			undersized += p.PGNum
			underDetail = append(underDetail, fmt.Sprintf("pool '%s' (size %d): %d pgs undersized, %d hosts with OSDs for failure domain host", p.Name, p.Size, p.PGNum, hosts))
		}
		if hosts < p.MinSize {
			inactive += p.PGNum
			inactDetail = append(inactDetail, fmt.Sprintf("pool '%s' (min_size %d): %d pgs inactive", p.Name, p.MinSize, p.PGNum))
		}
	}
	_ = st
	if inactive > 0 {
		warn("PG_AVAILABILITY", fmt.Sprintf("Reduced data availability: %d pgs inactive", inactive), inactive, inactDetail...)
	}
	if undersized > 0 {
		warn("PG_DEGRADED", fmt.Sprintf("Degraded data redundancy: %d pgs undersized", undersized), undersized, underDetail...)
	}
	status := "HEALTH_OK"
	if len(checks) > 0 {
		status = "HEALTH_WARN"
	}
	return status, checks
}

func (c *cephCluster) health(a cephArgs, detail bool) int {
	e := c.e
	status, checks := c.healthChecks()
	if !detail {
		for k, h := range checks {
			h.Detail = nil
			checks[k] = h
		}
	}
	if a.json() {
		e.printJSON(map[string]any{"status": status, "checks": checks, "mutes": []any{}}, a.pretty())
		return 0
	}
	if len(checks) == 0 {
		fmt.Fprintln(e.Stdout, status)
		return 0
	}
	var sums []string
	for _, k := range sortedKeys(checks) {
		sums = append(sums, checks[k].Summary.Message)
	}
	fmt.Fprintf(e.Stdout, "%s %s\n", status, strings.Join(sums, "; "))
	if detail {
		for _, k := range sortedKeys(checks) {
			fmt.Fprintf(e.Stdout, "[WRN] %s: %s\n", k, checks[k].Summary.Message)
			for _, d := range checks[k].Detail {
				fmt.Fprintf(e.Stdout, "    %s\n", d.Message)
			}
		}
	}
	return 0
}

func (c *cephCluster) status(a cephArgs) int {
	e := c.e
	status, checks := c.healthChecks()
	for k, h := range checks {
		h.Detail = nil
		checks[k] = h
	}
	mons := c.mons()
	var names []string
	quorum := []int{}
	for i, m := range mons {
		names = append(names, m.ID)
		quorum = append(quorum, i)
	}
	var byState []map[string]any
	pgs := 0
	st := c.pgStates()
	for _, k := range sortedKeys(st) {
		byState = append(byState, map[string]any{"state_name": k, "count": st[k]})
		pgs += st[k]
	}
	if byState == nil {
		byState = []map[string]any{}
	}
	var total int64
	for _, o := range c.st.OSDs {
		total += o.Bytes
	}
	var used int64
	for _, imgs := range c.st.Images {
		used += int64(len(imgs)) * 4096 * 4
	}
	mgrs := 0
	for _, d := range c.st.Daemons {
		if d.Type == "mgr" {
			mgrs++
		}
	}
	n := len(c.st.OSDs)
	out := map[string]any{
		"fsid":           c.st.FSID,
		"health":         map[string]any{"status": status, "checks": checks, "mutes": []any{}},
		"election_epoch": 2 * len(mons), "quorum": quorum, "quorum_names": names, "quorum_age": int(c.now().Sub(c.st.Created).Seconds()),
		"monmap": map[string]any{"epoch": c.st.MonEpoch, "min_mon_release_name": "pacific", "num_mons": len(mons)},
		"osdmap": map[string]any{"epoch": c.st.OSDEpoch, "num_osds": n, "num_up_osds": c.numUpOSDs(), "osd_up_since": c.st.Created.Unix(), "num_in_osds": n, "osd_in_since": c.st.Created.Unix(), "num_remapped_pgs": 0},
		"pgmap": map[string]any{"pgs_by_state": byState, "num_pgs": pgs, "num_pools": len(c.st.Pools), "num_objects": 0,
			"data_bytes": 0, "bytes_used": used, "bytes_avail": total - used, "bytes_total": total},
		"fsmap":           map[string]any{"epoch": 1, "by_rank": []any{}, "up:standby": 0},
		"mgrmap":          map[string]any{"available": mgrs > 0, "num_standbys": max(mgrs-1, 0), "modules": []string{"cephadm", "iostat", "nfs", "restful"}, "services": map[string]any{}},
		"servicemap":      map[string]any{"epoch": 1, "modified": cephTime(c.st.Created), "services": map[string]any{}},
		"progress_events": map[string]any{},
	}
	if a.json() {
		e.printJSON(out, a.pretty())
		return 0
	}
	fmt.Fprintf(e.Stdout, "  cluster:\n    id:     %s\n    health: %s\n\n  services:\n    mon: %d daemons, quorum %s\n    mgr: %d\n    osd: %d osds: %d up, %d in\n\n  data:\n    pools:   %d pools, %d pgs\n",
		c.st.FSID, status, len(mons), strings.Join(names, ","), mgrs, n, c.numUpOSDs(), n, len(c.st.Pools), pgs)
	return 0
}

func yamlMarshal(v any) ([]byte, error) { return yaml.Marshal(v) }
