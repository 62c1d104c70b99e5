package protocol

import (
	"encoding/base64"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Allowed values, one list each, shared by validation and docs.
var (
	ServiceStates = []string{"started", "stopped", "restarted"}
	THPEnabled    = []string{"always", "madvise", "never"}
	THPDefrag     = []string{"always", "defer", "defer+madvise", "madvise", "never"}
	MountPersist  = []string{"fstab", "none"}
	// Bounds of the block queue numbers (inclusive).
	NrRequestsRange   = [2]int{4, 1 << 20}
	ReadAheadKBRange  = [2]int{0, 1 << 24}
	MaxSectorsKBRange = [2]int{4, 1 << 24}
	unitSuffixes      = []string{".service", ".socket", ".target", ".mount", ".timer", ".path", ".slice"}
	// Counted repetition ({0,250}) compiles into one program state per
	// count: about 1.4 ms of every agent start for these patterns. The
	// lengths are checked apart instead.
	reOwner         = pattern{regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`), 1, 63}
	reSysctlKey     = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_:@+-]+)*$`)
	reName          = pattern{regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`), 1, 128}
	reModule        = pattern{regexp.MustCompile(`^[A-Za-z0-9_-]*$`), 1, 64}
	reUnit          = pattern{regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9@_.:\\-]*$`), 1, 251}
	reUserName      = pattern{regexp.MustCompile(`^[a-z_][a-z0-9_-]*$`), 1, 32}
	reUserID        = pattern{regexp.MustCompile(`^[0-9]*$`), 1, 10}
	reMode          = regexp.MustCompile(`^0?[0-7]{3,4}$`)
	reFSType        = pattern{regexp.MustCompile(`^[a-z0-9_.]*$`), 1, 32}
	reSchedulerName = pattern{regexp.MustCompile(`^[a-z0-9+_-]*$`), 1, 32}
	reHex           = pattern{regexp.MustCompile(`^[0-9a-fA-F]*$`), 16, 32}
	reVersion       = pattern{regexp.MustCompile(`^[A-Za-z0-9.+~:_-]*$`), 1, 128}
	rePlatform      = pattern{regexp.MustCompile(`^[a-z]+[0-9]+$`), 2, 16}
)

// pattern is a regexp without counted repetition, and the length bounds
// (inclusive) it had.
type pattern struct {
	re       *regexp.Regexp
	min, max int
}

func (p pattern) MatchString(s string) bool {
	return len(s) >= p.min && len(s) <= p.max && p.re.MatchString(s)
}

// validUser is a user or group name (with Samba's trailing $) or a
// numeric id.
func validUser(s string) bool {
	return reUserName.MatchString(strings.TrimSuffix(s, "$")) || reUserID.MatchString(s)
}

// validWWN is 16 to 32 hex digits, optionally after 0x, naa. or eui.
func validWWN(s string) bool {
	for _, p := range []string{"0x", "naa.", "eui."} {
		if t, ok := strings.CutPrefix(s, p); ok && reHex.MatchString(t) {
			return true
		}
	}
	return reHex.MatchString(s)
}

// StateDir is the agent's state folder, relative to the root. Items may not
// manage anything in it.
const StateDir = "var/lib/hpcstorage-agent"

// ValidSetKey reports whether k can be a key of a file item's set overlay.
func ValidSetKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '=' || r == '#' || r == ';' {
			return false
		}
	}
	return true
}

// UnitName returns a systemd unit name with its type suffix (".service" when
// none is given).
func UnitName(name string) string {
	for _, s := range unitSuffixes {
		if strings.HasSuffix(name, s) {
			return name
		}
	}
	return name + ".service"
}

// CheckPath reports why p is not an absolute, clean path confined to a
// root, or "" when it is fine.
func CheckPath(p string) string {
	switch {
	case p == "":
		return "required"
	case !strings.HasPrefix(p, "/"):
		return fmt.Sprintf("%q: want an absolute path", p)
	case strings.ContainsAny(p, "\x00\n"):
		return fmt.Sprintf("%q: contains a NUL or newline", p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return fmt.Sprintf("%q: \"..\" is not allowed (paths cannot leave the root)", p)
		}
	}
	if path.Clean(p) != p {
		return fmt.Sprintf("%q: not a clean path (want %q)", p, path.Clean(p))
	}
	if p == "/" {
		return "\"/\": want a file or folder below the root"
	}
	if rel := strings.TrimPrefix(p, "/"); rel == StateDir || strings.HasPrefix(rel, StateDir+"/") {
		return fmt.Sprintf("%q: inside the agent's own state folder /%s", p, StateDir)
	}
	return ""
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

func badChoice(v string, allowed []string) string {
	return fmt.Sprintf("%q: want one of %s%s", v, strings.Join(allowed, ", "), suggest(v, allowed))
}

// Validate checks every value and reports every problem with its path.
func (s *Spec) Validate() error {
	e := &SpecError{}
	s.validate(e, nil)
	return e.orNil()
}

// validate adds every problem to e, skipping items in bad (already
// reported as undecodable).
func (s *Spec) validate(e *SpecError, bad map[int]bool) {
	if s.APIVersion != APIVersion {
		e.add("apiVersion", "%q: want %q", s.APIVersion, APIVersion)
	}
	if !reOwner.MatchString(s.Owner) {
		e.add("owner", "%q: want 1-63 characters a-z 0-9 _ . - starting with a letter or digit (it names state and drop-in files)", s.Owner)
	}
	services := map[string]bool{}
	for _, it := range s.Items {
		if it.Service != nil {
			services[UnitName(it.Service.Name)] = true
		}
	}
	seen := map[string]int{}
	for i, it := range s.Items {
		if bad[i] {
			continue
		}
		p := fmt.Sprintf("items[%d]", i)
		kinds := it.kinds()
		if len(kinds) != 1 {
			e.add(p, "want exactly one item type, got %d", len(kinds))
			continue
		}
		p += "." + kinds[0]
		validateItem(e, p, it)
		id := it.ID()
		if j, dup := seen[id]; dup {
			e.add(p, "duplicate item %q (also items[%d]); one item per key", id, j)
		} else {
			seen[id] = i
		}
		for k, n := range it.Notifies() {
			if !services[UnitName(n)] {
				e.add(fmt.Sprintf("%s.notify[%d]", p, k), "%q is not a service item in this spec (notify restarts a service the spec manages)", n)
			}
		}
	}
}

func validateItem(e *SpecError, p string, it Item) {
	switch {
	case it.Sysctl != nil:
		v := it.Sysctl
		if !reSysctlKey.MatchString(v.Key) || len(v.Key) > 200 {
			e.add(p+".key", "%q: want a dotted kernel parameter name like vm.dirty_ratio", v.Key)
		}
		if strings.TrimSpace(string(v.Value)) == "" {
			e.add(p+".value", "required")
		} else if strings.ContainsAny(string(v.Value), "\n\x00") {
			e.add(p+".value", "must be a single line")
		}
	case it.File != nil:
		validateFile(e, p, it.File)
	case it.UdevRule != nil:
		v := it.UdevRule
		if !reName.MatchString(v.Name) || strings.Contains(v.Name, "/") {
			e.add(p+".name", "%q: want a file name like 60-beegfs-block (\".rules\" is added)", v.Name)
		}
		if strings.TrimSpace(v.Content) == "" {
			e.add(p+".content", "required")
		}
	case it.BlockQueue != nil:
		validateBlockQueue(e, p, it.BlockQueue)
	case it.THP != nil:
		v := it.THP
		if v.Enabled == "" && v.Defrag == "" {
			e.add(p, "set enabled, defrag or both")
		}
		if v.Enabled != "" && !oneOf(v.Enabled, THPEnabled) {
			e.add(p+".enabled", "%s", badChoice(v.Enabled, THPEnabled))
		}
		if v.Defrag != "" && !oneOf(v.Defrag, THPDefrag) {
			e.add(p+".defrag", "%s", badChoice(v.Defrag, THPDefrag))
		}
	case it.KernelModule != nil:
		v := it.KernelModule
		if !reModule.MatchString(v.Name) {
			e.add(p+".name", "%q: want a module name like mpt3sas", v.Name)
		}
		if strings.ContainsAny(v.Options, "\n\x00") {
			e.add(p+".options", "must be a single line")
		}
	case it.Service != nil:
		validateService(e, p, it.Service)
	case it.Mount != nil:
		validateMount(e, p, it.Mount)
	case it.Command != nil:
		v := it.Command
		if len(v.Argv) == 0 || v.Argv[0] == "" {
			e.add(p+".argv", "required: the program and its arguments, e.g. [beegfs-setup-storage, -p, /data/st01]")
		}
		for k, a := range v.Argv {
			if strings.ContainsRune(a, 0) {
				e.add(fmt.Sprintf("%s.argv[%d]", p, k), "contains a NUL byte")
			}
		}
		if v.Name != "" && !reName.MatchString(v.Name) {
			e.add(p+".name", "%q: want letters, digits, . _ + -", v.Name)
		}
		switch {
		case v.ReadOnly && (v.Creates != "" || len(v.Unless) > 0 || len(v.UnlessMatch) > 0 || len(v.Notify) > 0):
			e.add(p+".read_only", "a read-only command runs on every plan and changes nothing: no creates, unless, unless_match or notify")
		case !v.ReadOnly && v.Creates == "" && len(v.Unless) == 0:
			e.add(p, "set creates or unless, so the command runs once and a second apply changes nothing")
		}
		if len(v.UnlessMatch) > 0 && len(v.Unless) == 0 {
			e.add(p+".unless_match", "needs unless: the command whose stdout it matches")
		}
		for k, re := range v.UnlessMatch {
			if _, err := regexp.Compile(re); err != nil {
				e.add(fmt.Sprintf("%s.unless_match[%d]", p, k), "%q: %v", re, err)
			}
		}
		if v.Creates != "" {
			if msg := CheckPath(v.Creates); msg != "" {
				e.add(p+".creates", "%s", msg)
			}
		}
		if len(v.Unless) > 0 && v.Unless[0] == "" {
			e.add(p+".unless", "want a command argv, e.g. [test, -e, /data/st01/targetNumID]")
		}
	case it.PackageVersion != nil:
		v := it.PackageVersion
		if !reName.MatchString(v.Name) {
			e.add(p+".name", "%q: want a package name like lvm2", v.Name)
		}
		if !reVersion.MatchString(v.Min) {
			e.add(p+".min", "%q: want a version like 2.02.180-10.el7_6.2 (optionally epoch:)", v.Min)
		}
		if len(v.Why) > 512 || strings.ContainsAny(v.Why, "\n\r") {
			e.add(p+".why", "want one line of at most 512 characters")
		}
		for i, pl := range v.Platforms {
			if !rePlatform.MatchString(pl) {
				e.add(fmt.Sprintf("%s.platforms[%d]", p, i), "%q: want a distribution release as rpm's dist tag names it, like el9", pl)
			}
		}
	}
}

func validateFile(e *SpecError, p string, v *File) {
	if msg := CheckPath(v.Path); msg != "" {
		e.add(p+".path", "%s", msg)
	} else {
		for _, pre := range []string{"/proc/", "/sys/", "/dev/"} {
			if strings.HasPrefix(v.Path, pre) {
				e.add(p+".path", "%q: kernel and device files are managed by sysctl, thp and block_queue items", v.Path)
			}
		}
	}
	if v.Content != nil && v.ContentBase64 != nil {
		e.add(p, "content and content_base64 are exclusive: give text as content, other bytes as content_base64")
	}
	if v.ContentBase64 != nil {
		if _, err := base64.StdEncoding.DecodeString(*v.ContentBase64); err != nil {
			e.add(p+".content_base64", "not standard base64: %v", err)
		}
	}
	if (v.Content != nil || v.ContentBase64 != nil) && v.Set != nil {
		e.add(p, "content and set are exclusive: content replaces the file, set edits keys in it")
	}
	if v.Content == nil && v.ContentBase64 == nil && v.Set == nil && v.Mode == "" && v.Owner == "" && v.Group == "" {
		e.add(p, "nothing to manage: set content, set, mode, owner or group")
	}
	for k, val := range v.Set {
		if !ValidSetKey(k) {
			e.add(p+".set", "key %q: want a key without blanks, control characters, '=', '#' or ';'", k)
		}
		if strings.ContainsAny(string(val), "\n\x00") {
			e.add(p+".set."+k, "must be a single line")
		}
	}
	if v.Mode != "" && !reMode.MatchString(v.Mode) {
		e.add(p+".mode", "%q: want an octal mode like \"0644\" (quote it in YAML)", v.Mode)
	}
	if v.Owner != "" && !validUser(v.Owner) {
		e.add(p+".owner", "%q: want a user name or numeric uid", v.Owner)
	}
	if v.Group != "" && !validUser(v.Group) {
		e.add(p+".group", "%q: want a group name or numeric gid", v.Group)
	}
}

func validateBlockQueue(e *SpecError, p string, v *BlockQueue) {
	m := v.Match
	if m.Name == "" && m.WWN == "" && m.Model == "" && m.Rotational == nil {
		e.add(p+".match", "required: name (glob), wwn, model or rotational")
	}
	if m.Name != "" {
		if _, err := path.Match(m.Name, "x"); err != nil || strings.Contains(m.Name, "/") {
			e.add(p+".match.name", "%q: want a glob on kernel disk names like \"sd*\"", m.Name)
		}
	}
	if m.Model != "" {
		if _, err := path.Match(m.Model, "x"); err != nil {
			e.add(p+".match.model", "%q: bad glob", m.Model)
		}
	}
	if m.WWN != "" && !validWWN(m.WWN) {
		e.add(p+".match.wwn", "%q: want a WWN like 0x600c0ff0001234... (16 to 32 hex digits)", m.WWN)
	}
	if v.Scheduler == "" && v.NrRequests == nil && v.ReadAheadKB == nil && v.MaxSectorsKB == nil {
		e.add(p, "nothing to set: scheduler, nr_requests, read_ahead_kb or max_sectors_kb")
	}
	if v.Scheduler != "" && !reSchedulerName.MatchString(v.Scheduler) {
		e.add(p+".scheduler", "%q: want a scheduler name like mq-deadline", v.Scheduler)
	}
	checkInt := func(name string, n *int, r [2]int) {
		if n != nil && (*n < r[0] || *n > r[1]) {
			e.add(p+"."+name, "%d: want %d to %d", *n, r[0], r[1])
		}
	}
	checkInt("nr_requests", v.NrRequests, NrRequestsRange)
	checkInt("read_ahead_kb", v.ReadAheadKB, ReadAheadKBRange)
	checkInt("max_sectors_kb", v.MaxSectorsKB, MaxSectorsKBRange)
}

func validateService(e *SpecError, p string, v *Service) {
	if !reUnit.MatchString(v.Name) {
		e.add(p+".name", "%q: want a systemd unit name like beegfs-storage", v.Name)
	}
	if v.State != "" && !oneOf(v.State, ServiceStates) {
		e.add(p+".state", "%s", badChoice(v.State, ServiceStates))
	}
	if v.Masked != nil && *v.Masked {
		if v.State == "started" || v.State == "restarted" {
			e.add(p+".masked", "a masked unit cannot be %s", v.State)
		}
		if v.Enabled != nil && *v.Enabled {
			e.add(p+".masked", "a masked unit cannot be enabled")
		}
	}
	seen := map[string]bool{}
	for k, d := range v.DropIns {
		dp := fmt.Sprintf("%s.dropins[%d]", p, k)
		if !reName.MatchString(d.Name) {
			e.add(dp+".name", "%q: want a file name like 10-limits (\".conf\" is added)", d.Name)
		}
		if seen[d.Name] {
			e.add(dp+".name", "%q: duplicate drop-in", d.Name)
		}
		seen[d.Name] = true
		if strings.TrimSpace(d.Content) == "" {
			e.add(dp+".content", "required")
		}
	}
	if v.Enabled == nil && v.State == "" && v.Masked == nil && len(v.DropIns) == 0 {
		e.add(p, "nothing to manage: set enabled, state, masked or dropins")
	}
}

func validateMount(e *SpecError, p string, v *Mount) {
	switch {
	case v.Device == "":
		e.add(p+".device", "required: a path such as /dev/disk/by-id/wwn-0x..., or LABEL=x, UUID=x")
	case strings.HasPrefix(v.Device, "LABEL="), strings.HasPrefix(v.Device, "UUID="),
		strings.HasPrefix(v.Device, "PARTLABEL="), strings.HasPrefix(v.Device, "PARTUUID="):
		if strings.ContainsAny(v.Device, " \t\n\x00") {
			e.add(p+".device", "%q: no spaces", v.Device)
		}
	default:
		if msg := CheckPath(v.Device); msg != "" {
			e.add(p+".device", "%s", msg)
		}
	}
	if msg := CheckPath(v.Path); msg != "" {
		e.add(p+".path", "%s", msg)
	} else if strings.ContainsAny(v.Path, " \t") {
		e.add(p+".path", "%q: spaces are not supported in mount points", v.Path)
	}
	if !reFSType.MatchString(v.FSType) {
		e.add(p+".fstype", "%q: want a file system type like xfs or ext4", v.FSType)
	}
	for k, o := range v.Options {
		if o == "" || strings.ContainsAny(o, ", \t\n\x00") {
			e.add(fmt.Sprintf("%s.options[%d]", p, k), "%q: one option per list entry, no commas or spaces", o)
		}
	}
	if v.Persist != "" && !oneOf(v.Persist, MountPersist) {
		e.add(p+".persist", "%s", badChoice(v.Persist, MountPersist))
	}
}
