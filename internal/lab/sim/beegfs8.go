package sim

// BeeGFS 8 (ThinkParQ/beegfs-rust mgmtd, ThinkParQ/beegfs-go ctl):
//
//   - beegfs-mgmtd --init | --import-from-v7=DIR [--config-file=PATH]
//     [--db-file=PATH] reads the TOML config strictly (an unknown key or a
//     value of the wrong type is refused, as the daemon's
//     deny_unknown_fields serde struct does), then creates the database
//     file; it refuses one that exists ("File exists"). The import
//     needs a 7.x store: format.conf with version=5, and no target of the
//     file system needing a resync (import_v7.rs checks every target is
//     GOOD), and, as its help asks, no client mounted.
//   - Starting beegfs-mgmtd.service on a node with /etc/beegfs/beegfs-mgmtd.toml
//     runs the 8 daemon: it refuses to start without a valid config, the
//     database, the TLS certificate and key (unless tls-disable), the
//     auth file (unless auth-disable) and the license certificate (loading
//     a license is mandatory, beegfs-rust config.rs). The running 8 daemon
//     is cluster state (e.Shared("beegfs")): what the beegfs command talks to.
//   - beegfs (the CLI) finds the management service as beegfs-go does:
//     --mgmtd-addr, else the client mount's sysMgmtdHost; it needs TLS
//     (--tls-cert-file, default /etc/beegfs/cert.pem, the daemon's
//     certificate) unless --tls-disable, and the file system's secret
//     (--auth-file, default /etc/beegfs/conn.auth, else the mounted client's
//     connAuthFile) unless --auth-disable; a mismatch with the daemon fails
//     as the gRPC connection would. Subcommands: mirror create/list/init,
//     node list, entry set/info (--retro), health check. Table output is
//     beegfs-go's: upper-case column headers, columns padded with two
//     spaces; messages of create commands go to stderr.
//   - beegfs-setup-mgmtd (7.x) initialises a store: format.conf with
//     version=5, what the 8 import checks.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/BurntSushi/toml"
)

const (
	mgmtd8Conf    = "/etc/beegfs/beegfs-mgmtd.toml"
	mgmtd8Unit    = "beegfs-mgmtd.service"
	mgmtd8DefDB   = "/var/lib/beegfs/mgmtd.sqlite"
	beegfsCLICert = "/etc/beegfs/cert.pem"
	beegfsCLIAuth = "/etc/beegfs/conn.auth"
)

func init() { unitHooks[mgmtd8Unit] = mgmtd8Hook }

// mgmtd8Keys are the config file's keys and their TOML kinds
// (beegfs-rust mgmtd/src/config.rs, the fields not skipped by serde).
var mgmtd8Keys = map[string]string{
	"db-file": "string", "log-target": "string", "log-level": "string", "beemsg-port": "int", "grpc-port": "int",
	"port-shift": "int", "tls-disable": "bool", "tls-cert-file": "string", "tls-key-file": "string", "interfaces": "array",
	"ipv6-disable": "bool", "connection-limit": "int", "auth-disable": "bool", "auth-file": "string",
	"registration-disable": "bool", "node-offline-timeout": "duration", "client-auto-remove-timeout": "duration",
	"license-cert-file": "string", "license-lib-file": "string", "max-blocking-threads": "int", "quota-enable": "bool",
	"quota-enforce": "bool", "quota-update-interval": "duration", "quota-user-system-ids-min": "int",
	"quota-user-ids-file": "string", "quota-user-ids-range": "string", "quota-group-system-ids-min": "int",
	"quota-group-ids-file": "string", "quota-group-ids-range": "string", "cap-pool-meta-limits": "table",
	"cap-pool-dynamic-meta-limits": "table", "cap-pool-storage-limits": "table", "cap-pool-dynamic-storage-limits": "table",
	"daemonize": "bool", "daemonize-pid-file": "string",
}

var reDuration = regexp.MustCompile(`^(\d+(ms|s|m|h|d))+$`)

// mgmtd8Config is the parsed config with the daemon's defaults.
type mgmtd8Config struct {
	DBFile, TLSCert, TLSKey, AuthFile, License string
	TLSDisable, AuthDisable                    bool
	QuotaEnable, QuotaEnforce                  bool
}

// loadMgmtd8 reads the config file (missing: the defaults, as the daemon
// does for its default path).
func (e *Env) loadMgmtd8(p string) (mgmtd8Config, error) {
	c := mgmtd8Config{DBFile: mgmtd8DefDB, TLSCert: "/etc/beegfs/cert.pem", TLSKey: "/etc/beegfs/key.pem",
		AuthFile: beegfsCLIAuth, License: "/etc/beegfs/license.pem"}
	data, err := e.read(p)
	if err != nil || data == nil {
		if p != mgmtd8Conf && data == nil && err == nil {
			return c, fmt.Errorf("Could not open config file at %q: No such file or directory (os error 2)", p)
		}
		return c, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return c, fmt.Errorf("Could not parse config file %q: %v", p, err)
	}
	for _, k := range sortedAnyKeys(raw) {
		v := raw[k]
		kind, ok := mgmtd8Keys[k]
		if !ok {
			return c, fmt.Errorf("Could not parse config file %q: unknown field `%s`", p, k)
		}
		okType := false
		switch kind {
		case "string":
			_, okType = v.(string)
		case "int":
			n, isInt := v.(int64)
			okType = isInt && n >= 0
		case "bool":
			_, okType = v.(bool)
		case "array":
			_, okType = v.([]any)
		case "table":
			_, okType = v.(map[string]any)
		case "duration":
			s, isStr := v.(string)
			okType = isStr && reDuration.MatchString(s)
		}
		if !okType {
			return c, fmt.Errorf("Could not parse config file %q: invalid value for `%s` (want %s): %v", p, k, kind, v)
		}
		s, _ := v.(string)
		b, _ := v.(bool)
		switch k {
		case "db-file":
			c.DBFile = s
		case "tls-cert-file":
			c.TLSCert = s
		case "tls-key-file":
			c.TLSKey = s
		case "auth-file":
			c.AuthFile = s
		case "license-cert-file":
			c.License = s
		case "tls-disable":
			c.TLSDisable = b
		case "auth-disable":
			c.AuthDisable = b
		case "quota-enable":
			c.QuotaEnable = b
		case "quota-enforce":
			c.QuotaEnforce = b
		}
	}
	if c.QuotaEnforce && !c.QuotaEnable {
		return c, errors.New("Quota enforcement requires quota being enabled")
	}
	return c, nil
}

func sortedAnyKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mgmtd8DB is the simulated SQLite store.
type mgmtd8DB struct {
	Version      int    `json:"schema_version"`
	ImportedFrom string `json:"imported_from,omitempty"`
}

func beegfsMgmtd(e *Env, args []string) int {
	opts := map[string]string{}
	for _, a := range args {
		k, ok := strings.CutPrefix(a, "--")
		if !ok {
			return e.fail(2, "error: unexpected argument '%s' found", a)
		}
		k, v, _ := strings.Cut(k, "=")
		opts[k] = v
	}
	confPath := mgmtd8Conf
	if v, ok := opts["config-file"]; ok {
		confPath = v
	}
	c, err := e.loadMgmtd8(confPath)
	if err != nil {
		return e.fail(1, "%v", err)
	}
	if v, ok := opts["db-file"]; ok {
		c.DBFile = v
	}
	_, initDB := opts["init"]
	from, imp := opts["import-from-v7"]
	if !initDB && !imp {
		return e.fail(1, "the management daemon runs as a service here (systemctl start beegfs-mgmtd); use --init or --import-from-v7")
	}
	db := mgmtd8DB{Version: 6}
	if imp {
		if !path.IsAbs(from) {
			return e.fail(1, "Initializing database failed: v7 management data import failed: want an absolute path, got %q", from)
		}
		conf, _ := e.read(from + "/format.conf")
		if conf == nil {
			return e.fail(1, "Initializing database failed: v7 management data import failed: on-disk-format (format.conf): No such file or directory (os error 2)")
		}
		if strings.Count(string(conf), "version") != 1 || !strings.Contains("\n"+string(conf), "\nversion=5\n") {
			return e.fail(1, "Initializing database failed: v7 management data import failed: on-disk-format (format.conf): Unexpected version in format.conf: Expected \"version=5\"")
		}
		var notGood, mounted []string
		if err := e.withMirror(func(st *mirrorState) (bool, error) {
			mounted = st.Clients
			for _, ts := range st.Targets {
				for _, t := range ts {
					if t.Resync {
						notGood = append(notGood, strconv.Itoa(t.ID))
					}
				}
			}
			return false, nil
		}); err != nil {
			return e.fail(1, "%v", err)
		}
		// The import guide: every client unmounted first (beegfs-rust
		// config.rs, --import-from-v7); the lab enforces it.
		if len(mounted) > 0 {
			return e.fail(1, "Initializing database failed: v7 management data import failed: clients are still mounted (%s): "+
				"unmount every client before importing", strings.Join(mounted, ", "))
		}
		if len(notGood) > 0 {
			return e.fail(1, "Initializing database failed: v7 management data import failed: storage targets (targetStates): targets [%s] are not in GOOD state", strings.Join(notGood, ", "))
		}
		db.ImportedFrom = from
	}
	if e.exists(c.DBFile) {
		return e.fail(1, "Creating database file %q failed: File exists (os error 17)", c.DBFile)
	}
	data, _ := json.Marshal(db)
	if err := e.write(c.DBFile, append(data, '\n')); err != nil {
		return e.fail(1, "Creating database file %q failed: %v", c.DBFile, err)
	}
	fmt.Fprintf(e.Stdout, "Created new database version %d at %q.", db.Version, c.DBFile)
	if imp {
		fmt.Fprintf(e.Stdout, " Imported v7 management data from %q.", from)
	}
	fmt.Fprintln(e.Stdout)
	return 0
}

// mgmtd8State is the running BeeGFS 8 management daemon, as clients of
// its gRPC service see it.
type mgmtd8State struct {
	Node       string `json:"node"`
	TLSDisable bool   `json:"tls_disable"`
	CertSHA    string `json:"cert_sha,omitempty"`
	// AuthSHA is the connection secret (its first line), empty with
	// auth-disable.
	AuthSHA     string `json:"auth_sha,omitempty"`
	AuthDisable bool   `json:"auth_disable"`
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func secretSHA(b []byte) string {
	line, _, _ := strings.Cut(string(b), "\n")
	return sha([]byte(strings.TrimSpace(line)))
}

// mgmtd8Hook starts and stops the 8 daemon where its TOML config is; a
// node without one runs 7.x's mgmtd (nothing to check here).
func mgmtd8Hook(e *Env, _ *Systemd, start bool) error {
	if !e.exists(mgmtd8Conf) {
		return nil
	}
	node := e.hostname()
	if !start {
		return e.withMirror(func(st *mirrorState) (bool, error) {
			if st.Mgmtd8 != nil && st.Mgmtd8.Node == node {
				st.Mgmtd8 = nil
				return true, nil
			}
			return false, nil
		})
	}
	c, err := e.loadMgmtd8(mgmtd8Conf)
	if err != nil {
		return err
	}
	if !e.exists(c.DBFile) {
		return fmt.Errorf("Opening database file %q failed: it does not exist: initialize it with --init (or --import-from-v7)", c.DBFile)
	}
	run := mgmtd8State{Node: node, TLSDisable: c.TLSDisable, AuthDisable: c.AuthDisable}
	if !c.TLSDisable {
		cert, _ := e.read(c.TLSCert)
		key, _ := e.read(c.TLSKey)
		if cert == nil || key == nil {
			return fmt.Errorf("Setting up gRPC TLS failed: reading %s or %s: No such file or directory (os error 2)", c.TLSCert, c.TLSKey)
		}
		run.CertSHA = sha(cert)
	}
	if !c.AuthDisable {
		auth, _ := e.read(c.AuthFile)
		if len(strings.TrimSpace(string(auth))) == 0 {
			return fmt.Errorf("Reading auth file %s failed: No such file or directory (os error 2)", c.AuthFile)
		}
		run.AuthSHA = secretSHA(auth)
	}
	if lic, _ := e.read(c.License); !strings.Contains(string(lic), "-----BEGIN") {
		return fmt.Errorf("Loading license certificate %s failed: no license loaded (loading a license is mandatory)", c.License)
	}
	return e.withMirror(func(st *mirrorState) (bool, error) {
		if st.Mgmtd8 != nil && st.Mgmtd8.Node != node {
			return false, fmt.Errorf("another management service runs on %s: one per file system", st.Mgmtd8.Node)
		}
		st.Mgmtd8 = &run
		return true, nil
	})
}

// beegfsSetupMgmtd is 7.x's beegfs-setup-mgmtd -p DIR [-C]: it creates the
// store with its format.conf.
func beegfsSetupMgmtd(e *Env, args []string) int {
	dir := ""
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-p":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case "-C", "-f", "-q":
		default:
			return e.fail(1, "unknown option %s", args[i])
		}
	}
	if !path.IsAbs(dir) {
		return e.fail(1, "ERROR: a management directory (-p) is required, as an absolute path")
	}
	if e.exists(dir + "/format.conf") {
		return 0
	}
	if err := e.write(dir+"/format.conf", []byte("# This file was auto-generated. Do not modify it!\nversion=5\n")); err != nil {
		return e.fail(1, "%v", err)
	}
	return 0
}

// cliFlags splits the beegfs command's arguments into flags and words.
func cliFlags(args []string) (map[string]string, []string) {
	flags := map[string]string{}
	var words []string
	for _, a := range args {
		if k, ok := strings.CutPrefix(a, "--"); ok {
			k, v, has := strings.Cut(k, "=")
			if !has {
				v = "true"
			}
			flags[k] = v
			continue
		}
		words = append(words, a)
	}
	return flags, words
}

// clientMount is the first BeeGFS mount of the node and its config.
func (e *Env) clientMount() (mount, conf string) {
	data, _ := e.read("/proc/mounts")
	for _, l := range splitLines(string(data)) {
		f := strings.Fields(l)
		if len(f) >= 4 && f[2] == "beegfs" {
			for _, o := range strings.Split(f[3], ",") {
				if v, ok := strings.CutPrefix(o, "cfgFile="); ok {
					return f[1], v
				}
			}
			return f[1], ""
		}
	}
	return "", ""
}

func confValue(conf, key string) string {
	for _, l := range strings.Split(conf, "\n") {
		k, v, ok := strings.Cut(l, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// connect checks the CLI reaches the 8 daemon the way beegfs-go would.
func (e *Env) beegfsConnect(flags map[string]string, st *mirrorState) error {
	mount, cfg := e.clientMount()
	var clientConf string
	if cfg != "" {
		b, _ := e.read(cfg)
		clientConf = string(b)
	}
	if flags["mgmtd-addr"] == "" && mount == "" {
		return errors.New("unable to auto-configure the management address: BeeGFS does not appear to be mounted, manually " +
			"specify --mgmtd-addr <hostname|ip>:<grpc-port> for the file system to manage")
	}
	m := st.Mgmtd8
	if m == nil {
		return errors.New("connecting to the management service failed: rpc error: code = Unavailable desc = connection refused")
	}
	if flags["tls-disable"] != "true" {
		certPath := beegfsCLICert
		if v, ok := flags["tls-cert-file"]; ok {
			certPath = v
		}
		cert, _ := e.read(certPath)
		switch {
		case cert == nil:
			return fmt.Errorf("reading certificate file failed: open %s: no such file or directory (hint: run 'beegfs --help' "+
				"and review the options to configure TLS)", certPath)
		case m.TLSDisable:
			return errors.New("rpc error: code = Unavailable desc = connection error: tls: first record does not look like a TLS handshake")
		case sha(cert) != m.CertSHA:
			return errors.New("rpc error: code = Unavailable desc = connection error: tls: failed to verify certificate: x509: certificate signed by unknown authority")
		}
	} else if !m.TLSDisable {
		return errors.New("rpc error: code = Unavailable desc = connection closed before server preface received")
	}
	if flags["auth-disable"] != "true" {
		authPath, auth := flags["auth-file"], []byte(nil)
		if authPath == "" {
			authPath = beegfsCLIAuth
			if auth, _ = e.read(authPath); auth == nil {
				if authPath = confValue(clientConf, "connAuthFile"); authPath == "" {
					return fmt.Errorf("couldn't read default auth file at %q: no such file or directory, and no auto-configured client auth file was found", beegfsCLIAuth)
				}
			}
		}
		if auth == nil {
			if auth, _ = e.read(authPath); auth == nil {
				return fmt.Errorf("couldn't read auth file at %q: no such file or directory", authPath)
			}
		}
		if !m.AuthDisable && secretSHA(auth) != m.AuthSHA {
			return errors.New("rpc error: code = Unauthenticated desc = authentication failed")
		}
	}
	return nil
}

// printTable prints rows as beegfs-go's table: upper-case headers,
// two spaces between columns.
func printTable(e *Env, cols []string, rows [][]string) {
	w := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
	up := make([]string, len(cols))
	for i, c := range cols {
		up[i] = strings.ToUpper(c)
	}
	fmt.Fprintln(w, strings.Join(up, "\t"))
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	w.Flush()
}

var reAlias = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-_.]*$`)

// entityID reads <type>:<id> of the wanted node type.
func entityID(v, nodeType string) (int, error) {
	t, id, ok := strings.Cut(v, ":")
	if !ok {
		return 0, fmt.Errorf("invalid alias '%s' or entity not found", v)
	}
	t = strings.ToLower(strings.TrimSpace(t))
	if t != nodeType && t != nodeType[:1] {
		return 0, fmt.Errorf("invalid id type specifier '%s' - accepted are '%s'", t, nodeType)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(id), 10, 16)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("invalid id '%s' - accepted is a range from 1 to 2^16 - 1", id)
	}
	return int(n), nil
}

func beegfsCLI(e *Env, args []string) int {
	flags, words := cliFlags(args)
	if o := flags["output"]; o != "" && o != "table" {
		return e.fail(1, "only --output=table is simulated")
	}
	if len(words) < 2 {
		return e.fail(1, "Error: want a command and a subcommand (mirror, node, entry, health)")
	}
	cmd := words[0] + " " + words[1]
	rest := words[2:]
	code := 0
	err := e.withMirror(func(st *mirrorState) (bool, error) {
		if err := e.beegfsConnect(flags, st); err != nil {
			return false, err
		}
		switch cmd {
		case "mirror create":
			return cliMirrorCreate(e, flags, rest, st)
		case "mirror list":
			return false, cliMirrorList(e, flags, st)
		case "mirror init":
			if flags["yes"] != "true" {
				fmt.Fprintln(e.Stderr, "Initialize mirroring for the root directory cannot be undone. Specify --yes to continue.")
				code = 1
				return false, nil
			}
			switch {
			case len(st.Groups["meta"]) == 0:
				return false, errors.New("no metadata buddy groups defined: create them with beegfs mirror create --node-type=meta first")
			case st.MirrorMD:
				return false, errors.New("root inode is already mirrored")
			case len(st.Clients) > 0:
				return false, fmt.Errorf("clients are still mounted (%s): unmount every client first", strings.Join(st.Clients, ", "))
			}
			st.MirrorMD = true
			fmt.Fprintln(e.Stderr, "Successfully initialized mirroring for the root directory. Restart all metadata servers now.")
			return true, nil
		case "node list":
			if nt := flags["node-type"]; nt != "client" {
				return false, fmt.Errorf("only --node-type=client is simulated, got %q", nt)
			}
			var rows [][]string
			for i, c := range st.Clients {
				rows = append(rows, []string{fmt.Sprintf("c:%d", i+1), "client", c})
			}
			printTable(e, []string{"id", "type", "alias"}, rows)
			return false, nil
		case "entry set", "entry info":
			return false, cliEntry(e, cmd == "entry set", flags, rest)
		case "health check":
			fmt.Fprintln(e.Stdout, "Management service reachable; all checks passed.")
			return false, nil
		}
		return false, fmt.Errorf("unknown command %q", cmd)
	})
	if err != nil {
		return e.fail(1, "Error: %v", err)
	}
	return code
}

func cliMirrorCreate(e *Env, flags map[string]string, rest []string, st *mirrorState) (bool, error) {
	if len(rest) != 1 || !reAlias.MatchString(rest[0]) {
		return false, fmt.Errorf("want one alias that starts with a letter and holds only letters, digits, '-', '_' and '.', got %q", rest)
	}
	nt := flags["node-type"]
	if nt != "storage" && nt != "meta" {
		return false, fmt.Errorf("required flag \"node-type\" not set or invalid (%q): want meta or storage", nt)
	}
	for _, f := range []string{"primary", "secondary"} {
		if flags[f] == "" {
			return false, fmt.Errorf("required flag(s) %q not set", f)
		}
	}
	p, err := entityID(flags["primary"], nt)
	if err != nil {
		return false, err
	}
	s, err := entityID(flags["secondary"], nt)
	if err != nil {
		return false, err
	}
	if p == s {
		return false, errors.New("primary and secondary target must differ")
	}
	id := 0
	if v := flags["num-id"]; v != "" && v != "0" {
		n, err := strconv.ParseUint(v, 10, 16)
		if err != nil {
			return false, fmt.Errorf("invalid argument %q for \"--num-id\" flag", v)
		}
		id = int(n)
	}
	for _, gs := range st.Groups {
		for _, o := range gs {
			if o.Alias == rest[0] {
				return false, fmt.Errorf("alias %s already exists", rest[0])
			}
		}
	}
	max := 0
	for _, o := range st.Groups[nt] {
		if o.ID == id {
			return false, fmt.Errorf("buddy group with id %d already exists", id)
		}
		for _, m := range []int{p, s} {
			if m == o.Primary || m == o.Secondary {
				return false, fmt.Errorf("%s:%d is already part of a buddy group", nt, m)
			}
		}
		if o.ID > max {
			max = o.ID
		}
	}
	if id == 0 {
		id = max + 1
	}
	st.Groups[nt] = append(st.Groups[nt], mirrorGroup{ID: id, Primary: p, Secondary: s, Alias: rest[0]})
	fmt.Fprintf(e.Stderr, "Buddy group created: %s (%s:%d)\n", rest[0], nt[:1], id)
	return true, nil
}

func cliMirrorList(e *Env, flags map[string]string, st *mirrorState) error {
	var rows [][]string
	for _, nt := range []string{"meta", "storage"} {
		if f := flags["node-type"]; f != "" && f != nt {
			continue
		}
		gs := append([]mirrorGroup(nil), st.Groups[nt]...)
		sort.Slice(gs, func(i, j int) bool { return gs[i].ID < gs[j].ID })
		for _, g := range gs {
			alias := g.Alias
			if alias == "" {
				alias = fmt.Sprintf("%s_group_%d", nt, g.ID) // defined with 7.x, imported
			}
			t := nt[:1]
			rows = append(rows, []string{alias, fmt.Sprintf("%s:%d", t, g.ID), nt, fmt.Sprintf("%s:%d", t, g.Primary), "good",
				fmt.Sprintf("%s:%d", t, g.Secondary), "good"})
		}
	}
	if len(st.Groups["meta"])+len(st.Groups["storage"]) == 0 {
		return errors.New("no mirrors configured")
	}
	printTable(e, []string{"alias", "id", "type", "primary_target", "primary_consistency", "secondary_target", "secondary_consistency"}, rows)
	return nil
}

// iecChunk is how beegfs-go prints a size: 512Ki, 1Mi.
func iecChunk(b int64) string {
	for _, u := range []struct {
		s string
		n int64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if b%u.n == 0 {
			return strconv.FormatInt(b/u.n, 10) + u.s
		}
	}
	return strconv.FormatInt(b, 10)
}

func cliEntry(e *Env, set bool, flags map[string]string, paths []string) error {
	mount, _ := e.clientMount()
	if len(paths) != 1 || !path.IsAbs(paths[0]) {
		return fmt.Errorf("want one absolute path, got %q", paths)
	}
	dir := path.Clean(paths[0])
	if mount == "" || dir != mount && !strings.HasPrefix(dir, mount+"/") {
		return fmt.Errorf("unable to find a BeeGFS mount point for path %s", dir)
	}
	if _, err := e.Root.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stat %s: no such file or directory", dir)
	}
	m, err := e.loadStripes()
	if err != nil {
		return err
	}
	cur := stripeOf(m, dir)
	if !set {
		if flags["retro"] != "true" {
			return errors.New("only --retro output is simulated")
		}
		typ := "RAID0"
		if cur.BuddyMirror {
			typ = "Buddy Mirror"
		}
		pool := "default"
		if cur.Pool != 1 {
			pool = fmt.Sprintf("pool_%d", cur.Pool)
		}
		fmt.Fprintf(e.Stdout, "Entry type: directory\nMetadata Node: meta_1 [ID: 1]\nStripe pattern details:\n+ Type: %s\n"+
			"+ Chunksize: %s\n+ Number of storage targets: desired: %d\n+ Storage Pool: %d  (%s)\n", typ, iecChunk(cur.ChunkSize),
			cur.NumTargets, cur.Pool, pool)
		return nil
	}
	if v, ok := flags["pattern"]; ok {
		switch v {
		case "raid0":
			cur.BuddyMirror = false
		case "mirrored":
			cur.BuddyMirror = true
		default:
			return fmt.Errorf("invalid argument %q for \"--pattern\" flag: valid patterns: raid0, mirrored", v)
		}
	}
	if v, ok := flags["chunk-size"]; ok {
		n, err := parseIEC(v)
		if err != nil {
			return fmt.Errorf("invalid argument %q for \"--chunk-size\" flag: %v", v, err)
		}
		if n < 64<<10 || n > 4<<30 {
			return fmt.Errorf("invalid argument %q for \"--chunk-size\" flag: parsed chunksize (%d bytes) is out of bounds (must be between %d bytes and %d bytes)", v, n, 64<<10, int64(4<<30))
		}
		if n&(n-1) != 0 {
			return fmt.Errorf("invalid argument %q for \"--chunk-size\" flag: chunksize is not a power of 2: %d", v, n)
		}
		cur.ChunkSize = n
	}
	if v, ok := flags["num-targets"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("invalid argument %q for \"--num-targets\" flag", v)
		}
		cur.NumTargets = n
	}
	if v, ok := flags["pool"]; ok {
		n, err := strconv.ParseUint(strings.TrimPrefix(v, "storage:"), 10, 16)
		if err != nil || n < 1 {
			return fmt.Errorf("invalid argument %q for \"--pool\" flag", v)
		}
		cur.Pool = int(n)
	}
	m[dir] = cur
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return e.write(StripePath, append(data, '\n'))
}

// parseIEC reads 1048576, 512Ki, 1Mi (beegfs-go util.ParseIntFromStr).
func parseIEC(v string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		s string
		n int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}} {
		if s, ok := strings.CutSuffix(v, u.s); ok {
			v, mult = s, u.n
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a size: %q", v)
	}
	return n * mult, nil
}
