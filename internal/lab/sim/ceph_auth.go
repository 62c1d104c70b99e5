package sim

// ceph auth and ceph config follow the monitor's AuthMonitor and
// ConfigMonitor in Ceph Pacific:
//
//	auth get-or-create ENTITY [TYPE CAPS]... [-o FILE]
//	    creates the entity with a new key, or returns the existing one when
//	    the caps given are its caps; different caps are refused ("key for E
//	    exists but cap T does not match", EINVAL). It prints (or writes to
//	    FILE, in the root it runs in, mode 0644 as the CLI's umask gives)
//	    the keyring without caps.
//	auth get ENTITY [-f json]  [{"entity","key","caps"}]; missing: ENOENT
//	    "failed to find E in keyring"
//	auth del ENTITY
//	config set WHO OPTION VALUE ; config get WHO OPTION ; config rm WHO OPTION

import (
	"fmt"
	"strings"
)

func validEntity(s string) bool {
	t, id, ok := strings.Cut(s, ".")
	return ok && id != "" && (t == "client" || t == "osd" || t == "mon" || t == "mgr" || t == "mds")
}

func (c *cephCluster) authCmd(a cephArgs, w []string) int {
	e := c.e
	if len(w) < 2 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: auth %s", strings.Join(w, " "))
	}
	ent := w[1]
	if !validEntity(ent) {
		return e.cephErr(cephErrnoEINVAL, "bad entity name")
	}
	switch w[0] {
	case "get-or-create", "get-or-create-key":
		caps := map[string]string{}
		rest := w[2:]
		if len(rest)%2 != 0 {
			return e.cephErr(cephErrnoEINVAL, "caps must be given as TYPE CAPS pairs")
		}
		for i := 0; i < len(rest); i += 2 {
			caps[rest[i]] = rest[i+1]
		}
		au := c.auth(ent)
		if au != nil {
			for t, v := range caps {
				if au.Caps[t] != v {
					return e.cephErr(cephErrnoEINVAL, "key for %s exists but cap %s does not match", ent, t)
				}
			}
		} else {
			c.st.Auth = append(c.st.Auth, cephAuth{Entity: ent, Key: cephKey(), Caps: caps})
			if code := c.persist(); code != 0 {
				return code
			}
			au = c.auth(ent)
		}
		out := keyringText(*au, false)
		if w[0] == "get-or-create-key" {
			out = au.Key + "\n"
		}
		return c.output(a, out)
	case "get":
		au := c.auth(ent)
		if au == nil {
			return e.cephErr(cephErrnoENOENT, "failed to find %s in keyring", ent)
		}
		if a.json() {
			e.printJSON([]cephAuth{*au}, a.pretty())
			return 0
		}
		fmt.Fprintf(e.Stderr, "exported keyring for %s\n", ent)
		return c.output(a, keyringText(*au, true))
	case "del", "rm":
		if c.auth(ent) == nil {
			fmt.Fprintf(e.Stderr, "entity %s does not exist\n", ent)
			return 0
		}
		var keep []cephAuth
		for _, x := range c.st.Auth {
			if x.Entity != ent {
				keep = append(keep, x)
			}
		}
		c.st.Auth = keep
		if code := c.persist(); code != 0 {
			return code
		}
		fmt.Fprintln(e.Stderr, "updated")
		return 0
	}
	return e.cephErr(cephErrnoEINVAL, "invalid command: auth %s", strings.Join(w, " "))
}

// output prints s, or writes it to the -o file in this root.
func (c *cephCluster) output(a cephArgs, s string) int {
	if a.outFile == "" {
		fmt.Fprint(c.e.Stdout, s)
		return 0
	}
	if err := writeMode(c.e.Root, a.outFile, []byte(s), 0o644); err != nil {
		return c.e.cephErr(cephErrnoEINVAL, "can't open %s: %v", a.outFile, err)
	}
	return 0
}

// config is an option's value set for any daemon class ("" when unset).
func (c *cephCluster) config(option string) string {
	for _, who := range []string{"mon", "global"} {
		if v, ok := c.st.Config[who+"/"+option]; ok {
			return v
		}
	}
	return ""
}

func (c *cephCluster) configCmd(a cephArgs, w []string) int {
	e := c.e
	switch {
	case len(w) == 4 && w[0] == "set":
		c.st.Config[w[1]+"/"+w[2]] = w[3]
		return c.persist()
	case len(w) == 3 && w[0] == "get":
		v, ok := c.st.Config[w[1]+"/"+w[2]]
		if !ok {
			v = c.config(w[2])
		}
		if v == "" {
			v = "false"
		}
		fmt.Fprintln(e.Stdout, v)
		return 0
	case len(w) == 3 && w[0] == "rm":
		delete(c.st.Config, w[1]+"/"+w[2])
		return c.persist()
	}
	return e.cephErr(cephErrnoEINVAL, "invalid command: config %s", strings.Join(w, " "))
}
