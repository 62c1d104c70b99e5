package nodeconfig

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Observe maps a check result of desired's spec onto desired: the returned
// config holds what the node really has wherever the agent's diff tells it
// (a sysctl's live value, a file's content or keys, its mode, THP modes,
// queue settings, a unit's state), so drift shows as a change of that very
// attribute. drift holds, by item id, the agent's own diff (or error) of
// every item that would change; it is empty when the node matches.
func Observe(desired Config, res *protocol.Result) (observed Config, drift map[string]string) {
	observed = desired.Clone()
	drift = map[string]string{}
	if res == nil {
		return observed, drift
	}
	items, _ := desired.Items()
	for i, ir := range res.Items {
		if i >= len(items) || ir.ID != items[i].ID() {
			// Reverts of keys the state no longer lists are the next
			// apply's business, not drift of a managed attribute.
			continue
		}
		if ir.Error != "" {
			drift[ir.ID] = "error: " + ir.Error
			continue
		}
		if !ir.Changed {
			continue
		}
		d := ir.Diff
		if d == "" {
			d = "(differs; the agent gave no diff)"
		}
		drift[ir.ID] = d
		observe(&observed, items[i], ir.Diff)
	}
	return observed, drift
}

var (
	reValueLine = regexp.MustCompile(`^-(\S+) = (.*)$`)
	reQueueLine = regexp.MustCompile(`^-\S+ queue/(\w+) = (.*)$`)
	reModeLine  = regexp.MustCompile(`^mode (\S+): ([0-7]+) -> [0-7]+$`)
	reUnitLine  = regexp.MustCompile(`^-(\S+): (\S.*)$`)
)

func observe(c *Config, it protocol.Item, diff string) {
	switch {
	case it.Sysctl != nil:
		if old, ok := minusValue(diff, it.Sysctl.Key); ok {
			c.Sysctl[it.Sysctl.Key] = old
		}
	case it.THP != nil:
		t := *c.THP
		if old, ok := minusValue(diff, "transparent_hugepage/enabled"); ok && t.Enabled != "" {
			t.Enabled = old
		}
		if old, ok := minusValue(diff, "transparent_hugepage/defrag"); ok && t.Defrag != "" {
			t.Defrag = old
		}
		c.THP = &t
	case it.BlockQueue != nil:
		observeQueue(c, it, diff)
	case it.File != nil:
		observeFile(c, it.File, diff)
	case it.Service != nil:
		observeService(c, it.Service, diff)
	}
}

// minusValue finds "-name = old" (the agent's one-value change line).
func minusValue(diff, name string) (string, bool) {
	for _, l := range strings.Split(diff, "\n") {
		if m := reValueLine.FindStringSubmatch(l); m != nil && m[1] == name {
			return m[2], true
		}
		if strings.HasPrefix(l, "--- ") {
			break // file sections follow
		}
	}
	return "", false
}

func observeQueue(c *Config, it protocol.Item, diff string) {
	idx := -1
	for i, q := range c.BlockQueues {
		if q.Match == it.BlockQueue.Match {
			idx = i
			break
		}
	}
	if idx < 0 {
		return
	}
	q := c.BlockQueues[idx]
	for _, l := range strings.Split(diff, "\n") {
		m := reQueueLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		val := m[2]
		if m[1] == "scheduler" {
			// sysfs shows "[mq-deadline] kyber none"; keep the active one.
			if i, j := strings.IndexByte(val, '['), strings.IndexByte(val, ']'); i >= 0 && j > i {
				val = val[i+1 : j]
			}
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		switch m[1] {
		case "scheduler":
			if q.Scheduler != "" {
				q.Scheduler = val
			}
		case "nr_requests":
			if err == nil && q.NrRequests != nil {
				q.NrRequests = &n
			}
		case "read_ahead_kb":
			if err == nil && q.ReadAheadKB != nil {
				q.ReadAheadKB = &n
			}
		case "max_sectors_kb":
			if err == nil && q.MaxSectorsKB != nil {
				q.MaxSectorsKB = &n
			}
		}
	}
	c.BlockQueues[idx] = q
}

func observeFile(c *Config, f *protocol.File, diff string) {
	cur := c.Files[f.Path]
	secs, rest := parseSections(diff)
	for _, l := range rest {
		if m := reModeLine.FindStringSubmatch(l); m != nil && m[1] == f.Path && cur.Mode != "" {
			cur.Mode = m[2]
		}
	}
	sec, ok := secs[f.Path]
	if ok {
		if sec.created() {
			// The file is missing: the entry is missing too, so the plan
			// shows it being added.
			delete(c.Files, f.Path)
			return
		}
		switch {
		case f.Content != nil:
			if old, err := sec.reverse(*f.Content); err == nil {
				cur.Content = &old
			}
		case f.Set != nil:
			for k := range f.Set {
				old, found := sec.oldKey(k)
				switch {
				case found:
					cur.Set[k] = old
				case sec.addsKey(k):
					delete(cur.Set, k)
				}
			}
		}
	}
	c.Files[f.Path] = cur
}

func observeService(c *Config, s *protocol.Service, diff string) {
	cur := c.Services[s.Name]
	unit := protocol.UnitName(s.Name)
	f, t := false, true
	for _, l := range strings.Split(diff, "\n") {
		m := reUnitLine.FindStringSubmatch(l)
		if m == nil || m[1] != unit {
			continue
		}
		switch m[2] {
		case "disabled":
			if cur.Enabled != nil {
				cur.Enabled = &f
			}
		case "enabled":
			if cur.Enabled != nil {
				cur.Enabled = &t
			}
		case "inactive":
			if cur.State != "" {
				cur.State = "stopped"
			}
		case "active":
			if cur.State != "" {
				cur.State = "started"
			}
		case "masked":
			if cur.Masked != nil {
				cur.Masked = &t
			}
		case "not masked":
			if cur.Masked != nil {
				cur.Masked = &f
			}
		}
	}
	c.Services[s.Name] = cur
}

// section is one file's unified diff.
type section struct {
	hunks []hunk
}

type hunk struct {
	oldStart, oldLen int
	newStart, newLen int
	lines            []string // with their ' ', '-', '+' marker; "\\" lines fold into the previous line
}

// created: the old side is empty (the file did not exist or was empty).
func (s section) created() bool {
	return len(s.hunks) == 1 && s.hunks[0].oldLen == 0 && s.hunks[0].oldStart == 0
}

var reHunk = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseSections splits an item diff into its file sections (by path) and
// the other lines (value changes, mode lines, commands run).
func parseSections(diff string) (map[string]section, []string) {
	secs := map[string]section{}
	var rest []string
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\n")
		if !strings.HasPrefix(l, "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
			if l != "" {
				rest = append(rest, l)
			}
			continue
		}
		name := strings.TrimPrefix(l, "--- ")
		i += 2
		var sec section
		for i < len(lines) {
			m := reHunk.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
			if m == nil {
				break
			}
			h := hunk{oldStart: atoi(m[1]), oldLen: atoiDef(m[2], 1), newStart: atoi(m[3]), newLen: atoiDef(m[4], 1)}
			i++
			oldLeft, newLeft := h.oldLen, h.newLen
			for i < len(lines) && (oldLeft > 0 || newLeft > 0 || strings.HasPrefix(lines[i], "\\")) {
				l := lines[i]
				switch {
				case strings.HasPrefix(l, "\\"):
					if n := len(h.lines); n > 0 {
						h.lines[n-1] = strings.TrimSuffix(h.lines[n-1], "\n")
					}
				case strings.HasPrefix(l, " "):
					oldLeft--
					newLeft--
					h.lines = append(h.lines, l)
				case strings.HasPrefix(l, "-"):
					oldLeft--
					h.lines = append(h.lines, l)
				case strings.HasPrefix(l, "+"):
					newLeft--
					h.lines = append(h.lines, l)
				default:
					oldLeft, newLeft = 0, 0
					i--
				}
				i++
			}
			sec.hunks = append(sec.hunks, h)
		}
		secs[name] = sec
		i-- // the loop's i++ moves to the line after the section
	}
	return secs, rest
}

var errPatch = errors.New("diff does not apply to the desired content")

// reverse rebuilds the node's content from the desired content and the
// node-to-desired diff.
func (s section) reverse(desired string) (string, error) {
	want := splitLines(desired)
	var out strings.Builder
	next := 0 // next desired line not yet copied
	for _, h := range s.hunks {
		start := h.newStart - 1
		if h.newLen == 0 {
			start = h.newStart // "+n,0" names the line before
		}
		if start < next || start > len(want) {
			return "", errPatch
		}
		for ; next < start; next++ {
			out.WriteString(want[next])
		}
		for _, l := range h.lines {
			body := l[1:]
			switch l[0] {
			case ' ', '+':
				if next >= len(want) || want[next] != body {
					return "", fmt.Errorf("line %d: %w", next+1, errPatch)
				}
				next++
				if l[0] == ' ' {
					out.WriteString(body)
				}
			case '-':
				out.WriteString(body)
			}
		}
	}
	for ; next < len(want); next++ {
		out.WriteString(want[next])
	}
	return out.String(), nil
}

// oldKey finds "key = value" among the removed lines.
func (s section) oldKey(key string) (string, bool) {
	return s.keyLine('-', key)
}

func (s section) addsKey(key string) bool {
	_, ok := s.keyLine('+', key)
	return ok
}

func (s section) keyLine(mark byte, key string) (string, bool) {
	for _, h := range s.hunks {
		for _, l := range h.lines {
			if l[0] != mark {
				continue
			}
			body := strings.TrimSpace(l[1:])
			k, v, ok := strings.Cut(body, "=")
			if ok && strings.TrimSpace(k) == key {
				return strings.TrimSpace(v), true
			}
		}
	}
	return "", false
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func atoiDef(s string, def int) int {
	if s == "" {
		return def
	}
	return atoi(s)
}

// FromRevert rebuilds what an owner manages from a check of an empty spec:
// the agent lists every key the owner holds as a revert, with the diff from
// the node's current value back to the original. It is how import learns a
// resource: sysctl values, THP modes, kernel modules, unit states and the
// files the owner created are recovered; other keys are returned as unknown
// so the caller can say which ones the configuration must spell out.
func FromRevert(res *protocol.Result) (c Config, unknown []string) {
	if res == nil {
		return c, nil
	}
	created := map[string]string{} // path -> content of files the owner created
	for _, ir := range res.Items {
		key, ok := strings.CutPrefix(ir.ID, "revert:")
		if !ok || !strings.HasPrefix(key, "file:") {
			continue
		}
		p := strings.TrimPrefix(key, "file:")
		secs, _ := parseSections(ir.Diff)
		if sec, ok := secs[p]; ok && len(sec.hunks) == 1 && sec.hunks[0].newLen == 0 && sec.hunks[0].newStart == 0 {
			var b strings.Builder
			for _, l := range sec.hunks[0].lines {
				b.WriteString(l[1:])
			}
			created[p] = b.String()
		}
	}
	// The owner's generated drop-ins hold the desired values whole: every
	// sysctl (changed or not) and the THP modes.
	for p, content := range created {
		base := path.Base(p)
		if !strings.Contains(base, "hpcstorage-") {
			continue
		}
		for _, l := range strings.Split(content, "\n") {
			switch {
			case strings.HasPrefix(p, "/etc/sysctl.d/"):
				if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(strings.TrimSpace(l), "#") {
					c.Sysctl = put(c.Sysctl)
					c.Sysctl[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			case strings.HasPrefix(p, "/etc/tmpfiles.d/"):
				f := strings.Fields(l)
				if len(f) == 7 && f[0] == "w" && strings.HasPrefix(f[1], "/sys/kernel/mm/transparent_hugepage/") {
					if c.THP == nil {
						c.THP = &THP{}
					}
					if strings.HasSuffix(f[1], "/enabled") {
						c.THP.Enabled = f[6]
					} else {
						c.THP.Defrag = f[6]
					}
				}
			}
		}
	}
	for _, ir := range res.Items {
		key, ok := strings.CutPrefix(ir.ID, "revert:")
		if !ok {
			continue
		}
		kind, name, _ := strings.Cut(key, ":")
		switch {
		case kind == "sysctl" && c.Sysctl[name] != "":
			continue
		case kind == "sysfs" && c.THP != nil && strings.HasPrefix(name, "/sys/kernel/mm/transparent_hugepage/"):
			continue
		case kind == "sysctl":
			if v, ok := firstMinusValue(ir.Diff); ok {
				c.Sysctl = put(c.Sysctl)
				c.Sysctl[name] = v
				continue
			}
		case kind == "sysfs" && strings.HasPrefix(name, "/sys/kernel/mm/transparent_hugepage/"):
			if v, ok := firstMinusValue(ir.Diff); ok {
				if c.THP == nil {
					c.THP = &THP{}
				}
				if strings.HasSuffix(name, "/enabled") {
					c.THP.Enabled = v
				} else {
					c.THP.Defrag = v
				}
				continue
			}
		case kind == "module":
			m := KernelModule{}
			if conf, ok := created["/etc/modprobe.d/hpcstorage-"+name+".conf"]; ok {
				for _, l := range strings.Split(conf, "\n") {
					if opts, ok := strings.CutPrefix(l, "options "+name+" "); ok {
						m.Options = strings.TrimSpace(opts)
					}
				}
			}
			c.KernelModules = put(c.KernelModules)
			c.KernelModules[name] = m
			continue
		case kind == "unit":
			s := Service{}
			if strings.Contains(ir.Diff, "systemctl disable") {
				t := true
				s.Enabled = &t
			}
			if strings.Contains(ir.Diff, "systemctl stop") {
				s.State = "started"
			}
			if s.Enabled != nil || s.State != "" {
				c.Services = put(c.Services)
				c.Services[strings.TrimSuffix(name, ".service")] = s
				continue
			}
		case kind == "file":
			if strings.Contains(path.Base(name), "hpcstorage-") {
				continue // generated by the owner's sysctl, thp, queue or module items
			}
			if content, ok := created[name]; ok {
				c.Files = put(c.Files)
				c.Files[name] = File{Content: &content}
				continue
			}
		}
		unknown = append(unknown, key)
	}
	return c, unknown
}

// firstMinusValue is the old value of a one-value change line.
func firstMinusValue(diff string) (string, bool) {
	for _, l := range strings.Split(diff, "\n") {
		if m := reValueLine.FindStringSubmatch(l); m != nil {
			return m[2], true
		}
	}
	return "", false
}
