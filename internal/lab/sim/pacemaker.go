package sim

// The lab's pacemaker/corosync cluster. Pacemaker's own command-line tools
// (Debian pacemaker-cli-utils) work on a CIB file as well as on a live
// cluster (CIB_file), and crm_simulate runs the real scheduler on one: the
// lab keeps one CIB per cluster in the shared folder
// (e.Shared("pacemaker-<cluster name>"): a lab may run several clusters,
// R1's two pairs, R3's building blocks) and
// hands every cibadmin, crm_mon, crm_resource, crm_attribute and crm_diff
// to the real tool on that file, so their output, rules and refusals are
// pacemaker's. What the lab adds is the cluster around the file:
//
//   - corosync starts only with a corosync.conf that lists this node (by
//     its host name) and, with crypto or secauth, an authkey of 128 to
//     4096 bytes, mode 0400 (corosync refuses a shorter key, and a key
//     others can read is a mistake the lab refuses too);
//   - pacemaker starts only on a running corosync; starting it joins the
//     node (the first start writes a fresh CIB as a new cluster's
//     controller does: cluster-name, dc-version, cluster-infrastructure,
//     have-watchdog, the nodes of corosync.conf); stopping it leaves
//     cleanly (its resources go elsewhere);
//   - a node powered off through its BMC (PowerOff) fails: its peers see it
//     go without a goodbye, the scheduler fences it through its fence
//     device (crm_simulate --node-fail) and moves its resources, and the
//     fencer's history keeps the event (stonith_admin.go); booting with
//     pacemaker enabled joins it again;
//   - every change is checked by the real crm_verify (a CIB with errors is
//     refused as the CIB manager refuses an invalid update), then the
//     cluster settles: crm_simulate --simulate runs the scheduler's whole
//     transition on the CIB (starts, stops, moves, fencing all succeed),
//     with quorum as votequorum gives it (two_node: one node is enough);
//   - the tools answer only on a node whose pacemaker runs, as they do
//     when the CIB manager is not there ("Transport endpoint is not
//     connected", exit 102).
//
// Transitions are logged to transitions.log in the shared folder, changes
// of the CIB (node and command) to operations.log.

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/fsroot"
)

// Paths and names of the lab's cluster.
const (
	pcmkShared       = "pacemaker"
	pcmkCIB          = "cib.xml"
	corosyncConfPath = "/etc/corosync/corosync.conf"
	corosyncKeyPath  = "/etc/corosync/authkey"
	pacemakerUnit    = "pacemaker.service"
	corosyncUnit     = "corosync.service"
	// exitNotConnected is CRM_EX_DISCONNECT.
	exitNotConnected = 102
	// exitConfig is CRM_EX_CONFIG, what cibadmin exits with when the CIB
	// manager refuses an update that does not validate.
	exitConfig = 78
)

func init() {
	unitHooks[corosyncUnit] = corosyncHook
	unitHooks[pacemakerUnit] = pacemakerHook
	powerHooks[pacemakerUnit] = pacemakerPower
}

// pacemakerPower: a node powered off while in the cluster has failed (its
// peers fence it through its fence device and take its resources); one
// that boots with pacemaker enabled joins again.
func pacemakerPower(e *Env, st *Systemd, on bool) error {
	if on {
		return pacemakerHook(e, st, true)
	}
	c, me, err := e.localCluster()
	if err != nil {
		return nil
	}
	dir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return err
	}
	defer unlock()
	if !fileExists(filepath.Join(dir, pcmkCIB)) {
		return nil
	}
	return settleWith(dir, c, nil, nil, []string{me.name})
}

// realTool finds one of pacemaker's programs on the lab host.
func realTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed on the lab host (apt-get install -y pacemaker-cli-utils): the lab runs pacemaker's own tools on its CIB", name)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// runReal runs a pacemaker tool on the lab host against the CIB file cib
// ("" for none), with the lab's streams.
func runReal(name string, args []string, cib string, stdout, stderr io.Writer) (int, error) {
	bin, err := realTool(name)
	if err != nil {
		return 127, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + os.TempDir()}
	if cib != "" {
		cmd.Env = append(cmd.Env, "CIB_file="+cib)
	}
	cmd.Stdin = strings.NewReader("")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 127, err
	}
	return 0, nil
}

// corosyncConf is what the lab reads of corosync.conf.
type corosyncConf struct {
	clusterName string
	twoNode     bool
	crypto      bool
	logfile     string
	nodes       []corosyncNode
}

type corosyncNode struct {
	name  string
	id    int
	addrs []string
}

// parseCorosync reads corosync.conf's sections (totem, nodelist, quorum)
// the way corosync's parser nests them: "name {" opens, "}" closes,
// "key: value" sets.
func parseCorosync(data []byte) (corosyncConf, error) {
	var c corosyncConf
	var stack []string
	var cur *corosyncNode
	sc := bufio.NewScanner(bytes.NewReader(data))
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "":
		case strings.HasSuffix(line, "{"):
			sec := strings.TrimSpace(strings.TrimSuffix(line, "{"))
			stack = append(stack, sec)
			if sec == "node" && len(stack) == 2 && stack[0] == "nodelist" {
				c.nodes = append(c.nodes, corosyncNode{})
				cur = &c.nodes[len(c.nodes)-1]
			}
		case line == "}":
			if len(stack) == 0 {
				return c, fmt.Errorf("line %d: unexpected }", ln)
			}
			stack = stack[:len(stack)-1]
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return c, fmt.Errorf("line %d: parse error in config: %q", ln, line)
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			sec := strings.Join(stack, ".")
			switch {
			case sec == "totem" && k == "cluster_name":
				c.clusterName = v
			case sec == "totem" && (k == "crypto_cipher" && v != "none" || k == "secauth" && v == "on"):
				c.crypto = true
			case sec == "quorum" && k == "two_node":
				c.twoNode = v == "1"
			case sec == "logging" && k == "logfile":
				c.logfile = v
			case sec == "nodelist.node" && cur != nil:
				switch {
				case k == "name":
					cur.name = v
				case k == "nodeid":
					id, err := strconv.Atoi(v)
					if err != nil {
						return c, fmt.Errorf("line %d: nodeid %q", ln, v)
					}
					cur.id = id
				case strings.HasPrefix(k, "ring") && strings.HasSuffix(k, "_addr"):
					cur.addrs = append(cur.addrs, v)
				}
			}
		}
	}
	if len(stack) > 0 {
		return c, fmt.Errorf("missing closing brace")
	}
	return c, nil
}

// localCluster reads the node's corosync.conf and finds the node itself
// (by host name, as corosync matches its own addresses).
func (e *Env) localCluster() (corosyncConf, corosyncNode, error) {
	data, err := e.read(corosyncConfPath)
	if err != nil || data == nil {
		return corosyncConf{}, corosyncNode{}, fmt.Errorf("Can't read file %s: No such file or directory", corosyncConfPath)
	}
	c, err := parseCorosync(data)
	if err != nil {
		return c, corosyncNode{}, fmt.Errorf("parser error: %v", err)
	}
	host, _ := e.read("/etc/hostname")
	name := strings.TrimSpace(string(host))
	for _, n := range c.nodes {
		if n.name == name && n.id > 0 {
			return c, n, nil
		}
	}
	return c, corosyncNode{}, fmt.Errorf("Can't find local node name %q in nodelist (or it has no nodeid)", name)
}

// corosyncHook starts or stops corosync: a start checks what corosync
// checks before it joins.
func corosyncHook(e *Env, st *Systemd, start bool) error {
	if !start {
		if u := st.Units[pacemakerUnit]; u.Active {
			// systemd stops pacemaker first: it requires corosync.
			if err := pacemakerHook(e, st, false); err != nil {
				return err
			}
			u.Active = false
			st.Units[pacemakerUnit] = u
			bounced[e.Root.Dir()] = true
		}
		return nil
	}
	if bounced[e.Root.Dir()] {
		// A restart of corosync restarts pacemaker with it (Requires=).
		delete(bounced, e.Root.Dir())
		defer func() {
			if err := pacemakerHook(e, st, true); err == nil {
				u := st.Units[pacemakerUnit]
				u.Active = true
				st.Units[pacemakerUnit] = u
			}
		}()
	}
	c, _, err := e.localCluster()
	if err != nil {
		return err
	}
	if c.clusterName == "" {
		return errors.New("totem.cluster_name is not set")
	}
	if c.logfile != "" {
		// Real corosync exits (7) when it cannot open its logfile: a
		// Debian node has no /var/log/cluster unless someone made it.
		if st, err := e.Root.Stat(path.Dir(c.logfile)); err != nil || !st.IsDir() {
			return fmt.Errorf("parse error in config: Can't open logfile '%s' for reason: No such file or directory (2)", c.logfile)
		}
	}
	if c.crypto {
		st, err := e.Root.Stat(corosyncKeyPath)
		if err != nil {
			return fmt.Errorf("Could not open %s: No such file or directory", corosyncKeyPath)
		}
		if st.Size() < 128 || st.Size() > 4096 {
			return fmt.Errorf("%s is %d bytes: the key must be 1024 to 32768 bits", corosyncKeyPath, st.Size())
		}
		if st.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("%s has mode %04o: readable by others (want 0400)", corosyncKeyPath, st.Mode().Perm())
		}
	}
	return nil
}

// bounced marks, within one systemctl run, a root whose pacemaker a
// corosync stop took down: the start of a restart brings it back.
var bounced = map[string]bool{}

// pacemakerHook joins the node to the lab's cluster or takes it out.
func pacemakerHook(e *Env, st *Systemd, start bool) error {
	if start && !st.Units[corosyncUnit].Active {
		return errors.New("pacemakerd: Could not connect to Cluster Configuration Database API: corosync is not running")
	}
	c, me, err := e.localCluster()
	if err != nil {
		if !start {
			return nil
		}
		return err
	}
	dir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return err
	}
	defer unlock()
	cib := filepath.Join(dir, pcmkCIB)
	if start && !fileExists(cib) {
		release := e.nodeDCVersion()
		if err := os.WriteFile(filepath.Join(dir, pcmkRelease), []byte(release+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(cib, freshCIB(c, release), 0o600); err != nil {
			return err
		}
	}
	if !fileExists(cib) {
		return nil
	}
	if start {
		return settle(dir, c, []string{me.name}, nil)
	}
	// A clean stop: the node's resources stop there and the node leaves;
	// the scheduler starts them elsewhere.
	var out, errb bytes.Buffer
	if code, err := runReal("cibadmin", []string{"--delete", "--scope", "status", "--xml-text", `<node_state id="` + strconv.Itoa(me.id) + `"/>`},
		cib, &out, &errb); err != nil || (code != 0 && !strings.Contains(errb.String(), "No such device")) {
		return fmt.Errorf("leaving the cluster: %v %s", err, errb.String())
	}
	return settle(dir, c, nil, []string{me.name})
}

// freshCIB is the CIB a new cluster's controller writes, dcVersion its
// release (a Pacemaker 3 cluster's is kept in the 2.1 tools' form:
// pacemaker3.go).
func freshCIB(c corosyncConf, dcVersion string) []byte {
	var b strings.Builder
	b.WriteString(`<cib crm_feature_set="3.16.1" validate-with="pacemaker-3.0" epoch="1" num_updates="0" admin_epoch="0">` + "\n")
	b.WriteString("  <configuration>\n    <crm_config>\n      <cluster_property_set id=\"cib-bootstrap-options\">\n")
	for _, p := range [][2]string{{"have-watchdog", "false"}, {"dc-version", dcVersion}, {"cluster-infrastructure", "corosync"},
		{"cluster-name", c.clusterName}} {
		fmt.Fprintf(&b, "        <nvpair id=\"cib-bootstrap-options-%s\" name=\"%s\" value=\"%s\"/>\n", p[0], p[0], xmlEscape(p[1]))
	}
	b.WriteString("      </cluster_property_set>\n    </crm_config>\n    <nodes>\n")
	for _, n := range c.nodes {
		fmt.Fprintf(&b, "      <node id=\"%d\" uname=\"%s\"/>\n", n.id, xmlEscape(n.name))
	}
	b.WriteString("    </nodes>\n    <resources/>\n    <constraints/>\n  </configuration>\n  <status/>\n</cib>\n")
	return []byte(b.String())
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// onlineNodes are the nodes the CIB's status has online.
func onlineNodes(cib []byte) ([]string, error) {
	var doc struct {
		States []struct {
			Uname string `xml:"uname,attr"`
			CRMD  string `xml:"crmd,attr"`
			InCCM string `xml:"in_ccm,attr"`
		} `xml:"status>node_state"`
	}
	if err := xml.Unmarshal(cib, &doc); err != nil {
		return nil, err
	}
	var out []string
	for _, s := range doc.States {
		if s.CRMD == "online" && s.InCCM == "true" {
			out = append(out, s.Uname)
		}
	}
	return out, nil
}

// settle lets the cluster react to the CIB in dir: nodes up and down, and
// the scheduler's transition run to its end, with votequorum's quorum.
func settle(dir string, c corosyncConf, up, down []string) error {
	return settleWith(dir, c, up, down, nil)
}

// settleWith also fails nodes (crm_simulate --node-fail: the node is
// unclean and the scheduler fences it before moving its resources).
func settleWith(dir string, c corosyncConf, up, down, failed []string) error {
	return settleInject(dir, c, up, down, failed, nil)
}

// settleInject also injects operation results (crm_simulate --op-inject
// "rsc_op_interval@node=rc") before the scheduler runs.
func settleInject(dir string, c corosyncConf, up, down, failed, inject []string) error {
	cib := filepath.Join(dir, pcmkCIB)
	data, err := os.ReadFile(cib)
	if err != nil {
		return err
	}
	online, err := onlineNodes(data)
	if err != nil {
		return fmt.Errorf("%s: %w", cib, err)
	}
	for _, n := range up {
		if !slices.Contains(online, n) {
			online = append(online, n)
		}
	}
	online = slices.DeleteFunc(online, func(n string) bool { return slices.Contains(down, n) || slices.Contains(failed, n) })
	quorum := len(online)*2 > len(c.nodes) || (c.twoNode && len(online) >= 1)
	q := "0"
	if quorum {
		q = "1"
	}
	next := cib + ".next"
	args := []string{"--xml-file", cib, "--simulate", "--save-output", next, "--quorum", q}
	for _, n := range up {
		args = append(args, "--node-up", n)
	}
	for _, n := range down {
		args = append(args, "--node-down", n)
	}
	for _, n := range failed {
		args = append(args, "--node-fail", n)
	}
	for _, op := range inject {
		args = append(args, "--op-inject", op)
	}
	var out, errb bytes.Buffer
	code, err := runReal("crm_simulate", args, "", &out, &errb)
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("crm_simulate: exit %d: %s", code, strings.TrimSpace(errb.String()))
	}
	if f, err := os.OpenFile(filepath.Join(dir, "transitions.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintf(f, "=== up %v down %v failed %v injected %v quorum %s\n%s", up, down, failed, inject, q, out.String())
		f.Close()
	}
	if err := recordFencing(dir, c, online, out.String()); err != nil {
		return err
	}
	if err := electDC(next, c, online); err != nil {
		return err
	}
	return os.Rename(next, cib)
}

var dcUUID = regexp.MustCompile(` dc-uuid="[^"]*"`)

// electDC names the controller in the CIB (dc-uuid, which crm_mon reports
// as current_dc) as a joined cluster has one: the online node with the
// lowest id; none when no node is online.
func electDC(file string, c corosyncConf, online []string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	dc := -1
	for _, n := range c.nodes {
		if slices.Contains(online, n.name) && (dc < 0 || n.id < dc) {
			dc = n.id
		}
	}
	i := bytes.Index(data, []byte("<cib "))
	if i < 0 {
		return fmt.Errorf("%s: no <cib> element", file)
	}
	end := i + bytes.IndexByte(data[i:], '>')
	tag := dcUUID.ReplaceAll(data[i:end], nil)
	if dc >= 0 {
		tag = append(tag, []byte(fmt.Sprintf(` dc-uuid="%d"`, dc))...)
	}
	out := append(append(append([]byte{}, data[:i]...), tag...), data[end:]...)
	return os.WriteFile(file, out, 0o600)
}

// pcmkConnected fails like pacemaker's tools when this node's CIB manager
// is not running.
func (e *Env) pcmkConnected() bool {
	st, err := e.loadUnits()
	if err == nil && st.Units[pacemakerUnit].Active {
		return true
	}
	fmt.Fprintf(e.Stderr, "%s: Could not connect to the CIB: Transport endpoint is not connected\n", e.tool)
	return false
}

// hostCopy copies a root file to a host temp folder for a real tool (which
// must never see the host's files through a path of the node).
func (e *Env) hostCopy(tmp, p string) (string, error) {
	data, err := e.Root.ReadFile(p)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(tmp, "in-*.xml")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.Write(data)
	return f.Name(), err
}

// withFiles rewrites the file options of a tool's arguments (names in
// opts, "--opt FILE", "--opt=FILE" or "-o FILE") to host copies.
func (e *Env) withFiles(tmp string, args []string, opts ...string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, eq := strings.Cut(a, "=")
		if !slices.Contains(opts, name) {
			out = append(out, a)
			continue
		}
		if !eq {
			if i+1 == len(args) {
				return nil, fmt.Errorf("option %s needs a file", a)
			}
			i++
			val = args[i]
		}
		if !strings.HasPrefix(val, "/") {
			return nil, fmt.Errorf("%s: the lab wants absolute paths", val)
		}
		h, err := e.hostCopy(tmp, val)
		if err != nil {
			return nil, err
		}
		out = append(out, name, h)
	}
	return out, nil
}

// cibChange runs a real tool that may change the CIB: on a copy, which is
// checked with crm_verify before the cluster takes it and settles. A tool
// that changed nothing (a query) just answers.
func (e *Env) cibChange(tool string, args []string) int {
	if !e.pcmkConnected() {
		return exitNotConnected
	}
	c, _, err := e.localCluster()
	if err != nil {
		return e.fail(exitNotConnected, "Could not connect to the CIB: %v", err)
	}
	dir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return e.fail(1, "%v", err)
	}
	defer unlock()
	cib := filepath.Join(dir, pcmkCIB)
	before, err := os.ReadFile(cib)
	if err != nil {
		return e.fail(exitNotConnected, "Could not connect to the CIB: %v", err)
	}
	tmp, err := os.MkdirTemp("", "hpcstorage-sim-cib-")
	if err != nil {
		return e.fail(1, "%v", err)
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "cib.xml")
	if err := os.WriteFile(work, before, 0o600); err != nil {
		return e.fail(1, "%v", err)
	}
	orig := args
	args, err = e.withFiles(tmp, args, "--xml-file", "-x")
	if err != nil {
		return e.fail(1, "%v", err)
	}
	code, err := runReal(tool, args, work, e.Stdout, e.Stderr)
	if err != nil {
		return e.fail(code, "%v", err)
	}
	after, rerr := os.ReadFile(work)
	if code != 0 || rerr != nil || bytes.Equal(before, after) {
		return code
	}
	logChange(dir, e, tool, orig)
	var vout, verr bytes.Buffer
	vcode, err := runReal("crm_verify", []string{"--xml-file", work}, "", &vout, &verr)
	if err != nil {
		return e.fail(1, "%v", err)
	}
	if vcode != 0 && strings.Contains(verr.String()+vout.String(), "Errors found") {
		fmt.Fprintf(e.Stderr, "Call failed: Update does not conform to the configured schema or rules (crm_verify):\n%s%s", vout.String(), verr.String())
		return exitConfig
	}
	if clusterMajor(dir) >= 3 {
		msg, ok, err := checkPacemaker3(dir, after)
		if err != nil {
			return e.fail(1, "%v", err)
		}
		if !ok {
			fmt.Fprintf(e.Stderr, "Call failed: Update does not conform to the configured schema (pacemaker-%s):\n%s", Schema4, msg)
			return exitConfig
		}
	}
	if err := os.WriteFile(cib, after, 0o600); err != nil {
		return e.fail(1, "%v", err)
	}
	if err := settle(dir, c, nil, nil); err != nil {
		return e.fail(1, "%v", err)
	}
	return 0
}

// OperationsLog, in the shared folder, has one line per change of the
// CIB: the node it came from and the command, as the CIB manager's log
// names the client and the operation.
const OperationsLog = "operations.log"

func logChange(dir string, e *Env, tool string, args []string) {
	host, _ := e.read("/etc/hostname")
	f, err := os.OpenFile(filepath.Join(dir, OperationsLog), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s: %s %s\n", strings.TrimSpace(string(host)), tool, strings.Join(args, " "))
}

// cibRead runs a real read-only tool on the cluster's CIB.
func (e *Env) cibRead(tool string, args []string) int {
	if !e.pcmkConnected() {
		return exitNotConnected
	}
	c, _, err := e.localCluster()
	if err != nil {
		return e.fail(exitNotConnected, "Could not connect to the CIB: %v", err)
	}
	dir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return e.fail(1, "%v", err)
	}
	defer unlock()
	cib := filepath.Join(dir, pcmkCIB)
	if !fileExists(cib) {
		return e.fail(exitNotConnected, "Could not connect to the CIB: No such device or address")
	}
	code, err := runReal(tool, args, cib, e.Stdout, e.Stderr)
	if err != nil {
		return e.fail(code, "%v", err)
	}
	return code
}

// FailResource makes a resource of the lab cluster of the node at dir
// fail where it runs: its recurring monitor returns "not running" (7),
// as when a service dies under the cluster. Pacemaker records the failed
// action and a fail count, and recovers the resource (restarts it, or
// moves it when it cannot stay).
func FailResource(dir, rsc string) error {
	root, err := fsroot.Open(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	e := &Env{Root: root, Stdin: strings.NewReader(""), Stdout: discard{}, Stderr: discard{}}
	c, _, err := e.localCluster()
	if err != nil {
		return err
	}
	sdir, unlock, err := e.Shared(pcmkShared + "-" + c.clusterName)
	if err != nil {
		return err
	}
	defer unlock()
	cib := filepath.Join(sdir, pcmkCIB)
	var out, errb bytes.Buffer
	if code, err := runReal("crm_resource", []string{"--locate", "--resource", rsc, "--quiet"}, cib, &out, &errb); err != nil || code != 0 {
		return fmt.Errorf("crm_resource --locate %s: exit %d %v %s", rsc, code, err, errb.String())
	}
	node := strings.TrimSpace(strings.SplitN(out.String(), "\n", 2)[0])
	if node == "" {
		return fmt.Errorf("%s is not running", rsc)
	}
	data, err := os.ReadFile(cib)
	if err != nil {
		return err
	}
	var doc struct {
		Prims []struct {
			ID  string `xml:"id,attr"`
			Ops []struct {
				Name     string `xml:"name,attr"`
				Interval string `xml:"interval,attr"`
			} `xml:"operations>op"`
		} `xml:"configuration>resources>primitive"`
		Grouped []struct {
			ID  string `xml:"id,attr"`
			Ops []struct {
				Name     string `xml:"name,attr"`
				Interval string `xml:"interval,attr"`
			} `xml:"operations>op"`
		} `xml:"configuration>resources>group>primitive"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return err
	}
	ms := -1
	for _, p := range append(doc.Prims, doc.Grouped...) {
		for _, op := range p.Ops {
			if p.ID != rsc || op.Name != "monitor" {
				continue
			}
			iv := op.Interval
			if _, err := strconv.Atoi(iv); err == nil {
				iv += "s"
			}
			if d, err := time.ParseDuration(iv); err == nil && d > 0 {
				ms = int(d.Milliseconds())
			}
		}
	}
	if ms < 0 {
		return fmt.Errorf("%s has no recurring monitor to fail", rsc)
	}
	return settleInject(sdir, c, nil, nil, nil, []string{fmt.Sprintf("%s_monitor_%d@%s=7", rsc, ms, node)})
}
