package lab

// The availability probe: while a day-2 change runs, it samples every
// pacemaker cluster of a lab (the real crm_mon on a copy of the cluster's
// CIB, taken under the simulators' own lock), the lab's GPFS, Ceph and
// BeeGFS clusters (probe_domains.go) and reports, per resource, the
// longest time it ran nowhere, and how many members were out of service
// (offline or in standby; GPFS down; Ceph OSD hosts down or noout;
// BeeGFS nodes with a target offline) at once.

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/availability"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// ProbeReport is what a probe saw of one cluster.
type ProbeReport struct {
	Cluster string `json:"cluster"`
	Samples int    `json:"samples"`
	// Unserved is each top-level resource's longest stretch with no node,
	// from the first sample that found it stopped to the next that found
	// it running (or the end).
	Unserved map[string]time.Duration `json:"unserved_ns"`
	// MaxOut is the most members out of service in one sample, and
	// OutTogether the samples with two or more out.
	MaxOut      int `json:"max_out"`
	OutTogether int `json:"out_together"`
	// Order lists members in the order they first went out of service.
	Order  []string `json:"order"`
	Errors int      `json:"errors"`
}

// Probe samples a lab's pacemaker clusters until Stop.
type Probe struct {
	dir      string
	interval time.Duration
	stop     chan struct{}
	done     chan struct{}

	mu      sync.Mutex
	reports map[string]*probeState
}

// probeState is one cluster's samples, measured as the product's own
// drill measures (availability.Availability).
type probeState struct {
	a      availability.Availability
	errors int
}

// StartProbe samples the pacemaker clusters of the lab in dir every
// interval.
func StartProbe(dir string, interval time.Duration) (*Probe, error) {
	if _, err := exec.LookPath("crm_mon"); err != nil {
		if _, err2 := os.Stat("/usr/sbin/crm_mon"); err2 != nil && len((&Probe{dir: dir}).clusters()) > 0 {
			return nil, fmt.Errorf("the probe reads pacemaker clusters with the real crm_mon: %w (apt-get install pacemaker-cli-utils)", err)
		}
	}
	p := &Probe{dir: dir, interval: interval, stop: make(chan struct{}), done: make(chan struct{}), reports: map[string]*probeState{}}
	go p.loop()
	return p, nil
}

func (p *Probe) loop() {
	defer close(p.done)
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		p.sample(time.Now())
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

// clusters are the shared folders of the lab's pacemaker clusters.
func (p *Probe) clusters() []string {
	m, _ := filepath.Glob(filepath.Join(p.dir, SharedDir, "pacemaker-*", "cib.xml"))
	sort.Strings(m)
	return m
}

func (p *Probe) sample(now time.Time) {
	for _, cib := range p.clusters() {
		name := strings.TrimPrefix(filepath.Base(filepath.Dir(cib)), "pacemaker-")
		mon, err := monitor(cib)
		p.mu.Lock()
		st := p.state(name)
		if err == nil {
			err = st.add(now, mon)
		}
		if err != nil {
			st.errors++
		}
		p.mu.Unlock()
	}
	for _, c := range domainClusters {
		members, served, ok, err := c.read(filepath.Join(p.dir, SharedDir))
		if !ok && err == nil {
			continue // the lab has no such cluster (yet)
		}
		p.mu.Lock()
		st := p.state(c.name)
		if err != nil {
			st.errors++
		} else {
			st.observe(now, members, served)
		}
		p.mu.Unlock()
	}
}

// state is the report being built for cluster name (p.mu held).
func (p *Probe) state(name string) *probeState {
	st := p.reports[name]
	if st == nil {
		st = &probeState{}
		p.reports[name] = st
	}
	return st
}

func (st *probeState) add(now time.Time, mon []byte) error {
	nodes, top, err := pacemaker.Members(mon)
	if err != nil {
		return err
	}
	out := map[string]bool{}
	for n, s := range nodes {
		out[n] = !s.Online || s.Standby
	}
	served := map[string]bool{}
	for id, at := range top {
		served[id] = at != ""
	}
	st.observe(now, out, served)
	return nil
}

// observe records one sample: which members are out of service and
// which resources are served.
func (st *probeState) observe(now time.Time, members, served map[string]bool) {
	placement, in := map[string]string{}, map[string]bool{}
	for id, ok := range served {
		if ok {
			placement[id] = "served"
		} else {
			placement[id] = ""
		}
	}
	for n, out := range members {
		in[n] = !out
	}
	st.a.Add(now, placement, in)
}

// ClusterCIB is the CIB of the lab cluster named cluster, read under the
// simulators' lock.
func ClusterCIB(dir, cluster string) ([]byte, error) {
	return readCIB(filepath.Join(dir, SharedDir, "pacemaker-"+cluster, "cib.xml"))
}

func readCIB(cib string) ([]byte, error) {
	lock, err := os.OpenFile(filepath.Join(filepath.Dir(cib), ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	return os.ReadFile(cib)
}

// monitor copies the CIB under the simulators' lock and runs the real
// crm_mon on the copy.
func monitor(cib string) ([]byte, error) {
	data, err := readCIB(cib)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "hpcstorage-probe-*.xml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	return crmMonXML(f.Name())
}

func crmMonXML(file string) ([]byte, error) {
	cmd := exec.Command("crm_mon", "-1", "-X")
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "CIB_file=" + file}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("crm_mon: %v: %s", err, errb.String())
	}
	return out.Bytes(), nil
}

// Stop ends the sampling and returns a report per cluster, by name.
func (p *Probe) Stop() map[string]ProbeReport {
	close(p.stop)
	<-p.done
	end := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]ProbeReport{}
	for name, st := range p.reports {
		st.a.End(end)
		unserved := st.a.Unserved
		if unserved == nil {
			unserved = map[string]time.Duration{}
		}
		out[name] = ProbeReport{Cluster: name, Samples: st.a.Samples, Unserved: unserved, MaxOut: st.a.MaxOut,
			OutTogether: st.a.OutTogether, Order: st.a.Order, Errors: st.errors}
	}
	return out
}

// Longest is the longest unserved stretch of any resource in r, and which.
func (r ProbeReport) Longest() (string, time.Duration) {
	var id string
	var d time.Duration
	for _, k := range slices.Sorted(maps.Keys(r.Unserved)) {
		if r.Unserved[k] > d {
			id, d = k, r.Unserved[k]
		}
	}
	return id, d
}

// String is the report as the lab command prints it.
func (r ProbeReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster %s: %d samples, at most %d member(s) out of service at once (%d samples with two or more)",
		r.Cluster, r.Samples, r.MaxOut, r.OutTogether)
	if len(r.Order) > 0 {
		fmt.Fprintf(&b, ", out in this order: %s", strings.Join(r.Order, " then "))
	}
	b.WriteString("\n")
	for _, id := range slices.Sorted(maps.Keys(r.Unserved)) {
		fmt.Fprintf(&b, "  %-40s unserved for at most %s\n", id, r.Unserved[id].Round(time.Millisecond))
	}
	if r.Errors > 0 {
		fmt.Fprintf(&b, "  (%d samples could not be read)\n", r.Errors)
	}
	return b.String()
}
