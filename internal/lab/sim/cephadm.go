package sim

// cephadm follows cephadm(8) of Ceph Pacific for the forms the provider
// uses:
//
//	cephadm bootstrap --mon-ip IP [--cluster-network CIDR] [--skip-dashboard]
//	    [--skip-monitoring-stack] [--ssh-user USER] [--output-dir DIR]
//	    [--allow-fqdn-hostname] [--allow-overwrite] [--fsid FSID]
//	cephadm rm-cluster --fsid FSID --force [--zap-osds]
//
// bootstrap creates the cluster with this host as its first monitor and
// manager (and crash collector), adds the host to the orchestrator with
// the _admin label, applies cephadm's default mon (count 5), mgr (count 2)
// and crash specs, and writes ceph.conf, ceph.client.admin.keyring (0600)
// and ceph.pub to the output folder; the public key also goes into
// root's authorized_keys, as cephadm does for the first host. Refusals: a
// missing --mon-ip; an FQDN host name without --allow-fqdn-hostname; an
// existing ceph.conf or keyring in the output folder without
// --allow-overwrite; and (lab rule) a second cluster in the lab: the lab
// simulates one cluster. rm-cluster needs --force; it removes this host's
// daemons and files (and with --zap-osds wipes its OSD devices); the
// cluster ends with its last monitor.

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

func cephadm(e *Env, args []string) int {
	args, code := cephadmGlobal(e, args)
	if code != 0 {
		return code
	}
	if len(args) == 0 {
		return e.fail(2, "usage: cephadm [-h] {bootstrap,rm-cluster,...} ...")
	}
	switch args[0] {
	case "bootstrap":
		return cephadmBootstrap(e, args[1:])
	case "rm-cluster":
		return cephadmRmCluster(e, args[1:])
	case "version":
		fmt.Fprintf(e.Stdout, "ceph version %s (618f440892089921c3e944a991122ddc44e60516) pacific (stable)\n", cephVersion)
		return 0
	}
	return e.fail(2, "error: argument subcommand: invalid choice: '%s'", args[0])
}

// cephadmFlags parses --flag [value] options; bools lists the flags
// without a value. Unknown flags are refused as argparse does.
func cephadmFlags(e *Env, args []string, withValue, bools []string) (map[string]string, bool) {
	out := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case contains(bools, name) && !hasVal:
			out[name] = "true"
		case contains(withValue, name):
			if !hasVal {
				if i+1 >= len(args) {
					e.fail(2, "error: argument %s: expected one argument", name)
					return nil, false
				}
				i++
				val = args[i]
			}
			out[name] = val
		default:
			e.fail(2, "error: unrecognized arguments: %s", a)
			return nil, false
		}
	}
	return out, true
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func cephadmBootstrap(e *Env, args []string) int {
	f, ok := cephadmFlags(e, args,
		[]string{"--mon-ip", "--cluster-network", "--ssh-user", "--output-dir", "--fsid", "--initial-dashboard-user", "--initial-dashboard-password"},
		[]string{"--skip-dashboard", "--skip-monitoring-stack", "--allow-fqdn-hostname", "--allow-overwrite", "--skip-pull", "--single-host-defaults"})
	if !ok {
		return 2
	}
	ip := f["--mon-ip"]
	if ip == "" {
		return e.fail(1, "ERROR: must specify --mon-ip or --mon-addrv")
	}
	if net.ParseIP(ip) == nil {
		return e.fail(1, "ERROR: Failed to infer CIDR network for mon IP `%s`; pass --skip-mon-network to configure it later", ip)
	}
	if cn := f["--cluster-network"]; cn != "" {
		for _, n := range strings.Split(cn, ",") {
			if _, _, err := net.ParseCIDR(n); err != nil {
				return e.fail(1, "ERROR: Failed to parse --cluster-network %s: %v", cn, err)
			}
		}
	}
	host := e.hostname()
	if strings.Contains(host, ".") && f["--allow-fqdn-hostname"] == "" {
		return e.fail(1, "ERROR: hostname is a fully qualified domain name (%s); either fix (e.g., \"sudo hostname %s\" or similar) or pass --allow-fqdn-hostname",
			host, strings.SplitN(host, ".", 2)[0])
	}
	out := f["--output-dir"]
	if out == "" {
		out = "/etc/ceph"
	}
	if !path.IsAbs(out) {
		return e.fail(1, "ERROR: --output-dir %s must be an absolute path", out)
	}
	conf, keyring, pub := path.Join(out, "ceph.conf"), path.Join(out, "ceph.client.admin.keyring"), path.Join(out, "ceph.pub")
	if f["--allow-overwrite"] == "" {
		for _, p := range []string{conf, keyring, pub} {
			if e.exists(p) {
				return e.fail(1, "ERROR: %s already exists; delete or pass --allow-overwrite to overwrite", p)
			}
		}
	}
	user := f["--ssh-user"]
	if user == "" {
		user = "root"
	}
	c, err := e.openCeph()
	if err != nil {
		return e.fail(1, "ERROR: %v", err)
	}
	defer c.close()
	if c.exists() {
		return e.fail(1, "ERROR: this lab already runs a Ceph cluster (fsid %s, bootstrapped on %s); the lab simulates one cluster",
			c.st.FSID, c.st.BootstrapHost)
	}
	fsid := f["--fsid"]
	if fsid == "" {
		fsid = newUUID()
	}
	pubKey, privPEM, err := newSSHKey("ceph-" + fsid)
	if err != nil {
		return e.fail(1, "ERROR: %v", err)
	}
	now := time.Now().UTC()
	_, ipNet, _ := net.ParseCIDR(ip + "/24")
	c.st = cephState{FSID: fsid, Created: now, BootstrapHost: host, PublicNetwork: ipNet.String(), ClusterNetwork: f["--cluster-network"],
		SSHUser: user, SSHPublicKey: pubKey, MonEpoch: 1, OSDEpoch: 1, NextPG: 1,
		Config: map[string]string{}, Images: map[string][]rbdImg{}}
	c.st.Hosts = []cephHost{{Hostname: host, Addr: ip, Labels: []string{cephLabelAdmin}, Added: now}}
	c.st.Auth = []cephAuth{
		{Entity: "client.admin", Key: cephKey(), Caps: map[string]string{"mds": "allow *", "mgr": "allow *", "mon": "allow *", "osd": "allow *"}},
		{Entity: "client.bootstrap-osd", Key: cephKey(), Caps: map[string]string{"mon": "allow profile bootstrap-osd"}},
	}
	for _, s := range []cephSpec{
		{Type: "mon", Placement: cephPlacement{Count: monDefaultCount}},
		{Type: "mgr", Placement: cephPlacement{Count: mgrDefaultCount}},
		{Type: "crash", Placement: cephPlacement{HostPattern: "*"}},
	} {
		s.Created = now
		c.st.Specs = append(c.st.Specs, s)
	}
	c.reconcile()
	if err := os.WriteFile(filepath.Join(c.dir, cephSSHPrivKeyFile), privPEM, 0o600); err != nil {
		return e.fail(1, "ERROR: %v", err)
	}
	if err := c.save(); err != nil {
		return e.fail(1, "ERROR: %v", err)
	}
	admin := *c.auth("client.admin")
	for _, w := range []struct {
		p    string
		data string
		mode fs.FileMode
	}{
		{conf, c.minimalConf(), 0o644},
		{keyring, keyringText(admin, false), 0o600},
		{pub, pubKey + "\n", 0o644},
	} {
		if err := writeMode(e.Root, w.p, []byte(w.data), w.mode); err != nil {
			return e.fail(1, "ERROR: %v", err)
		}
	}
	if err := authorizeKey(e.Root, pubKey); err != nil {
		return e.fail(1, "ERROR: %v", err)
	}
	fmt.Fprintf(e.Stdout, "Verifying podman|docker is present...\nCluster fsid: %s\nVerifying IP %s port 3300 ...\nVerifying IP %s port 6789 ...\n", fsid, ip, ip)
	fmt.Fprintf(e.Stdout, "Creating initial keys...\nCreating initial monmap...\nCreating mon...\nCreating mgr...\n")
	fmt.Fprintf(e.Stdout, "Wrote keyring to %s\nWrote config to %s\nWrote public SSH key to %s\nAdding host %s...\n", keyring, conf, pub, host)
	fmt.Fprintf(e.Stdout, "Deploying mon service with default placement...\nDeploying mgr service with default placement...\nDeploying crash service with default placement...\n")
	fmt.Fprintf(e.Stdout, "Bootstrap complete.\n")
	return 0
}

// minimalConf is the ceph.conf cephadm writes: the fsid and the monitors'
// address vectors.
func (c *cephCluster) minimalConf() string {
	var addrs []string
	for _, d := range c.st.Daemons {
		if d.Type == "mon" {
			if h := c.host(d.Host); h != nil {
				addrs = append(addrs, fmt.Sprintf("[v2:%s:3300/0,v1:%s:6789/0]", h.Addr, h.Addr))
			}
		}
	}
	return fmt.Sprintf("# minimal ceph.conf for %s\n[global]\n\tfsid = %s\n\tmon_host = %s\n", c.st.FSID, c.st.FSID, strings.Join(addrs, " "))
}

func newSSHKey(comment string) (string, []byte, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", nil, err
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return "", nil, err
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp))) + " " + comment
	return line, pem.EncodeToMemory(block), nil
}

// writeMode writes a root file with an exact mode, creating its folder.
func writeMode(r *fsroot.Root, p string, data []byte, mode fs.FileMode) error {
	if _, err := r.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	return r.WriteAtomic(p, data, fsroot.WriteOpts{Mode: mode, UID: -1, GID: -1})
}

// authorizeKey appends key to root's authorized_keys unless there.
func authorizeKey(r *fsroot.Root, key string) error {
	old, _ := r.ReadFile(authorizedKeysPath)
	if hasAuthorizedKey(string(old), key) {
		return nil
	}
	s := string(old)
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	if _, err := r.MkdirAll("/root/.ssh", 0o700); err != nil {
		return err
	}
	return writeMode(r, authorizedKeysPath, []byte(s+key+"\n"), 0o600)
}

// hasAuthorizedKey compares key type and blob, as sshd does (options and
// comments aside).
func hasAuthorizedKey(file, key string) bool {
	want := strings.Fields(key)
	if len(want) < 2 {
		return false
	}
	for _, l := range splitLines(file) {
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == want[0] && f[i+1] == want[1] {
				return true
			}
		}
	}
	return false
}

func cephadmRmCluster(e *Env, args []string) int {
	f, ok := cephadmFlags(e, args, []string{"--fsid"}, []string{"--force", "--zap-osds", "--keep-logs"})
	if !ok {
		return 2
	}
	if f["--fsid"] == "" {
		return e.fail(1, "ERROR: must pass --fsid to specify cluster")
	}
	if f["--force"] == "" {
		return e.fail(1, "ERROR: must pass --force to proceed: this command may destroy precious data!")
	}
	c, err := e.openCeph()
	if err != nil {
		return e.fail(1, "ERROR: %v", err)
	}
	defer c.close()
	host := e.hostname()
	if c.exists() && c.st.FSID == f["--fsid"] {
		var keep []cephDaemon
		for _, d := range c.st.Daemons {
			if d.Host != host {
				keep = append(keep, d)
			}
		}
		c.st.Daemons = keep
		if f["--zap-osds"] != "" {
			var osds []cephOSD
			for _, o := range c.st.OSDs {
				if o.Host == host {
					_ = e.Root.Remove(SigDir + "/" + path.Base(o.Device))
					continue
				}
				osds = append(osds, o)
			}
			c.st.OSDs = osds
		}
		monsLeft := false
		for _, d := range c.st.Daemons {
			monsLeft = monsLeft || d.Type == "mon"
		}
		if !monsLeft {
			err = c.remove()
		} else {
			err = c.save()
		}
		if err != nil {
			return e.fail(1, "ERROR: %v", err)
		}
	}
	// The host's own files go whether or not the cluster still knows it.
	for _, p := range []string{cephConfPath, cephAdminKeyring, cephPubPath} {
		_ = e.Root.Remove(p)
	}
	_ = os.RemoveAll(e.Root.HostPath("/var/lib/ceph/" + f["--fsid"]))
	return 0
}
