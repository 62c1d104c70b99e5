package sim

// The cephadm orchestrator of Ceph Pacific (mgr/cephadm, mgr/orchestrator,
// ceph/deployment/service_spec.py and drive_group.py of python3-ceph-common
// 16.2.15): hosts, service specs and the daemons they place.
//
//   - orch host add HOST ADDR [--labels l1,l2]: cephadm connects to HOST
//     over SSH with its key; a host the lab does not run, or whose root's
//     authorized_keys lacks the cluster's ceph.pub, fails as cephadm's
//     connection check does. Hosts labelled _admin get ceph.conf and the
//     admin keyring in /etc/ceph (cephadm does so since 16.2.6).
//   - orch host rm HOST: refused while daemons other than crash run there.
//   - orch apply -i FILE: YAML spec documents, validated as
//     ServiceSpec/DriveGroupSpec.validate do (service_type required,
//     service_id required for osd, hosts and label exclusive, count >= 1,
//     data_devices required, unknown data_devices keys refused, size
//     filters parsed); every spec prints "Scheduled NAME update...".
//     Applied specs replace the one of the same service name.
//   - After every change the orchestrator reconciles at once (cephadm does
//     it in its background loop): mon/mgr/crash daemons on the placement's
//     hosts (prefer hosts already running one, up to count), and OSDs from
//     every osd spec on every matching host through DriveSelection
//     (ceph_drivesel.go), osds_per_device OSDs per selected available
//     device, numbered with the lowest free id as the monitor allocates
//     them. A spec selecting nothing is applied and creates nothing, as in
//     Ceph. An OSD's device then carries an LVM2_member signature in the
//     host's root (blkid, the agent's facts) and is rejected by the
//     inventory ("LVM detected", "locked", ...).

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

func (c *cephCluster) orch(a cephArgs, w []string) int {
	e := c.e
	if len(w) == 0 {
		return e.cephErr(cephErrnoEINVAL, "invalid command")
	}
	switch {
	case len(w) >= 2 && w[0] == "host" && w[1] == "add":
		return c.hostAdd(a, w[2:])
	case len(w) >= 2 && w[0] == "host" && w[1] == "rm":
		return c.hostRm(a, w[2:])
	case len(w) == 2 && w[0] == "host" && w[1] == "ls":
		return c.hostLs(a)
	case len(w) >= 3 && w[0] == "host" && w[1] == "label" && (w[2] == "add" || w[2] == "rm"):
		return c.hostLabel(w[2], w[3:])
	case w[0] == "apply":
		return c.apply(a)
	case w[0] == "ls":
		return c.orchLs(a)
	case len(w) >= 2 && w[0] == "device" && w[1] == "ls":
		return c.deviceLs(a, w[2:])
	case w[0] == "ps":
		return c.orchPs(a)
	}
	return e.cephErr(cephErrnoEINVAL, "invalid command: orch %s", strings.Join(w, " "))
}

// persist saves a change that places no daemon (pools, auth, images).
func (c *cephCluster) persist() int {
	if err := c.save(); err != nil {
		return c.e.cephErr(cephErrnoEINVAL, "%v", err)
	}
	return 0
}

// commit reconciles the placement after a change of hosts or specs, then
// saves.
func (c *cephCluster) commit() int {
	c.reconcile()
	if err := c.save(); err != nil {
		return c.e.cephErr(cephErrnoEINVAL, "%v", err)
	}
	return 0
}

// reachable is cephadm's SSH check of a host: the lab runs it and its
// root accepts the cluster's key for the SSH user.
func (c *cephCluster) reachable(host, addr string) error {
	r := c.nodeRoot(host)
	if r == nil {
		return fmt.Errorf("Failed to connect to %s (%s).\nPlease make sure that the host is reachable and accepts connections using the cephadm SSH key", host, addr)
	}
	defer r.Close()
	keys, _ := r.ReadFile(authorizedKeysPath)
	if !hasAuthorizedKey(string(keys), c.st.SSHPublicKey) {
		return fmt.Errorf("Failed to connect to %s (%s).\nPlease make sure that the host is reachable and accepts connections using the cephadm SSH key\n\nTo add the cephadm SSH key to the host:\n> ceph cephadm get-pub-key > ~/ceph.pub\n> ssh-copy-id -f -i ~/ceph.pub %s@%s", host, addr, c.st.SSHUser, addr)
	}
	return nil
}

func (c *cephCluster) hostAdd(a cephArgs, w []string) int {
	e := c.e
	if len(w) == 0 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: orch host add <hostname> [<addr>] [<labels>...]")
	}
	host := w[0]
	addr := host
	var labels []string
	if len(w) > 1 {
		addr = w[1]
		labels = append(labels, w[2:]...)
	}
	if l := a.flags["--labels"]; l != "" {
		labels = append(labels, strings.Split(l, ",")...)
	}
	if net.ParseIP(addr) == nil && c.nodeRoot(addr) == nil {
		return e.cephErr(cephErrnoEINVAL, "Cannot resolve ip for host %s: [Errno -2] Name or service not known", addr)
	}
	if err := c.reachable(host, addr); err != nil {
		return e.cephErr(cephErrnoEINVAL, "%v", err)
	}
	if h := c.host(host); h != nil {
		h.Addr = addr
		for _, l := range labels {
			if !slices.Contains(h.Labels, l) {
				h.Labels = append(h.Labels, l)
			}
		}
	} else {
		c.st.Hosts = append(c.st.Hosts, cephHost{Hostname: host, Addr: addr, Labels: dedupe(labels), Added: time.Now().UTC()})
	}
	if code := c.commit(); code != 0 {
		return code
	}
	fmt.Fprintf(e.Stdout, "Added host '%s' with addr '%s'\n", host, addr)
	return 0
}

func dedupe(l []string) []string {
	out := []string{}
	for _, s := range l {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (c *cephCluster) hostRm(a cephArgs, w []string) int {
	e := c.e
	if len(w) == 0 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: orch host rm <hostname>")
	}
	host := w[0]
	if c.host(host) == nil {
		return e.cephErr(cephErrnoEINVAL, "host %s does not exist", host)
	}
	var busy []string
	for _, d := range c.st.Daemons {
		if d.Host == host && d.Type != "crash" {
			busy = append(busy, d.Type+"."+d.ID)
		}
	}
	for _, o := range c.st.OSDs {
		if o.Host == host {
			busy = append(busy, "osd."+strconv.Itoa(o.ID))
		}
	}
	if len(busy) > 0 && a.flags["--force"] == "" {
		return e.cephErr(cephErrnoEINVAL, "Not allowed to remove %s from cluster. The following daemons are running in the host: %s\nPlease run 'ceph orch host drain %s' to remove daemons from host",
			host, strings.Join(busy, ", "), host)
	}
	c.st.Hosts = slices.DeleteFunc(c.st.Hosts, func(h cephHost) bool { return h.Hostname == host })
	c.st.Daemons = slices.DeleteFunc(c.st.Daemons, func(d cephDaemon) bool { return d.Host == host })
	if code := c.commit(); code != 0 {
		return code
	}
	fmt.Fprintf(e.Stdout, "Removed  host '%s'\n", host)
	return 0
}

func (c *cephCluster) hostLabel(verb string, w []string) int {
	e := c.e
	if len(w) != 2 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: orch host label %s <hostname> <label>", verb)
	}
	h := c.host(w[0])
	if h == nil {
		return e.cephErr(cephErrnoENOENT, "host %s does not exist", w[0])
	}
	if verb == "add" {
		if !slices.Contains(h.Labels, w[1]) {
			h.Labels = append(h.Labels, w[1])
		}
		fmt.Fprintf(e.Stdout, "Added label %s to host %s\n", w[1], w[0])
	} else {
		h.Labels = slices.DeleteFunc(h.Labels, func(l string) bool { return l == w[1] })
		fmt.Fprintf(e.Stdout, "Removed label %s from host %s\n", w[1], w[0])
	}
	return c.commit()
}

// hostLsEntry is `ceph orch host ls --format json`'s element.
type hostLsEntry struct {
	Addr     string   `json:"addr"`
	Hostname string   `json:"hostname"`
	Labels   []string `json:"labels"`
	Status   string   `json:"status"`
}

func (c *cephCluster) hostLs(a cephArgs) int {
	out := []hostLsEntry{}
	for _, h := range c.st.Hosts {
		l := h.Labels
		if l == nil {
			l = []string{}
		}
		out = append(out, hostLsEntry{Addr: h.Addr, Hostname: h.Hostname, Labels: l})
	}
	if a.json() {
		c.e.printJSON(out, a.pretty())
		return 0
	}
	fmt.Fprintf(c.e.Stdout, "%-8s %-15s %-12s %s\n", "HOST", "ADDR", "LABELS", "STATUS")
	for _, h := range out {
		fmt.Fprintf(c.e.Stdout, "%-8s %-15s %-12s %s\n", h.Hostname, h.Addr, strings.Join(h.Labels, " "), h.Status)
	}
	fmt.Fprintf(c.e.Stdout, "%d hosts in cluster\n", len(out))
	return 0
}

// parseSpecs reads YAML service spec documents into validated specs.
func parseSpecs(data []byte) ([]cephSpec, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var out []cephSpec
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("Failed to load yaml: %v", err)
		}
		if doc == nil {
			continue
		}
		s, err := specFromDoc(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, errors.New("no service spec found in the input")
	}
	return out, nil
}

var serviceIDChars = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// requiresID are the service types that need a service_id (ServiceSpec's
// REQUIRES_SERVICE_ID, osd checked by DriveGroupSpec).
var requiresID = []string{"iscsi", "mds", "nfs", "rgw", "container", "ingress"}

var driveGroupKeys = []string{"encrypted", "block_wal_size", "osds_per_device", "db_slots", "wal_slots", "block_db_size",
	"placement", "service_id", "service_type", "data_devices", "db_devices", "wal_devices", "journal_devices",
	"data_directories", "objectstore", "osd_id_claims", "journal_size", "unmanaged", "filter_logic", "preview_only",
	"extra_container_args", "extra_entrypoint_args", "data_allocate_fraction", "method", "crush_device_class", "spec"}

func specFromDoc(doc map[string]any) (cephSpec, error) {
	var s cephSpec
	t, _ := doc["service_type"].(string)
	if t == "" {
		return s, errors.New(`Spec needs a "service_type" key.`)
	}
	s.Type = t
	if id, ok := doc["service_id"]; ok && id != nil {
		s.ID = fmt.Sprint(id)
	}
	if u, ok := doc["unmanaged"].(bool); ok {
		s.Unmanaged = u
	}
	if p, ok := doc["placement"].(map[string]any); ok {
		pl, err := placementFromDoc(p)
		if err != nil {
			return s, err
		}
		s.Placement = pl
	}
	if t != "osd" {
		if slices.Contains(requiresID, t) && s.ID == "" {
			return s, errors.New("Cannot add Service: id required")
		}
		if !slices.Contains(requiresID, t) && s.ID != "" {
			return s, fmt.Errorf("Service of type '%s' should not contain a service id", t)
		}
	}
	if s.ID != "" && !serviceIDChars.MatchString(s.ID) {
		return s, errors.New("Service id contains invalid characters, only [a-zA-Z0-9_.-] allowed")
	}
	if p := s.Placement; len(p.Hosts) > 0 && p.Label != "" {
		return s, errors.New("Host and label are mutually exclusive")
	}
	if p := s.Placement; len(p.Hosts) > 0 && p.HostPattern != "" {
		return s, errors.New("cannot combine host patterns and hosts")
	}
	if t != "osd" {
		if sp, ok := doc["spec"].(map[string]any); ok {
			s.Spec = sp
		}
		return s, nil
	}
	// DriveGroupSpec: its fields may be at the top level or under spec.
	fields := map[string]any{}
	for k, v := range doc {
		if k == "spec" {
			sp, _ := v.(map[string]any)
			for k2, v2 := range sp {
				fields[k2] = v2
			}
			continue
		}
		fields[k] = v
	}
	for k := range fields {
		if !slices.Contains(driveGroupKeys, k) {
			return s, dgErr(s.ID, fmt.Sprintf("Feature `%s` is not supported", k))
		}
	}
	if s.ID == "" {
		// Pacific's DriveGroupSpec accepts no id but cannot name the
		// service; cephadm refuses it at apply.
		return s, errors.New("Cannot add Service: id required")
	}
	if s.Placement.empty() {
		return s, dgErr(s.ID, "`placement` required")
	}
	if fields["data_devices"] == nil {
		return s, dgErr(s.ID, "`data_devices` element is required.")
	}
	spec := map[string]any{}
	for _, k := range []string{"data_devices", "db_devices", "wal_devices", "journal_devices"} {
		v, ok := fields[k]
		if !ok || v == nil {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return s, dgErr(s.ID+"."+k, "device selection must be a mapping")
		}
		f, err := filterFromDoc(s.ID, k, m)
		if err != nil {
			return s, err
		}
		if f.All && k != "data_devices" {
			return s, dgErr(s.ID, "`all` is only allowed for data_devices")
		}
		spec[k] = f.toJSON()
	}
	logic := "AND"
	if v, ok := fields["filter_logic"]; ok {
		logic = fmt.Sprint(v)
		if logic != "AND" && logic != "OR" {
			return s, dgErr(s.ID, "filter_logic must be either <AND> or <OR>")
		}
	}
	spec["filter_logic"] = logic
	spec["objectstore"] = "bluestore"
	if v, ok := fields["objectstore"]; ok && fmt.Sprint(v) != "bluestore" {
		return s, dgErr(s.ID, fmt.Sprintf("%v is not supported. Must be one of ('bluestore')", v))
	}
	if v, ok := fields["osds_per_device"]; ok && v != nil {
		n, ok := v.(int)
		if !ok || n < 1 {
			return s, dgErr(s.ID, "osds_per_device must be a positive integer")
		}
		spec["osds_per_device"] = n
	}
	if v, ok := fields["encrypted"].(bool); ok && v {
		spec["encrypted"] = true
	}
	if v, ok := fields["method"]; ok && v != nil {
		m := fmt.Sprint(v)
		if m != "lvm" && m != "raw" {
			return s, dgErr(s.ID, "method must be one of None, lvm, raw")
		}
		spec["method"] = m
	}
	if v, ok := fields["crush_device_class"]; ok && v != nil {
		spec["crush_device_class"] = fmt.Sprint(v)
	}
	s.Spec = spec
	return s, nil
}

func dgErr(name, msg string) error {
	if name == "" {
		name = "<unnamed>"
	}
	return fmt.Errorf("Failed to validate OSD spec \"%s\": %s", name, msg)
}

func (p cephPlacement) empty() bool {
	return len(p.Hosts) == 0 && p.Label == "" && p.Count == 0 && p.HostPattern == ""
}

func placementFromDoc(p map[string]any) (cephPlacement, error) {
	var pl cephPlacement
	for k, v := range p {
		switch k {
		case "hosts":
			l, ok := v.([]any)
			if !ok {
				return pl, fmt.Errorf("invalid placement %v", v)
			}
			for _, h := range l {
				name, _, _ := strings.Cut(fmt.Sprint(h), ":")
				pl.Hosts = append(pl.Hosts, name)
			}
		case "label":
			pl.Label = fmt.Sprint(v)
		case "count":
			n, ok := v.(int)
			if !ok {
				return pl, errors.New("num/count must be a numeric value")
			}
			if n < 1 {
				return pl, errors.New("num/count must be >= 1")
			}
			pl.Count = n
		case "host_pattern":
			s, ok := v.(string)
			if !ok {
				return pl, errors.New("host_pattern must be of type string")
			}
			pl.HostPattern = s
		default:
			return pl, fmt.Errorf("invalid placement %s", k)
		}
	}
	return pl, nil
}

func filterFromDoc(id, key string, m map[string]any) (*deviceFilter, error) {
	f := &deviceFilter{}
	for k, v := range m {
		switch k {
		case "paths":
			l, _ := v.([]any)
			for _, p := range l {
				f.Paths = append(f.Paths, fmt.Sprint(p))
			}
		case "model":
			f.Model = fmt.Sprint(v)
		case "vendor":
			f.Vendor = fmt.Sprint(v)
		case "size":
			f.Size = fmt.Sprint(v)
			if _, err := parseSizeFilter(f.Size); err != nil {
				return nil, dgErr(id+"."+key, err.Error())
			}
		case "rotational":
			switch r := v.(type) {
			case bool:
				f.Rotational = &r
			case int:
				b := r != 0
				f.Rotational = &b
			default:
				return nil, dgErr(id+"."+key, fmt.Sprintf("rotational must be a boolean, not %v", v))
			}
		case "all":
			f.All, _ = v.(bool)
		case "limit":
			n, ok := v.(int)
			if !ok {
				return nil, dgErr(id+"."+key, fmt.Sprintf("limit must be an integer, not %v", v))
			}
			f.Limit = n
		default:
			return nil, dgErr(id+"."+key, fmt.Sprintf("Filtering for `%s` is not supported", k))
		}
	}
	if f.empty() {
		return nil, dgErr(key, "device selection cannot be empty")
	}
	if len(f.Paths) > 0 && (f.Model != "" || f.Vendor != "" || f.Size != "" || f.Rotational != nil || f.All || f.Limit != 0) {
		return nil, dgErr(key, "device selection: `paths` and other parameters are mutually exclusive")
	}
	if f.All && (f.Model != "" || f.Vendor != "" || f.Size != "" || f.Rotational != nil || f.Limit != 0) {
		return nil, dgErr(key, "device selection: `all` and other parameters are mutually exclusive.")
	}
	return f, nil
}

// filter returns a parsed device selection of an osd spec.
func (s cephSpec) filter(key string) *deviceFilter {
	m, ok := s.Spec[key].(map[string]any)
	if !ok {
		return nil
	}
	// Stored JSON gives numbers as float64; YAML gave ints.
	for k, v := range m {
		if x, isF := v.(float64); isF {
			m[k] = int(x)
		}
	}
	if l, isL := m["paths"].([]string); isL {
		anyL := make([]any, len(l))
		for i, p := range l {
			anyL[i] = p
		}
		m["paths"] = anyL
	}
	f, err := filterFromDoc(s.ID, key, m)
	if err != nil {
		return nil
	}
	return f
}

func (s cephSpec) osdsPerDevice() int {
	switch n := s.Spec["osds_per_device"].(type) {
	case int:
		return n
	case float64:
		return int(n)
	}
	return 1
}

func (c *cephCluster) apply(a cephArgs) int {
	e := c.e
	file := a.flags["-i"]
	if file == "" {
		file = a.flags["--in-file"]
	}
	if file == "" {
		return e.cephErr(cephErrnoEINVAL, "orch apply: pass the specs with -i FILE (the lab simulates spec files only)")
	}
	var data []byte
	if file == "-" {
		b := new(strings.Builder)
		if e.Stdin != nil {
			_, _ = io.Copy(b, e.Stdin)
		}
		data = []byte(b.String())
	} else {
		d, err := e.read(file)
		if err != nil || d == nil {
			return e.cephErr(cephErrnoENOENT, "can't open %s: (2) No such file or directory", file)
		}
		data = d
	}
	specs, err := parseSpecs(data)
	if err != nil {
		return e.cephErr(cephErrnoEINVAL, "%v", err)
	}
	now := time.Now().UTC()
	for _, s := range specs {
		s.Created = now
		if i := slices.IndexFunc(c.st.Specs, func(o cephSpec) bool { return o.name() == s.name() }); i >= 0 {
			s.Created = c.st.Specs[i].Created
			c.st.Specs[i] = s
		} else {
			c.st.Specs = append(c.st.Specs, s)
		}
	}
	if code := c.commit(); code != 0 {
		return code
	}
	for _, s := range specs {
		fmt.Fprintf(e.Stdout, "Scheduled %s update...\n", s.name())
	}
	return 0
}

// placementHosts are the hosts a placement targets, in host order.
func (c *cephCluster) placementHosts(p cephPlacement) []string {
	var out []string
	for _, h := range c.st.Hosts {
		switch {
		case len(p.Hosts) > 0:
			if !slices.Contains(p.Hosts, h.Hostname) {
				continue
			}
		case p.Label != "":
			if !slices.Contains(h.Labels, p.Label) {
				continue
			}
		case p.HostPattern != "":
			if ok, _ := path.Match(p.HostPattern, h.Hostname); !ok {
				continue
			}
		}
		out = append(out, h.Hostname)
	}
	return out
}

// reconcile places the daemons of every managed spec.
func (c *cephCluster) reconcile() {
	now := time.Now().UTC()
	for _, s := range c.st.Specs {
		if s.Unmanaged {
			continue
		}
		hosts := c.placementHosts(s.Placement)
		if s.Type == "osd" {
			for _, h := range hosts {
				c.createOSDs(s, h)
			}
			continue
		}
		// cephadm never removes the last monitor or manager (the
		// monitors refuse ok-to-rm; the active mgr stays): a placement
		// matching no host leaves them where they are.
		if len(hosts) == 0 && (s.Type == "mon" || s.Type == "mgr") {
			continue
		}
		// Keep the daemons on hosts still targeted, fill up to count.
		var have []string
		c.st.Daemons = slices.DeleteFunc(c.st.Daemons, func(d cephDaemon) bool {
			if d.Service != s.name() {
				return false
			}
			if slices.Contains(hosts, d.Host) && (s.Placement.Count == 0 || len(have) < s.Placement.Count) {
				have = append(have, d.Host)
				return false
			}
			if d.Type == "mon" {
				c.st.MonEpoch++
			}
			return true
		})
		for _, h := range hosts {
			if s.Placement.Count > 0 && len(have) >= s.Placement.Count {
				break
			}
			if slices.Contains(have, h) {
				continue
			}
			id := h
			if s.Type == "mgr" {
				id = h + "." + randLower(6)
			}
			c.st.Daemons = append(c.st.Daemons, cephDaemon{Type: s.Type, ID: id, Host: h, Service: s.name(), Created: now})
			have = append(have, h)
			if s.Type == "mon" {
				c.st.MonEpoch++
			}
		}
	}
	// The mgr's devicehealth module creates its pool once OSDs exist
	// (Pacific: device_health_metrics, one PG, the default size).
	if len(c.st.OSDs) > 0 && c.pool(deviceHealthPool) == nil {
		id := max(c.st.NextPG, 1)
		c.st.NextPG = id + 1
		c.st.Pools = append(c.st.Pools, cephPool{ID: id, Name: deviceHealthPool, Created: now, Size: poolDefaultSize,
			MinSize: poolDefaultSize - poolDefaultSize/2, PGNum: 1, Autoscale: "on", Application: map[string]string{"mgr_devicehealth": ""}})
	}
	// The admin hosts get the client configuration.
	for _, h := range c.st.Hosts {
		if slices.Contains(h.Labels, cephLabelAdmin) {
			if r := c.nodeRoot(h.Hostname); r != nil {
				if admin := c.auth("client.admin"); admin != nil {
					_ = writeMode(r, cephConfPath, []byte(c.minimalConf()), 0o644)
					_ = writeMode(r, cephAdminKeyring, []byte(keyringText(*admin, false)), 0o600)
				}
				r.Close()
			}
		}
	}
}

func randLower(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := []byte(randHex(2 * n))
	for i := range b {
		b[i] = letters[int(b[i])%26]
	}
	return string(b[:n])
}

// createOSDs runs the spec's device selection on one host and creates the
// OSDs of the selected devices not yet in use.
func (c *cephCluster) createOSDs(s cephSpec, host string) {
	r := c.nodeRoot(host)
	if r == nil {
		return
	}
	defer r.Close()
	f := s.filter("data_devices")
	if f == nil {
		return
	}
	existing := 0
	for _, o := range c.st.OSDs {
		if o.Host == host && o.Service == s.ID {
			existing++
		}
	}
	devs := c.inventory(host, r)
	logic, _ := s.Spec["filter_logic"].(string)
	sel, err := selectDevices(f, logic, s.ID, devs, existing)
	if err != nil {
		return
	}
	// db_devices are chosen among the devices data did not take, as
	// DriveSelection does; ceph-volume batch spreads the new OSDs' DB
	// volumes over them.
	var dbs []cephDevice
	if fdb := s.filter("db_devices"); fdb != nil {
		var rest []cephDevice
		for _, d := range devs {
			if !slices.ContainsFunc(sel, func(x cephDevice) bool { return x.Path == d.Path }) {
				rest = append(rest, d)
			}
		}
		if dbs, err = selectDevices(fdb, logic, s.ID, rest, existing); err != nil {
			return
		}
	}
	class := "ssd"
	if v, ok := s.Spec["crush_device_class"].(string); ok {
		class = v
	}
	created := 0
	for _, d := range sel {
		if !d.Available {
			continue // already an OSD of this spec
		}
		n := s.osdsPerDevice()
		for range n {
			id := c.freeOSDID()
			cl := class
			if _, ok := s.Spec["crush_device_class"]; !ok && d.HumanReadableType == "hdd" {
				cl = "hdd"
			}
			o := cephOSD{ID: id, Host: host, Device: d.Path, UUID: newUUID(),
				Block: randHex(6) + "-" + randHex(4) + "-" + randHex(4), Service: s.ID, Bytes: int64(d.SysAPI.Size) / int64(n), Class: cl}
			if len(dbs) > 0 {
				o.DBDevice = dbs[created%len(dbs)].Path
				_ = writeMode(r, SigDir+"/"+path.Base(o.DBDevice), []byte("LVM2_member\n"), 0o644)
			}
			created++
			c.st.OSDs = append(c.st.OSDs, o)
			c.st.Daemons = append(c.st.Daemons, cephDaemon{Type: "osd", ID: strconv.Itoa(id), Host: host, Service: s.name(), Created: time.Now().UTC()})
		}
		c.st.OSDEpoch++
		_ = writeMode(r, SigDir+"/"+path.Base(d.Path), []byte("LVM2_member\n"), 0o644)
	}
}

func (c *cephCluster) freeOSDID() int {
	used := map[int]bool{}
	for _, o := range c.st.OSDs {
		used[o.ID] = true
	}
	for i := 0; ; i++ {
		if !used[i] {
			return i
		}
	}
}

// toJSON is DeviceSelection.to_json: the filters set, typed.
func (f *deviceFilter) toJSON() map[string]any {
	out := map[string]any{}
	if len(f.Paths) > 0 {
		out["paths"] = f.Paths
	}
	if f.Model != "" {
		out["model"] = f.Model
	}
	if f.Vendor != "" {
		out["vendor"] = f.Vendor
	}
	if f.Size != "" {
		out["size"] = f.Size
	}
	if f.Rotational != nil {
		out["rotational"] = *f.Rotational
	}
	if f.Limit != 0 {
		out["limit"] = f.Limit
	}
	if f.All {
		out["all"] = true
	}
	return out
}
