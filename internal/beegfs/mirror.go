package beegfs

// Buddy mirroring, for designs whose servers do not share storage: a
// mirror (buddy) group pairs two storage targets, or two metadata nodes,
// the secondary holding a copy of the primary (BeeGFS 7.x
// `beegfs-ctl --addmirrorgroup`). Mirroring halves the usable capacity of
// the targets it pairs. Groups are always defined explicitly here:
// BeeGFS's automatic mode silently leaves out targets of unequal size,
// so a pair across sizes is refused instead of half-built.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Mirror node types, as beegfs-ctl's --nodetype names them.
const (
	MirrorStorage = "storage"
	MirrorMeta    = "meta"
)

// MirrorNodeTypes lists them, for validators and docs.
var MirrorNodeTypes = []string{MirrorStorage, MirrorMeta}

// MirrorMDMarker is written once `beegfs-ctl --mirrormd` has run: metadata
// mirroring cannot be turned off again, so the command runs once.
const MirrorMDMarker = "/var/lib/hpcstorage/beegfs/mirrormd"

// MirrorMember is one side of a group: a storage target, or a metadata
// node (its numeric id).
type MirrorMember struct {
	ID int
	// SizeBytes is the target's size (storage): both sides must match.
	SizeBytes int64
	// Pool is the storage pool of the target (storage): both sides must
	// be in the same one.
	Pool int
	// Server is the node that serves it, when known: both sides on one
	// server would lose both copies with it.
	Server string
}

// MirrorGroup is one buddy group.
type MirrorGroup struct {
	NodeType  string
	GroupID   int
	Primary   MirrorMember
	Secondary MirrorMember
	// MirrorMetadata (meta only) runs `beegfs-ctl --mirrormd` once the
	// group exists: the root directory and everything created below it
	// get mirrored metadata.
	MirrorMetadata bool
	// Version is the BeeGFS release ("" is the paper's, 7.2): 8 uses the
	// beegfs command instead of beegfs-ctl.
	Version string
	// TLSDisable (8) runs the beegfs command without TLS.
	TLSDisable bool
}

func mirrorInvalid(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, field, fmt.Sprintf(format, a...))
}

// Validate refuses what BeeGFS would refuse, or silently get wrong.
func (g MirrorGroup) Validate() error {
	if !contains(MirrorNodeTypes, g.NodeType) {
		return mirrorInvalid("node_type", "%q: want one of %s", g.NodeType, strings.Join(MirrorNodeTypes, ", "))
	}
	if g.GroupID < 1 || g.GroupID > 65535 {
		return mirrorInvalid("group_id", "%d: want 1 to 65535", g.GroupID)
	}
	for _, m := range []struct {
		field string
		m     MirrorMember
	}{{"primary", g.Primary}, {"secondary", g.Secondary}} {
		if m.m.ID < 1 || m.m.ID > 65535 {
			return mirrorInvalid(m.field+".id", "%d: want 1 to 65535", m.m.ID)
		}
	}
	if g.Primary.ID == g.Secondary.ID {
		return mirrorInvalid("secondary.id", "%d is also the primary: a group mirrors two different %s", g.Secondary.ID, g.what())
	}
	if g.Primary.Server != "" && g.Primary.Server == g.Secondary.Server {
		return mirrorInvalid("secondary.server", "both sides are on %s: losing that server would lose both copies", g.Primary.Server)
	}
	if g.NodeType == MirrorStorage {
		if g.Primary.SizeBytes <= 0 || g.Secondary.SizeBytes <= 0 {
			return mirrorInvalid("secondary.size_bytes", "give both targets' sizes: a pair across sizes is refused (BeeGFS's "+
				"automatic mode silently skips such targets, and the smaller side caps the group)")
		}
		if g.Primary.SizeBytes != g.Secondary.SizeBytes {
			return mirrorInvalid("secondary.size_bytes", "target %d has %d bytes, target %d %d: a mirror group pairs targets of equal size "+
				"(the smaller would cap the group and BeeGFS's automatic mode would skip them)", g.Primary.ID, g.Primary.SizeBytes,
				g.Secondary.ID, g.Secondary.SizeBytes)
		}
		if g.Primary.Pool < 1 || g.Secondary.Pool < 1 {
			return mirrorInvalid("secondary.pool", "want the storage pool of both targets (1 is the default pool)")
		}
		if g.Primary.Pool != g.Secondary.Pool {
			return mirrorInvalid("secondary.pool", "target %d is in pool %d, target %d in pool %d: both targets of a group must be in "+
				"the same storage pool", g.Primary.ID, g.Primary.Pool, g.Secondary.ID, g.Secondary.Pool)
		}
	}
	if g.MirrorMetadata && g.NodeType != MirrorMeta {
		return mirrorInvalid("mirror_metadata", "metadata mirroring needs a metadata (node_type = %q) group", MirrorMeta)
	}
	return nil
}

func (g MirrorGroup) what() string {
	if g.NodeType == MirrorMeta {
		return "metadata nodes"
	}
	return "targets"
}

// Alias is the group's alias in BeeGFS 8 (aliases are unique over every
// entity, so the node type is part of it).
func (g MirrorGroup) Alias() string { return fmt.Sprintf("%s_group_%d", g.NodeType, g.GroupID) }

// AddArgv is the command that defines the group: in BeeGFS 8 `beegfs
// mirror create <alias>` with the members as <nodetype>:<id>
// (beegfs-go ctl/internal/cmd/buddygroup/create.go).
func (g MirrorGroup) AddArgv() []string {
	if IsV8(g.Version) {
		return []string{"beegfs", cliTLS(g.TLSDisable), "mirror", "create", g.Alias(), "--node-type=" + g.NodeType,
			fmt.Sprintf("--primary=%s:%d", g.NodeType, g.Primary.ID), fmt.Sprintf("--secondary=%s:%d", g.NodeType, g.Secondary.ID),
			fmt.Sprintf("--num-id=%d", g.GroupID)}
	}
	return []string{"beegfs-ctl", "--addmirrorgroup", "--nodetype=" + g.NodeType, fmt.Sprintf("--primary=%d", g.Primary.ID),
		fmt.Sprintf("--secondary=%d", g.Secondary.ID), fmt.Sprintf("--groupid=%d", g.GroupID)}
}

// ListArgv reads the groups of one node type back.
func ListArgv(nodeType string) []string {
	return []string{"beegfs-ctl", "--listmirrorgroups", "--nodetype=" + nodeType}
}

// ListArgvFor is ListArgv of a release: 8 has `beegfs mirror list`.
func ListArgvFor(version, nodeType string, tlsDisable bool) []string {
	if IsV8(version) {
		return []string{"beegfs", cliTLS(tlsDisable), "mirror", "list", "--node-type=" + nodeType}
	}
	return ListArgv(nodeType)
}

// ClientsArgv lists the clients registered at the management service: a
// mounted client is registered.
var ClientsArgv = []string{"beegfs-ctl", "--listnodes", "--nodetype=client"}

// ClientsArgvFor is ClientsArgv of a release: 8 has `beegfs node list`.
func ClientsArgvFor(version string, tlsDisable bool) []string {
	if IsV8(version) {
		return []string{"beegfs", cliTLS(tlsDisable), "node", "list", "--node-type=client"}
	}
	return ClientsArgv
}

// cliTLS is the beegfs command's TLS flag: the certificate it verifies
// the management service with (cert.pem, the default), or none.
func cliTLS(disable bool) string {
	if disable {
		return "--tls-disable"
	}
	return "--tls-cert-file=" + TLSCertFile
}

// MirrorMDArgv turns metadata mirroring on.
var MirrorMDArgv = []string{"beegfs-ctl", "--mirrormd"}

// MirrorMDArgvFor is MirrorMDArgv of a release: 8's `beegfs mirror init`
// needs --yes to act.
func MirrorMDArgvFor(version string, tlsDisable bool) []string {
	if IsV8(version) {
		return []string{"beegfs", cliTLS(tlsDisable), "mirror", "init", "--yes"}
	}
	return MirrorMDArgv
}

// matcher is the group's line in --listmirrorgroups, either way round:
// after a failover BeeGFS swaps primary and secondary, and the group is
// still the one defined.
func (g MirrorGroup) matcher() string {
	if IsV8(g.Version) {
		// ALIAS ID TYPE PRIMARY_TARGET PRIMARY_CONSISTENCY SECONDARY_TARGET ...
		t := g.NodeType[:1]
		return fmt.Sprintf(`(?m)^\s*\S+\s+%s:%d\s+\S+\s+(?:%s:%d\s+\S+\s+%s:%d|%s:%d\s+\S+\s+%s:%d)\b`, t, g.GroupID,
			t, g.Primary.ID, t, g.Secondary.ID, t, g.Secondary.ID, t, g.Primary.ID)
	}
	return fmt.Sprintf(`(?m)^\s*%d\s+(?:%d\s+%d|%d\s+%d)\s*$`, g.GroupID, g.Primary.ID, g.Secondary.ID, g.Secondary.ID, g.Primary.ID)
}

// Listed finds the group in a listing: found, and whether its members
// are the ones defined (either way round).
func (g MirrorGroup) Listed(groups []ListedGroup) (found, same bool) {
	for _, l := range groups {
		if l.ID == g.GroupID {
			return true, l.Primary == g.Primary.ID && l.Secondary == g.Secondary.ID || l.Primary == g.Secondary.ID && l.Secondary == g.Primary.ID
		}
	}
	return false, false
}

// Items define the group unless --listmirrorgroups already lists it, then
// (mirror_metadata) turn metadata mirroring on once.
func (g MirrorGroup) Items() ([]protocol.Item, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if err := CheckVersion(g.Version); err != nil {
		return nil, err
	}
	items := []protocol.Item{{Command: &protocol.Command{Name: "addmirrorgroup", Argv: g.AddArgv(), Unless: ListArgvFor(g.Version, g.NodeType, g.TLSDisable),
		UnlessMatch: []string{g.matcher()}}}}
	if g.MirrorMetadata {
		argv := append([]string{"/bin/sh", "-c", `marker=$1; shift; "$@" || exit 1; mkdir -p "${marker%/*}" && : > "$marker"`,
			"hpcstorage-mirrormd", MirrorMDMarker}, MirrorMDArgvFor(g.Version, g.TLSDisable)...)
		items = append(items, protocol.Item{Command: &protocol.Command{Name: "mirrormd", Argv: argv, Creates: MirrorMDMarker}})
	}
	return items, nil
}

// ProbeItems are the read-only queries ParseMirrorGroups and
// ParseClients read: the groups, and the mounted clients.
func (g MirrorGroup) ProbeItems() []protocol.Item {
	return []protocol.Item{
		{Command: &protocol.Command{Name: "listmirrorgroups", Argv: ListArgvFor(g.Version, g.NodeType, g.TLSDisable), ReadOnly: true}},
		{Command: &protocol.Command{Name: "listclients", Argv: ClientsArgvFor(g.Version, g.TLSDisable), ReadOnly: true}},
	}
}

// ListedGroup is one line of --listmirrorgroups.
type ListedGroup struct {
	ID, Primary, Secondary int
}

var reGroupLine = regexp.MustCompile(`^\s*(\d+)\s+(\d+)\s+(\d+)\s*$`)

// ParseMirrorGroups reads `beegfs-ctl --listmirrorgroups`: a header
// (BuddyGroupID PrimaryTargetID SecondaryTargetID, or ...NodeID for
// metadata), a line of =, then one line per group.
func ParseMirrorGroups(out string) ([]ListedGroup, error) {
	if strings.Contains(out, "PRIMARY_TARGET") {
		return parseMirrorTable(out)
	}
	var groups []ListedGroup
	header := false
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "BuddyGroupID") {
			header = true
			continue
		}
		m := reGroupLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var g ListedGroup
		g.ID, _ = strconv.Atoi(m[1])
		g.Primary, _ = strconv.Atoi(m[2])
		g.Secondary, _ = strconv.Atoi(m[3])
		groups = append(groups, g)
	}
	if !header {
		return nil, fmt.Errorf("no BuddyGroupID header in the mirror group list: %q", clip(out))
	}
	return groups, nil
}

var reV8Entity = regexp.MustCompile(`^[a-z]+:(\d+)$`)

// parseMirrorTable reads `beegfs mirror list` (BeeGFS 8): a header of
// column names (ALIAS ID TYPE PRIMARY_TARGET PRIMARY_CONSISTENCY
// SECONDARY_TARGET SECONDARY_CONSISTENCY by default), then one row per
// group, ids as <type>:<n>.
func parseMirrorTable(out string) ([]ListedGroup, error) {
	lines := strings.Split(out, "\n")
	var cols []string
	var groups []ListedGroup
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if cols == nil {
			if slices.Contains(f, "PRIMARY_TARGET") {
				cols = f
			}
			continue
		}
		if len(f) != len(cols) {
			return nil, fmt.Errorf("mirror list row %q does not match its header %q", l, strings.Join(cols, " "))
		}
		var g ListedGroup
		for i, c := range cols {
			var dst *int
			switch c {
			case "ID":
				dst = &g.ID
			case "PRIMARY_TARGET":
				dst = &g.Primary
			case "SECONDARY_TARGET":
				dst = &g.Secondary
			default:
				continue
			}
			m := reV8Entity.FindStringSubmatch(f[i])
			if m == nil {
				return nil, fmt.Errorf("mirror list: %s %q is no <type>:<id>", c, f[i])
			}
			*dst, _ = strconv.Atoi(m[1])
		}
		groups = append(groups, g)
	}
	if cols == nil {
		return nil, fmt.Errorf("no header in the mirror list: %q", clip(out))
	}
	return groups, nil
}

// ParseClients reads `beegfs-ctl --listnodes --nodetype=client`: one
// "name [ID: n]" line per registered client; or BeeGFS 8's `beegfs node
// list`: a header (ID TYPE ALIAS), then one row per node.
func ParseClients(out string) []string {
	var names []string
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) > 0 && slices.Contains(strings.Fields(lines[0]), "ALIAS") {
		cols := strings.Fields(lines[0])
		at := slices.Index(cols, "ALIAS")
		for _, l := range lines[1:] {
			if f := strings.Fields(l); len(f) == len(cols) {
				names = append(names, f[at])
			}
		}
		return names
	}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if name, _, ok := strings.Cut(l, " [ID:"); ok && name != "" {
			names = append(names, name)
		}
	}
	return names
}
