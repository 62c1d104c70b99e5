package sim

// ceph follows the ceph(8) CLI of Ceph Pacific (16.2) for the commands the
// provider issues (see CONTRACTS.md, "Ceph commands"):
//
//	ceph orch host add|rm|ls|label add ; ceph orch apply -i FILE
//	ceph orch ls [--export] ; ceph orch device ls [--refresh] ; ceph orch ps
//	ceph osd tree ; ceph mon dump ; ceph status ; ceph health detail
//	ceph osd pool create|set|get|ls [detail]|application enable|rm
//	ceph auth get-or-create|get|del ; ceph config set|get
//	ceph fsid ; ceph versions
//
// Global options (-f/--format json|json-pretty|plain, -c, -k, -n/--name,
// --id, --cluster) are taken anywhere on the line. The client connects as
// real ceph does: it needs the ceph.conf (default /etc/ceph/ceph.conf)
// naming the cluster's fsid and monitors, and a keyring holding its
// entity's current key (default /etc/ceph/ceph.<entity>.keyring);
// otherwise it fails as librados does ("error connecting to the cluster",
// exit 1). Errors are "Error ENAME: message" on stderr with the errno as
// the exit status; messages follow the monitor's and the cephadm
// module's (OSDMonitor.cc, mgr/cephadm, mgr/orchestrator in Pacific).

import (
	"fmt"
	"strings"
)

// cephArgs are one ceph command line without its global options.
type cephArgs struct {
	words   []string
	format  string // "", json, json-pretty, plain, yaml
	conf    string
	keyring string
	entity  string
	outFile string
	flags   map[string]string // --long[=value] options of the command itself
}

func parseCephArgs(args []string) cephArgs {
	a := cephArgs{conf: cephConfPath, entity: "client.admin", flags: map[string]string{}}
	for i := 0; i < len(args); i++ {
		w := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		name, val, hasVal := strings.Cut(w, "=")
		switch name {
		case "-f", "--format":
			if !hasVal {
				val = next()
			}
			a.format = val
		case "-c", "--conf":
			if !hasVal {
				val = next()
			}
			a.conf = val
		case "-k", "--keyring":
			if !hasVal {
				val = next()
			}
			a.keyring = val
		case "-n", "--name":
			if !hasVal {
				val = next()
			}
			a.entity = val
		case "--id", "--user":
			if !hasVal {
				val = next()
			}
			a.entity = "client." + val
		case "--cluster":
			if !hasVal {
				next()
			}
		case "-o", "--out-file":
			if !hasVal {
				val = next()
			}
			a.outFile = val
		case "-i", "--in-file", "--size", "--image-feature", "--pool", "--namespace", "--image", "-p", "--options":
			if !hasVal {
				val = next()
			}
			if old := a.flags[name]; old != "" && name == "--image-feature" {
				val = old + "," + val // rbd takes the option repeated
			}
			a.flags[name] = val
		default:
			if strings.HasPrefix(w, "-") && len(w) > 1 {
				a.flags[name] = val
				if !hasVal {
					a.flags[name] = "true"
				}
				continue
			}
			a.words = append(a.words, w)
		}
	}
	return a
}

func (a cephArgs) json() bool { return strings.HasPrefix(a.format, "json") }

func (a cephArgs) pretty() bool { return a.format == "json-pretty" }

// connect is librados's connection: the conf file, the monitors it names,
// the keyring with the entity's key. It returns the opened cluster (the
// caller closes it) or the exit status of the failure.
func (e *Env) connect(a cephArgs, prog string) (*cephCluster, int) {
	conf, err := e.read(a.conf)
	if err != nil || conf == nil {
		fmt.Fprintf(e.Stderr, "Error initializing cluster client: ObjectNotFound('RADOS object not found (error calling conf_read_file)')\n")
		if prog != "ceph" {
			fmt.Fprintf(e.Stderr, "%s: couldn't connect to the cluster!\n", prog)
		}
		return nil, 1
	}
	c, err := e.openCeph()
	if err != nil {
		fmt.Fprintf(e.Stderr, "%v\n", err)
		return nil, 1
	}
	fail := func(why string) (*cephCluster, int) {
		c.close()
		if prog == "ceph" {
			fmt.Fprintf(e.Stderr, "[errno %s] RADOS %s (error connecting to the cluster)\n", why, map[string]string{"2": "object not found", "13": "permission denied", "110": "timed out"}[why])
		} else {
			fmt.Fprintf(e.Stderr, "%s: couldn't connect to the cluster!\n", prog)
		}
		return nil, 1
	}
	vals := confValues(string(conf))
	if !c.exists() {
		return fail("110")
	}
	if fsid := vals["fsid"]; fsid != "" && fsid != c.st.FSID {
		return fail("110")
	}
	monOK := false
	for _, d := range c.st.Daemons {
		if h := c.host(d.Host); d.Type == "mon" && h != nil && strings.Contains(vals["mon_host"], h.Addr) {
			monOK = true
		}
	}
	if !monOK {
		return fail("110")
	}
	keyring := a.keyring
	if keyring == "" {
		keyring = vals["keyring"]
	}
	if keyring == "" {
		keyring = "/etc/ceph/ceph." + a.entity + ".keyring"
	}
	keyring = strings.ReplaceAll(keyring, "$name", a.entity)
	kr, _ := e.read(keyring)
	if kr == nil {
		return fail("2")
	}
	auth := c.auth(a.entity)
	if auth == nil || keyringKey(string(kr), a.entity) != auth.Key {
		return fail("13")
	}
	return c, 0
}

// confValues reads key = value lines of a ceph.conf (spaces and _ alike).
func confValues(conf string) map[string]string {
	out := map[string]string{}
	for _, l := range splitLines(conf) {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' || l[0] == ';' || l[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		out[strings.ReplaceAll(strings.TrimSpace(k), " ", "_")] = strings.TrimSpace(v)
	}
	return out
}

// keyringKey is entity's key in a keyring file.
func keyringKey(kr, entity string) string {
	in := false
	for _, l := range splitLines(kr) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			in = strings.Trim(l, "[]") == entity
			continue
		}
		if k, v, ok := strings.Cut(l, "="); in && ok && strings.TrimSpace(k) == "key" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func ceph(e *Env, args []string) int {
	a := parseCephArgs(args)
	if a.flags["-s"] != "" {
		a.words = append([]string{"status"}, a.words...)
	}
	if len(a.words) == 0 {
		return e.fail(22, "no valid command found")
	}
	c, code := e.connect(a, "ceph")
	if c == nil {
		return code
	}
	defer c.close()
	w := a.words
	switch {
	case w[0] == "orch":
		return c.orch(a, w[1:])
	case len(w) >= 2 && w[0] == "osd" && w[1] == "pool":
		return c.osdPool(a, w[2:])
	case len(w) == 2 && w[0] == "osd" && w[1] == "tree":
		return c.osdTree(a)
	case len(w) == 2 && w[0] == "osd" && (w[1] == "ls" || w[1] == "stat"):
		return c.osdLs(a)
	case len(w) == 2 && w[0] == "mon" && w[1] == "dump":
		return c.monDump(a)
	case w[0] == "status" || w[0] == "-s":
		return c.status(a)
	case w[0] == "health":
		return c.health(a, len(w) > 1 && w[1] == "detail")
	case w[0] == "auth":
		return c.authCmd(a, w[1:])
	case w[0] == "config":
		return c.configCmd(a, w[1:])
	case w[0] == "osd" || w[0] == "pg" || w[0] == "config-key":
		if code, ok := c.maintCmd(a, w); ok {
			return code
		}
	case w[0] == "fsid":
		fmt.Fprintln(e.Stdout, c.st.FSID)
		return 0
	case w[0] == "versions":
		e.printJSON(map[string]any{"overall": map[string]int{"ceph version " + cephVersion + " pacific (stable)": len(c.st.Daemons)}}, a.pretty())
		return 0
	}
	return e.cephErr(cephErrnoEINVAL, "unrecognized command %q (the lab simulates the commands listed in the lab guide)", strings.Join(w, " "))
}
