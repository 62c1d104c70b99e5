package lab

// The probe's view of the lab's GPFS, Ceph and BeeGFS clusters: it asks
// them as an administrator would, through the lab's simulators of
// mmgetstate/mmlsnsd, ceph osd tree/pg stat and beegfs-ctl --listtargets
// (run in process on a member's root, as that node), and reduces each to
// members out of service and resources served.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/gpfs"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/sim"
)

// domainCluster reads one kind of cluster of a lab: ok is false when the
// lab has none.
type domainCluster struct {
	name string
	read func(shared string) (members, served map[string]bool, ok bool, err error)
}

var domainClusters = []domainCluster{{"gpfs", readGPFS}, {"ceph", readCeph}, {"beegfs", readBeeGFS}}

// simOn runs a simulated command as the first registered node that
// answers it (want picks the nodes to ask).
func simOn(shared string, want func(root string) bool, argv ...string) (string, error) {
	ents, err := os.ReadDir(filepath.Join(shared, sim.NodesDir))
	if err != nil {
		return "", err
	}
	var last string
	for _, ent := range ents {
		// The real root, not the registry's link: a simulator registers
		// the root it runs in.
		dir, err := filepath.EvalSymlinks(filepath.Join(shared, sim.NodesDir, ent.Name()))
		if err != nil || want != nil && !want(dir) {
			continue
		}
		root, err := fsroot.Open(dir)
		if err != nil {
			continue
		}
		var out, errb strings.Builder
		code := sim.Run(&sim.Env{Root: root, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, argv)
		root.Close()
		if code == 0 {
			return out.String(), nil
		}
		last = errb.String()
	}
	return "", fmt.Errorf("%s: no node answered: %s", strings.Join(argv, " "), strings.TrimSpace(last))
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// readGPFS: members are nodes whose daemon is not active; "quorum" is
// served while the cluster has it, each file system while it has quorum
// and every NSD of it an active server.
func readGPFS(shared string) (map[string]bool, map[string]bool, bool, error) {
	if !exists(filepath.Join(shared, "gpfs", sim.GPFSStateFile)) {
		return nil, nil, false, nil
	}
	out, err := simOn(shared, nil, "mmgetstate", "-a", "-Y")
	if err != nil {
		return nil, nil, true, err
	}
	states, err := gpfs.ParseStates(out)
	if err != nil {
		return nil, nil, true, err
	}
	members := map[string]bool{}
	quorum := false
	for n, s := range states {
		members[n] = s != "active"
		quorum = quorum || s == "active"
	}
	served := map[string]bool{"quorum": quorum}
	if out, err = simOn(shared, nil, "mmlsnsd", "-Y"); err != nil {
		return nil, nil, true, err
	}
	nsds, err := gpfs.ParseNSDs(out)
	if err != nil {
		return nil, nil, true, err
	}
	for _, d := range nsds {
		if d.FileSystem == "" {
			continue
		}
		ok := quorum && slices.ContainsFunc(d.Servers, func(s string) bool { return states[s] == "active" })
		if v, seen := served[d.FileSystem]; !seen || v {
			served[d.FileSystem] = ok
		}
	}
	return members, served, true, nil
}

// readCeph: members are the OSD hosts with an OSD down or noout set;
// "pgs" is served while every PG is active (I/O is possible on each).
func readCeph(shared string) (map[string]bool, map[string]bool, bool, error) {
	if !exists(filepath.Join(shared, "ceph", "cluster.json")) {
		return nil, nil, false, nil
	}
	admin := func(root string) bool { return exists(filepath.Join(root, "etc/ceph/ceph.client.admin.keyring")) }
	out, err := simOn(shared, admin, "ceph", "osd", "tree", "-f", "json")
	if err != nil {
		return nil, nil, true, err
	}
	var tree struct {
		Nodes []struct {
			ID       int    `json:"id"`
			Name     string `json:"name"`
			Type     string `json:"type"`
			Status   string `json:"status"`
			Children []int  `json:"children"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &tree); err != nil {
		return nil, nil, true, err
	}
	status := map[int]string{}
	for _, n := range tree.Nodes {
		status[n.ID] = n.Status
	}
	// A host is out of service while its OSDs are down or an
	// administrator's noout flag marks it in maintenance (as standby does
	// a pacemaker node): the lab's reboots take its OSDs down only briefly.
	if out, err = simOn(shared, admin, "ceph", "health", "detail", "-f", "json"); err != nil {
		return nil, nil, true, err
	}
	var health struct {
		Checks map[string]struct {
			Detail []struct {
				Message string `json:"message"`
			} `json:"detail"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &health); err != nil {
		return nil, nil, true, err
	}
	noout := map[string]bool{}
	for _, d := range health.Checks["OSD_FLAGS"].Detail {
		f := strings.Fields(d.Message) // "host osd1 has flags noout"
		if len(f) == 5 && f[0] == "host" && f[2] == "has" && slices.Contains(strings.Split(f[4], ","), "noout") {
			noout[f[1]] = true
		}
	}
	members := map[string]bool{}
	for _, n := range tree.Nodes {
		if n.Type == "host" {
			members[n.Name] = noout[n.Name] || slices.ContainsFunc(n.Children, func(k int) bool { return status[k] != "up" })
		}
	}
	if out, err = simOn(shared, admin, "ceph", "pg", "stat", "-f", "json"); err != nil {
		return nil, nil, true, err
	}
	type pgState struct {
		Name string `json:"name"`
	}
	var pg struct {
		Summary struct {
			ByState []pgState `json:"num_pg_by_state"`
		} `json:"pg_summary"`
	}
	if err := json.Unmarshal([]byte(out), &pg); err != nil {
		return nil, nil, true, err
	}
	active := !slices.ContainsFunc(pg.Summary.ByState, func(s pgState) bool {
		return !slices.Contains(strings.Split(s.Name, "+"), "active")
	})
	return members, map[string]bool{"pgs": active}, true, nil
}

// readBeeGFS: members are the nodes holding buddy group targets, out
// while one of theirs is offline; each group is served while one side is
// online and Good.
func readBeeGFS(shared string) (map[string]bool, map[string]bool, bool, error) {
	groups, err := sim.BeegfsGroups(shared)
	if err != nil || len(groups) == 0 {
		return nil, nil, err != nil, err
	}
	members, served := map[string]bool{}, map[string]bool{}
	for _, g := range groups {
		for _, n := range g.Nodes {
			members[n] = members[n] || slices.Contains(g.Down, n)
		}
		served[fmt.Sprintf("%s buddy group %d", g.NodeType, g.ID)] = g.Serving
	}
	return members, served, true, nil
}
