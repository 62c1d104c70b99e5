package pacemaker

// Agent items: what every node holds (corosync.conf, the authkey, the
// fence password files, the two units) and what runs on the one node
// that reads and patches the CIB for the whole cluster.

import (
	"path"
	"sort"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// The cluster's units, started on every node (pacemaker needs corosync).
const (
	CorosyncUnit  = "corosync"
	PacemakerUnit = "pacemaker"
)

// Authkey sizes corosync accepts (corosync-keygen writes 128 or 256
// bytes; corosync refuses a key shorter than 1024 bits).
const (
	MinAuthkeyBytes = 128
	MaxAuthkeyBytes = 4096
)

// StateDir is where the push node keeps the documents of the last push.
func StateDir(cluster string) string { return "/var/lib/hpcstorage/cluster/" + cluster }

// Secrets are what the node items write into root-only files. A nil
// Authkey or Passwords renders those files by mode and owner only: a
// refresh has no secret (state keeps hashes), so it checks the rest.
type Secrets struct {
	Authkey []byte
	// Passwords by fence device id.
	Passwords map[string]string
}

func secretFile(p string, content *string, notify ...string) protocol.Item {
	f := &protocol.File{Path: p, Mode: "0400", Owner: "root", Group: "root", Sensitive: true, Notify: notify}
	if content != nil {
		// corosync-keygen writes random bytes, not text.
		f.SetBytes([]byte(*content))
	}
	return protocol.Item{File: f}
}

// NodeItems renders what every node of the cluster holds. A change of
// corosync.conf or of the authkey restarts corosync (and pacemaker with it).
func (c Cluster) NodeItems(s Secrets) ([]protocol.Item, error) {
	conf, err := c.Corosync()
	if err != nil {
		return nil, err
	}
	if s.Authkey != nil && (len(s.Authkey) < MinAuthkeyBytes || len(s.Authkey) > MaxAuthkeyBytes) {
		return nil, invalid(located.At("authkey"), "%d bytes: corosync wants %d to %d", len(s.Authkey), MinAuthkeyBytes, MaxAuthkeyBytes)
	}
	confS := string(conf)
	logDir := path.Dir(CorosyncLog)
	items := []protocol.Item{
		// corosync will not start when its logfile's folder is missing (exit
		// 7): RHEL's packages ship /var/log/cluster, Debian's do not.
		{Command: &protocol.Command{Name: "corosync-log-dir", Argv: []string{"mkdir", "-p", logDir}, Creates: logDir}},
		{File: &protocol.File{Path: CorosyncConf, Content: &confS, Mode: "0644", Owner: "root", Group: "root", Notify: []string{CorosyncUnit}}},
	}
	var key *string
	if s.Authkey != nil {
		k := string(s.Authkey)
		key = &k
	}
	items = append(items, secretFile(AuthKey, key, CorosyncUnit))
	ids := make([]string, 0, len(c.Fencing))
	for _, f := range c.Fencing {
		ids = append(ids, f.ID)
	}
	sort.Strings(ids)
	for _, id := range ids {
		var pw *string
		if s.Passwords != nil {
			p, ok := s.Passwords[id]
			if !ok || p == "" {
				return nil, invalid(located.At("fence_devices"), "%s: no BMC password", id)
			}
			pw = &p
		}
		// The fence device runs on the other node: every node holds
		// every password.
		items = append(items, secretFile(PasswordFile(id), pw))
	}
	on := true
	for _, u := range []string{CorosyncUnit, PacemakerUnit} {
		items = append(items, protocol.Item{Service: &protocol.Service{Name: u, Enabled: &on, State: "started"}})
	}
	return items, nil
}

// Query scripts, run with `sh -c`. The CIB manager answers only once the
// node has joined: right after pacemaker starts it refuses for a while.
const (
	queryConfiguration = `i=0
while ! cibadmin --query --scope configuration; do
  i=$((i+1))
  if [ "$i" -ge 60 ]; then echo "the CIB manager does not answer" >&2; exit 1; fi
  sleep 2
done`
	// --fence-history=3: every fencing event, not only failed ones (the
	// default): a node fenced after a crash is what the plan must show.
	// crm_mon before 1.1.20 (RHEL 7.6) has no --fence-history: the
	// status without it then.
	queryStatus = `crm_mon -1 -X --fence-history=3 2>/dev/null || crm_mon -1 -X`
	// After a change, crm_resource --wait waits for the transition it
	// started to finish (pacemaker 1.1.13 and later), then crm_mon says
	// where everything ended up. A timeout still prints where things are.
	queryStatusSettled = `crm_resource --wait --timeout=120s >/dev/null 2>&1
crm_mon -1 -X --fence-history=3 2>/dev/null || crm_mon -1 -X`
	// pushPatch is what pcs cluster cib-push diff-against does: crm_diff
	// makes a patch without versions from the two documents, cibadmin
	// applies it; crm_diff exits 1 when they differ.
	pushPatch = `d=$1
rc=0
crm_diff --no-version --original "$d/cib-live.xml" --new "$d/cib-next.xml" > "$d/cib-patch.xml" || rc=$?
case $rc in
0) exit 0 ;;
1) ;;
*) echo "crm_diff failed with exit status $rc" >&2; exit "$rc" ;;
esac
cibadmin --patch --xml-file "$d/cib-patch.xml"`
)

// QueryConfigurationItem reads the live configuration (read-only).
func QueryConfigurationItem() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "cib-configuration", Argv: []string{"sh", "-c", queryConfiguration}, ReadOnly: true}}
}

// QueryStatusItem reads where resources run (read-only); settled first
// waits for the cluster's transition to end.
func QueryStatusItem(settled bool) protocol.Item {
	script := queryStatus
	if settled {
		script = queryStatusSettled
	}
	return protocol.Item{Command: &protocol.Command{Name: "crm-mon", Argv: []string{"sh", "-c", script}, ReadOnly: true}}
}

// PushItems write the two documents PatchDocuments made and patch the live
// CIB with their difference, made by crm_diff on the node: only what
// changed is sent to the cluster, never a replacement of the whole CIB.
// The push runs unless the documents are the same.
func PushItems(cluster string, orig, next []byte) []protocol.Item {
	dir := StateDir(cluster)
	o, n := string(orig), string(next)
	live, nxt := path.Join(dir, "cib-live.xml"), path.Join(dir, "cib-next.xml")
	return []protocol.Item{
		{File: &protocol.File{Path: live, Content: &o, Mode: "0600", Owner: "root", Group: "root"}},
		{File: &protocol.File{Path: nxt, Content: &n, Mode: "0600", Owner: "root", Group: "root"}},
		{Command: &protocol.Command{Name: "cib-patch", Argv: []string{"sh", "-c", pushPatch, "cib-push", dir},
			Unless: []string{"crm_diff", "--no-version", "--original", live, "--new", nxt}}},
	}
}

// PushNode is the node that reads and patches the CIB for the cluster:
// always the same one (the lowest node id), so two nodes never push.
func (c Cluster) PushNode() (Node, error) {
	if len(c.Nodes) == 0 {
		return Node{}, invalid(located.At("nodes"), "a cluster needs nodes")
	}
	best := c.Nodes[0]
	for _, n := range c.Nodes[1:] {
		if n.ID < best.ID {
			best = n
		}
	}
	return best, nil
}
