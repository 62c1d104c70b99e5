package sim

// Cluster Export Services (CES), after IBM Storage Scale 5.1's mmces and
// mmnfs:
//
//   - mmces service enable|disable NFS|SMB: needs cesSharedRoot and at
//     least one CES node (mmchnode --ces-enable); enabling an enabled
//     service says so and succeeds. mmces service list [-a] [-Y].
//   - mmces node list [-Y]; mmces address add --ces-ip IP[,IP] (addresses
//     checked, a duplicate refused, spread over the CES nodes
//     even-coverage); mmces address list [-Y].
//   - mmnfs export add PATH --client "SPEC(OPT=V,...)[;SPEC(...)]": needs
//     NFS enabled; PATH inside a mounted GPFS file system (a directory
//     below the mount point must exist on the node); an export that
//     exists, an unknown option or a bad option value are refused (the
//     options and values of CES NFS: Access_Type, Squash, Protocols,
//     Transports, SecType, Anonymous_uid, Anonymous_gid, PrivilegedPort,
//     Delegations, Manage_Gids, NFS_Commit). mmnfs export list [-Y] shows
//     one line per export and client; mmnfs export remove PATH.
//
// The -Y field names of mmces and mmnfs are not confirmed by a capture
// (the NFS export columns are those of `mmnfs export list`); parse them
// by header name. SMB exports (mmsmb) are in gpfs_smb.go.

import (
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
)

var cesServices = []string{"NFS", "SMB", "OBJ", "BLOCK", "HDFS", "S3"}

func (g *gpfsRun) cesNodes() []*gpfsNode {
	var out []*gpfsNode
	for _, n := range g.st.Nodes {
		if n.CES {
			out = append(out, n)
		}
	}
	return out
}

// cesIPs are the addresses the i-th of n CES nodes hosts (even-coverage:
// round robin).
func (g *gpfsRun) cesIPs(i, n int) []string {
	var out []string
	for k, ip := range g.st.CES.Addresses {
		if k%n == i {
			out = append(out, ip)
		}
	}
	return out
}

func mmces(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "--ces-ip", "-N", "--ces-group")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) < 2 {
			return g.fail("6027-1268 Missing arguments: mmces service|node|address ...")
		}
		ces := g.cesNodes()
		var b strings.Builder
		switch f.pos[0] + " " + f.pos[1] {
		case "service enable", "service disable":
			if len(f.pos) != 3 || !slices.Contains(cesServices, strings.ToUpper(f.pos[2])) {
				return g.fail("6027-1268 Missing arguments: want one of %s.", strings.Join(cesServices, ", "))
			}
			svc := strings.ToUpper(f.pos[2])
			if svc != "NFS" && svc != "SMB" {
				return g.fail("The %s service is not simulated in the lab (NFS and SMB are).", svc)
			}
			if g.configValue("cesSharedRoot", g.host) == "" {
				return g.fail("cesSharedRoot is not configured: run mmchconfig cesSharedRoot=DIR.")
			}
			if len(ces) == 0 {
				return g.fail("There are no CES nodes in the cluster: enable them with mmchnode --ces-enable -N NODES.")
			}
			on := slices.Contains(g.st.CES.Services, svc)
			if f.pos[1] == "enable" {
				if on {
					fmt.Fprintf(e.Stdout, "%s: %s is already enabled.\n", e.tool, svc)
					return 0
				}
				g.st.CES.Services = append(g.st.CES.Services, svc)
				slices.Sort(g.st.CES.Services)
			} else {
				if !on {
					fmt.Fprintf(e.Stdout, "%s: %s is already disabled.\n", e.tool, svc)
					return 0
				}
				if svc == "NFS" && len(g.st.Exports) > 0 {
					return g.fail("NFS exports exist: remove them before disabling NFS.")
				}
				g.st.CES.Services = slices.DeleteFunc(g.st.CES.Services, func(s string) bool { return s == svc })
			}
			g.dirty = true
		case "service list":
			if f.set["-Y"] {
				yHeader(&b, "mmces", "service", "nodeName", "serviceName", "state")
				for _, n := range ces {
					for _, s := range g.st.CES.Services {
						yData(&b, "mmces", "service", false, n.Name, s, cesState(g, n))
					}
				}
			} else {
				fmt.Fprintf(&b, "Enabled services: %s\n", strings.Join(g.st.CES.Services, " "))
				var st []string
				for _, s := range g.st.CES.Services {
					st = append(st, s+" is running")
				}
				if len(st) > 0 {
					b.WriteString(strings.Join(st, ", ") + "\n")
				}
			}
		case "node list":
			if f.set["-Y"] {
				yHeader(&b, "mmces", "node", "nodeNumber", "nodeName", "nodeFlags", "nodeGroups")
				for _, n := range ces {
					flags := "none"
					if !n.Active {
						flags = "Failed"
					}
					yData(&b, "mmces", "node", false, strconv.Itoa(n.Number), n.Name, flags, "")
				}
			} else {
				b.WriteString("Node  Name       Node Flags  Node Groups\n-----------------------------------------\n")
				for _, n := range ces {
					fmt.Fprintf(&b, "%4d  %-10s none\n", n.Number, n.Name)
				}
			}
		case "address add":
			if len(ces) == 0 {
				return g.fail("There are no CES nodes in the cluster: enable them with mmchnode --ces-enable -N NODES.")
			}
			list := f.vals["--ces-ip"]
			if list == "" {
				return g.fail("6027-1268 Missing arguments: --ces-ip.")
			}
			var add []string
			for _, ip := range strings.Split(list, ",") {
				ip = strings.TrimSpace(ip)
				if net.ParseIP(ip) == nil {
					return g.fail("Incorrect IP address %s.", ip)
				}
				if slices.Contains(g.st.CES.Addresses, ip) || slices.Contains(add, ip) {
					return g.fail("The CES address %s already exists.", ip)
				}
				add = append(add, ip)
			}
			g.st.CES.Addresses = append(g.st.CES.Addresses, add...)
			g.dirty = true
		case "address list":
			if f.set["-Y"] {
				yHeader(&b, "mmces", "address", "cesAddress", "cesNode", "cesGroup", "attributes")
			}
			for i, n := range ces {
				for _, ip := range g.cesIPs(i, len(ces)) {
					if f.set["-Y"] {
						yData(&b, "mmces", "address", false, ip, n.Name, "", "")
					} else {
						fmt.Fprintf(&b, "%-16s %s\n", ip, n.Name)
					}
				}
			}
		default:
			return g.fail("mmces %s %s is not simulated.", f.pos[0], f.pos[1])
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}

// exportPath checks the path of an NFS or SMB export: absolute, inside a
// GPFS file system mounted somewhere, and an existing directory.
func (g *gpfsRun) exportPath(e *Env, arg string) (string, error) {
	p := path.Clean(arg)
	if !strings.HasPrefix(arg, "/") {
		return "", fmt.Errorf("Incorrect path %s: it must be absolute.", arg)
	}
	var in *gpfsFS
	for _, fsys := range g.st.FS {
		if p == fsys.MountPoint || strings.HasPrefix(p, fsys.MountPoint+"/") {
			in = fsys
		}
	}
	if in == nil {
		return "", fmt.Errorf("The path %s is not in a GPFS file system.", p)
	}
	if len(in.Mounted) == 0 {
		return "", fmt.Errorf("File system %s of %s is not mounted.", in.Name, p)
	}
	if p != in.MountPoint {
		if st, err := e.Root.Stat(p); err != nil || !st.IsDir() {
			return "", fmt.Errorf("The path %s does not exist.", p)
		}
	}
	return p, nil
}

func cesState(g *gpfsRun, n *gpfsNode) string {
	if g.state(n) == "active" {
		return "running"
	}
	return "stopped"
}

// nfsOptions are CES NFS's client options: allowed values (nil: any
// integer).
var nfsOptions = map[string][]string{
	"Access_Type":    {"RW", "RO", "MDONLY", "MDONLY_RO", "NONE"},
	"Squash":         {"ROOT_SQUASH", "NO_ROOT_SQUASH", "ALL_SQUASH", "NONE", "ROOTSQUASH", "NOIDSQUASH", "ALLSQUASH", "NO_ROOT_SQUASH"},
	"Protocols":      {"3", "4", "3,4", "4,3", "NFS3", "NFS4"},
	"Transports":     {"TCP", "UDP", "TCP,UDP", "UDP,TCP"},
	"SecType":        {"SYS", "KRB5", "KRB5I", "KRB5P", "NONE"},
	"PrivilegedPort": {"TRUE", "FALSE"},
	"Delegations":    {"NONE", "READ", "WRITE", "READWRITE"},
	"Manage_Gids":    {"TRUE", "FALSE"},
	"NFS_Commit":     {"TRUE", "FALSE"},
	"Anonymous_uid":  nil,
	"Anonymous_gid":  nil,
}

var nfsDefaults = map[string]string{
	"Access_Type": "NONE", "Squash": "ROOT_SQUASH", "Protocols": "3,4", "Transports": "TCP", "SecType": "SYS",
	"PrivilegedPort": "FALSE", "Delegations": "NONE", "Manage_Gids": "FALSE", "NFS_Commit": "FALSE",
	"Anonymous_uid": "-2", "Anonymous_gid": "-2",
}

// parseClients reads --client "SPEC(OPT=V,...);SPEC(...)". Commas split
// options, except inside the Protocols/Transports values (written
// "3:4"-free as 3,4 in CES: a word without '=' continues the previous
// value).
func parseClients(s string) ([]gpfsClient, error) {
	var out []gpfsClient
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		spec, opts, hasOpts := strings.Cut(part, "(")
		spec = strings.TrimSpace(spec)
		if spec == "" || strings.ContainsAny(spec, " )") {
			return nil, fmt.Errorf("Incorrect client specification %q.", part)
		}
		c := gpfsClient{Spec: spec, Options: map[string]string{}}
		if hasOpts {
			if !strings.HasSuffix(opts, ")") {
				return nil, fmt.Errorf("Incorrect client specification %q: missing ')'.", part)
			}
			last := ""
			for _, w := range strings.Split(strings.TrimSuffix(opts, ")"), ",") {
				k, v, ok := strings.Cut(w, "=")
				if !ok {
					if last == "" {
						return nil, fmt.Errorf("Incorrect NFS option %q for client %s.", w, spec)
					}
					c.Options[last] += "," + strings.TrimSpace(w)
					continue
				}
				k = strings.TrimSpace(k)
				canon := ""
				for name := range nfsOptions {
					if strings.EqualFold(name, k) {
						canon = name
					}
				}
				if canon == "" {
					return nil, fmt.Errorf("Unknown NFS export option %s for client %s.", k, spec)
				}
				c.Options[canon] = strings.ToUpper(strings.TrimSpace(v))
				last = canon
			}
			for k, v := range c.Options {
				allowed := nfsOptions[k]
				if allowed == nil {
					if _, err := strconv.Atoi(v); err != nil {
						return nil, fmt.Errorf("Incorrect value %s for NFS option %s.", v, k)
					}
					continue
				}
				if !slices.Contains(allowed, v) {
					return nil, fmt.Errorf("Incorrect value %s for NFS option %s (want one of %s).", v, k, strings.Join(allowed, ", "))
				}
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("6027-1268 Missing arguments: --client.")
	}
	return out, nil
}

func mmnfs(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "--client", "--nfsadd", "--nfsremove", "--nfschange")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) < 2 || f.pos[0] != "export" {
			return g.fail("6027-1268 Missing arguments: mmnfs export add|list|remove ...")
		}
		if !slices.Contains(g.st.CES.Services, "NFS") {
			return g.fail("The NFS service is not enabled: run mmces service enable NFS.")
		}
		var b strings.Builder
		switch f.pos[1] {
		case "add":
			if len(f.pos) != 3 {
				return g.fail("6027-1268 Missing arguments: the export path.")
			}
			p, err := g.exportPath(e, f.pos[2])
			if err != nil {
				return g.fail("%v", err)
			}
			if slices.ContainsFunc(g.st.Exports, func(x *gpfsExport) bool { return x.Path == p }) {
				return g.fail("An export for %s already exists: change it with mmnfs export change.", p)
			}
			clients, err := parseClients(f.vals["--client"])
			if err != nil {
				return g.fail("%v", err)
			}
			g.st.Exports = append(g.st.Exports, &gpfsExport{Path: p, Clients: clients})
			g.dirty = true
			fmt.Fprintf(e.Stdout, "%s: The NFS export was created successfully.\n", e.tool)
		case "remove":
			if len(f.pos) != 3 {
				return g.fail("6027-1268 Missing arguments: the export path.")
			}
			p := path.Clean(f.pos[2])
			n := len(g.st.Exports)
			g.st.Exports = slices.DeleteFunc(g.st.Exports, func(x *gpfsExport) bool { return x.Path == p })
			if len(g.st.Exports) == n {
				return g.fail("There is no NFS export for %s.", p)
			}
			g.dirty = true
			fmt.Fprintf(e.Stdout, "%s: The NFS export was deleted successfully.\n", e.tool)
		case "list":
			cols := []string{"Path", "Delegations", "Clients", "Access_Type", "Protocols", "Transports", "Squash", "Anonymous_uid", "Anonymous_gid", "SecType", "PrivilegedPort", "DefaultDelegations", "Manage_Gids", "NFS_Commit"}
			if f.set["-Y"] {
				yHeader(&b, "mmnfs", "nfsexports", cols...)
			} else {
				b.WriteString("Path                 Delegations Clients          Access_Type Protocols Transports Squash\n")
			}
			for _, x := range g.st.Exports {
				for _, c := range x.Clients {
					v := func(k string) string {
						if o, ok := c.Options[k]; ok {
							return o
						}
						return nfsDefaults[k]
					}
					if f.set["-Y"] {
						yData(&b, "mmnfs", "nfsexports", false, x.Path, v("Delegations"), c.Spec, v("Access_Type"), v("Protocols"), v("Transports"),
							v("Squash"), v("Anonymous_uid"), v("Anonymous_gid"), v("SecType"), v("PrivilegedPort"), "NONE", v("Manage_Gids"), v("NFS_Commit"))
					} else {
						fmt.Fprintf(&b, "%-20s %-11s %-16s %-11s %-9s %-10s %s\n", x.Path, v("Delegations"), c.Spec, v("Access_Type"), v("Protocols"), v("Transports"), v("Squash"))
					}
				}
			}
		default:
			return g.fail("mmnfs export %s is not simulated.", f.pos[1])
		}
		fmt.Fprint(e.Stdout, b.String())
		return 0
	})
}
