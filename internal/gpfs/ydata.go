package gpfs

import (
	"fmt"
	"net/url"
	"strings"
)

// Table is one section of an mm command's -Y output: the fields its
// HEADER line names and one row per data line, values percent-decoded.
type Table struct {
	Command string // "mmlscluster"
	Section string // "clusterNode" ("" when the command has one section)
	Fields  []string
	Rows    []map[string]string
}

// Parsed is a whole -Y output, by "command:section".
type Parsed map[string]*Table

// Table returns the section ("" for commands with one), empty when absent.
func (p Parsed) Table(command, section string) *Table {
	if t, ok := p[command+":"+section]; ok {
		return t
	}
	return &Table{Command: command, Section: section}
}

// ParseY reads -Y output: colon-separated lines "command:section:HEADER:
// field...:" naming the fields of the data lines "command:section:0:1:::
// value...:" that follow. Values are percent-encoded (a colon in a value
// is %3A). A data line before its header, or a field that does not decode,
// is an error naming the line.
func ParseY(out string) (Parsed, error) {
	p := Parsed{}
	for n, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < 3 {
			return nil, fmt.Errorf("-Y output line %d: %q is not colon-separated", n+1, line)
		}
		// A trailing colon ends every line.
		if f[len(f)-1] == "" {
			f = f[:len(f)-1]
		}
		key := f[0] + ":" + f[1]
		if f[2] == "HEADER" {
			// Field names are percent-encoded too (mmsmb's gpfs:leases).
			names := make([]string, len(f)-3)
			for i, h := range f[3:] {
				var err error
				if names[i], err = url.PathUnescape(h); err != nil {
					return nil, fmt.Errorf("-Y output line %d: header field %q: %v", n+1, h, err)
				}
			}
			p[key] = &Table{Command: f[0], Section: f[1], Fields: names}
			continue
		}
		t, ok := p[key]
		if !ok {
			return nil, fmt.Errorf("-Y output line %d: data for %s before its HEADER line", n+1, key)
		}
		vals := f[3:]
		row := make(map[string]string, len(t.Fields))
		for i, name := range t.Fields {
			if i >= len(vals) {
				row[name] = ""
				continue
			}
			v, err := url.PathUnescape(vals[i])
			if err != nil {
				return nil, fmt.Errorf("-Y output line %d, field %s: %q: %w", n+1, name, vals[i], err)
			}
			row[name] = v
		}
		t.Rows = append(t.Rows, row)
	}
	return p, nil
}

// Config is mmlsconfig -Y read back: value by attribute, then by the node
// list it applies to ("" for cluster-wide).
type Config map[string]map[string]string

// ParseConfig reads mmlsconfig -Y.
func ParseConfig(out string) (Config, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	c := Config{}
	for _, r := range p.Table("mmlsconfig", "").Rows {
		k := r["configParameter"]
		if c[k] == nil {
			c[k] = map[string]string{}
		}
		c[k][r["nodeList"]] = r["value"]
	}
	return c, nil
}

// Value is the attribute's value for a scope (a node class or node name,
// AllNodes for cluster-wide); found is false when mmlsconfig lists none.
// A class-scoped entry may name several classes ("nsdNodes,gwNodes").
func (c Config) Value(key, scope string) (string, bool) {
	byScope := c[key]
	if scope == AllNodes {
		v, ok := byScope[""]
		return v, ok
	}
	for list, v := range byScope {
		for _, s := range strings.Split(list, ",") {
			if strings.TrimSpace(s) == scope {
				return v, true
			}
		}
	}
	return "", false
}

// ClusterNode is a row of mmlscluster -Y's clusterNode section.
type ClusterNode struct {
	Number      string
	DaemonName  string
	AdminName   string
	Designation string
}

// Cluster is mmlscluster -Y read back.
type Cluster struct {
	Name  string
	ID    string
	Nodes []ClusterNode
	// CESNodes are the protocol nodes (cesNode section), short names.
	CESNodes []string
}

// ParseCluster reads mmlscluster -Y.
func ParseCluster(out string) (Cluster, error) {
	p, err := ParseY(out)
	if err != nil {
		return Cluster{}, err
	}
	var c Cluster
	if s := p.Table("mmlscluster", "clusterSummary").Rows; len(s) > 0 {
		c.Name, c.ID = s[0]["clusterName"], s[0]["clusterId"]
	}
	for _, r := range p.Table("mmlscluster", "clusterNode").Rows {
		c.Nodes = append(c.Nodes, ClusterNode{Number: r["nodeNumber"], DaemonName: r["daemonNodeName"],
			AdminName: r["adminNodeName"], Designation: r["designation"]})
	}
	for _, r := range p.Table("mmlscluster", "cesNode").Rows {
		c.CESNodes = append(c.CESNodes, ShortName(r["daemonNodeName"]))
	}
	return c, nil
}

// ShortName is a node name without its domain.
func ShortName(s string) string {
	h, _, _ := strings.Cut(s, ".")
	return h
}

// States is mmgetstate -a -Y read back: GPFS state by node short name
// ("active", "down", "arbitrating"...).
func ParseStates(out string) (map[string]string, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	st := map[string]string{}
	for _, r := range p.Table("mmgetstate", "").Rows {
		st[ShortName(r["nodeName"])] = r["state"]
	}
	return st, nil
}

// NodeClasses is mmlsnodeclass -Y read back: members by class.
func ParseNodeClasses(out string) (map[string][]string, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	nc := map[string][]string{}
	for _, t := range p {
		if t.Command != "mmlsnodeclass" {
			continue
		}
		for _, r := range t.Rows {
			name := r["nodeclassName"]
			if name == "" {
				name = r["nodeClass"]
			}
			if name == "" {
				continue
			}
			var m []string
			for _, s := range strings.Split(r["members"], ",") {
				if s = strings.TrimSpace(s); s != "" {
					m = append(m, ShortName(s))
				}
			}
			nc[name] = m
		}
	}
	return nc, nil
}

// NSDInfo is a row of mmlsnsd -X -Y.
type NSDInfo struct {
	Name       string
	FileSystem string // "" for a free disk
	VolumeID   string
	Servers    []string
	Device     string
	// Devices is the device each server sees the NSD as (mmlsnsd -X's
	// localDiskName, by server short name).
	Devices map[string]string
}

// ParseNSDs reads mmlsnsd -X -Y (or mmlsnsd -Y), by NSD name.
func ParseNSDs(out string) (map[string]NSDInfo, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	res := map[string]NSDInfo{}
	for _, r := range p.Table("mmlsnsd", "nsd").Rows {
		fs := r["fileSystem"]
		if fs == "(free disk)" || fs == "(free" {
			fs = ""
		}
		var servers []string
		for _, s := range strings.Split(r["serverList"], ",") {
			if s = strings.TrimSpace(s); s != "" {
				servers = append(servers, ShortName(s))
			}
		}
		dev := r["localDiskName"]
		if dev == "" {
			dev = r["deviceName"]
		}
		name := r["diskName"]
		if prev, ok := res[name]; ok && prev.Devices != nil && len(servers) == 1 && r["localDiskName"] != "" {
			prev.Devices[servers[0]] = r["localDiskName"]
		}
		if prev, ok := res[name]; ok {
			// -X prints one line per server: merge them.
			for _, s := range servers {
				if !contains(prev.Servers, s) {
					prev.Servers = append(prev.Servers, s)
				}
			}
			res[name] = prev
			continue
		}
		devs := map[string]string{}
		if len(servers) == 1 && r["localDiskName"] != "" {
			devs[servers[0]] = r["localDiskName"]
		}
		res[name] = NSDInfo{Name: name, FileSystem: fs, VolumeID: r["volumeId"], Servers: servers, Device: dev, Devices: devs}
	}
	return res, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// FSAttrs is mmlsfs DEV -Y read back: the data of each field by name.
func ParseFSAttrs(out string) (map[string]string, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	a := map[string]string{}
	for _, r := range p.Table("mmlsfs", "").Rows {
		// A field with one value per pool kind (blockSize, minFragmentSize
		// with a metadata block size) is also kept by its remark, e.g.
		// "blockSize/system pool"; the plain name holds the last row.
		a[r["fieldName"]] = r["data"]
		if r["remarks"] != "" {
			a[r["fieldName"]+"/"+r["remarks"]] = r["data"]
		}
	}
	return a, nil
}

// Disk is a row of mmlsdisk DEV -Y.
type Disk struct {
	Name         string
	FailureGroup string
	Metadata     bool
	Data         bool
	Status       string
	Availability string
	Pool         string
}

// Usage is the stanza usage word for the disk's metadata/data flags.
func (d Disk) Usage() string {
	switch {
	case d.Metadata && d.Data:
		return DataAndMetadata
	case d.Metadata:
		return MetadataOnly
	case d.Data:
		return DataOnly
	}
	return "descOnly"
}

// ParseDisks reads mmlsdisk DEV -Y, in the order printed.
func ParseDisks(out string) ([]Disk, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	var ds []Disk
	for _, r := range p.Table("mmlsdisk", "").Rows {
		ds = append(ds, Disk{Name: r["nsdName"], FailureGroup: r["failureGroup"], Metadata: strings.EqualFold(r["metadata"], "yes"),
			Data: strings.EqualFold(r["data"], "yes"), Status: r["status"], Availability: r["availability"], Pool: r["storagePool"]})
	}
	return ds, nil
}

// CESServices are the protocol services mmces enables.
var CESServices = []string{"NFS", "SMB"}

// ParseCESServices reads mmces service list -Y: the enabled services
// (upper case). Rows name one service each ("serviceName" or "service",
// and "state"), or carry one column per service with its state.
func ParseCESServices(out string) ([]string, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	on := func(st string) bool {
		st = strings.ToLower(st)
		return st != "" && !strings.Contains(st, "disabled") && st != "no" && !strings.Contains(st, "stopped")
	}
	var svc []string
	for _, t := range p {
		if !strings.HasPrefix(t.Command, "mmces") {
			continue
		}
		for _, r := range t.Rows {
			s, ok := r["service"]
			if !ok {
				s, ok = r["serviceName"]
			}
			if ok {
				// A row per enabled service; its state is the daemon's
				// (running, stopped), "disabled" only where a release lists those.
				if !strings.Contains(strings.ToLower(r["state"]), "disabled") && !contains(svc, strings.ToUpper(s)) {
					svc = append(svc, strings.ToUpper(s))
				}
				continue
			}
			for _, s := range []string{"NFS", "SMB", "OBJ", "BLOCK", "HDFS"} {
				if on(r[s]) && !contains(svc, s) {
					svc = append(svc, s)
				}
			}
		}
	}
	return svc, nil
}

// Export is a row of mmnfs export list -Y.
type Export struct {
	Path    string
	Clients string
	Access  string
	Squash  string
}

// ParseExports reads mmnfs export list -Y: one row per path and client.
func ParseExports(out string) ([]Export, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	var ex []Export
	for _, t := range p {
		if t.Command != "mmnfs" {
			continue
		}
		for _, r := range t.Rows {
			ex = append(ex, Export{Path: r["Path"], Clients: r["Clients"], Access: r["Access_Type"], Squash: r["Squash"]})
		}
	}
	return ex, nil
}
