package items

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/runner"
)

// Package databases.
const (
	DpkgStatus = "/var/lib/dpkg/status"
	// FakeRPMDB stands in for the rpm database in fake roots: one package a
	// line, "name<TAB>[epoch:]version-release<TAB>arch".
	FakeRPMDB = "/var/lib/rpm/hpcstorage-fake-rpmdb.txt"
)

type packageDB struct {
	mgr  string
	pkgs []protocol.Package
}

type packageItem struct {
	id string
	p  *protocol.PackageVersion
}

func (i *packageItem) ID() string { return i.id }

// InstalledPackages reads the root's package database: the fake rpm
// database, else dpkg's status file, else (on the host only) rpm itself.
func InstalledPackages(ctx context.Context, root Reader, run runner.Runner) (string, []protocol.Package, error) {
	if data, err := root.ReadFile(FakeRPMDB); err == nil {
		var out []protocol.Package
		for _, l := range strings.Split(string(data), "\n") {
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			f := strings.Split(l, "\t")
			if len(f) >= 2 {
				out = append(out, protocol.Package{Name: f[0], Version: f[1]})
			}
		}
		return "rpm", out, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	if data, err := root.ReadFile(DpkgStatus); err == nil {
		return "dpkg", parseDpkgStatus(string(data)), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	if root.IsHost() {
		if ok, _ := root.Exists("/var/lib/rpm"); ok {
			out, code, err := run.Query(ctx, "rpm", "-qa", "--qf", `%{NAME}\t%{EPOCHNUM}:%{VERSION}-%{RELEASE}\n`)
			if err != nil {
				return "", nil, err
			}
			if code != 0 {
				return "", nil, fmt.Errorf("rpm -qa exited %d", code)
			}
			var pkgs []protocol.Package
			for _, l := range strings.Split(out, "\n") {
				if n, v, ok := strings.Cut(l, "\t"); ok {
					pkgs = append(pkgs, protocol.Package{Name: n, Version: v})
				}
			}
			return "rpm", pkgs, nil
		}
	}
	return "", nil, nil
}

func parseDpkgStatus(s string) []protocol.Package {
	var out []protocol.Package
	for _, stanza := range strings.Split(s, "\n\n") {
		var name, version, status string
		for _, l := range strings.Split(stanza, "\n") {
			k, v, ok := strings.Cut(l, ": ")
			if !ok {
				continue
			}
			switch k {
			case "Package":
				name = v
			case "Version":
				version = v
			case "Status":
				status = v
			}
		}
		if name != "" && strings.HasSuffix(status, " installed") {
			out = append(out, protocol.Package{Name: name, Version: version})
		}
	}
	return out
}

// distTag finds the distribution release in an rpm version's release
// part: "3.10.0-957.5.1.el7" and "4.1.1-12.el7_6.4" are el7.
var distTag = regexp.MustCompile(`\.(el[0-9]+)(?:[._]|$)`)

// platforms are the releases a floor is about; nil: every node.
func floorPlatforms(p *protocol.PackageVersion) []string {
	if len(p.Platforms) > 0 {
		return p.Platforms
	}
	if m := distTag.FindStringSubmatch(p.Min); m != nil {
		return []string{m[1]}
	}
	return nil
}

// nodePlatform reads the root's release once per run ("el9"; "" when it
// is not of the Red Hat family or has no os-release).
func nodePlatform(env *Env) string {
	if env.platform == nil {
		b, err := env.fs().ReadFile("/etc/os-release")
		if err != nil {
			b, _ = env.fs().ReadFile("/usr/lib/os-release")
		}
		p := protocol.ParseOSRelease(b).Platform()
		env.platform = &p
	}
	return *env.platform
}

func (i *packageItem) Plan(ctx context.Context, env *Env) (Plan, error) {
	var plan Plan
	// An el7 floor says nothing about an el9 package: its versions are
	// another line of builds. The node is told, not refused.
	if want := floorPlatforms(i.p); len(want) > 0 && !slices.Contains(want, nodePlatform(env)) {
		node := nodePlatform(env)
		if node == "" {
			node = "not of the Red Hat family"
		}
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("floor %s >= %s is for %s; this node is %s: not checked",
			i.p.Name, i.p.Min, strings.Join(want, ", "), node))
		return plan, nil
	}
	if env.packages == nil {
		mgr, pkgs, err := InstalledPackages(ctx, env.fs(), env.Run)
		if err != nil {
			return plan, err
		}
		env.packages = &packageDB{mgr: mgr, pkgs: pkgs}
	}
	mgr, pkgs := env.packages.mgr, env.packages.pkgs
	if mgr == "" {
		return plan, fmt.Errorf("no package database under the root (%s or rpm): %w", DpkgStatus, ErrNotFound)
	}
	cmp := CompareRPM
	if mgr == "dpkg" {
		cmp = CompareDpkg
	}
	best := ""
	for _, p := range pkgs {
		if p.Name == i.p.Name && (best == "" || cmp(p.Version, best) > 0) {
			best = p.Version
		}
	}
	why := ""
	if i.p.Why != "" {
		why = " (below it: " + i.p.Why + ")"
	}
	if best == "" {
		return plan, fmt.Errorf("%s is not installed; at least %s is required%s: %w", i.p.Name, i.p.Min, why, ErrPreflight)
	}
	if cmp(best, i.p.Min) < 0 {
		return plan, fmt.Errorf("%s %s is installed; at least %s is required%s: %w", i.p.Name, best, i.p.Min, why, ErrPreflight)
	}
	if i.p.Name == "kernel" && mgr == "rpm" {
		// A newer kernel package does not help until the node boots it.
		rel, err := readKernel(env.fs(), "/proc/sys/kernel/osrelease")
		if err == nil {
			running := strings.TrimSpace(rel)
			for _, arch := range []string{".x86_64", ".aarch64", ".ppc64le", ".s390x", ".i686"} {
				running = strings.TrimSuffix(running, arch)
			}
			if cmp(running, i.p.Min) < 0 {
				return plan, fmt.Errorf("running kernel %s is below %s (installed: %s; reboot into it)%s: %w", running, i.p.Min, best, why, ErrPreflight)
			}
		}
	}
	return plan, nil
}

// CompareRPM orders rpm versions "[epoch:]version[-release]" like rpmvercmp.
func CompareRPM(a, b string) int {
	ea, va, ra := splitEVR(a)
	eb, vb, rb := splitEVR(b)
	if ea != eb {
		if ea < eb {
			return -1
		}
		return 1
	}
	if c := rpmvercmp(va, vb); c != 0 {
		return c
	}
	if ra == "" || rb == "" {
		return 0
	}
	return rpmvercmp(ra, rb)
}

func splitEVR(s string) (int, string, string) {
	epoch := 0
	if e, rest, ok := strings.Cut(s, ":"); ok {
		epoch, _ = strconv.Atoi(e)
		s = rest
	}
	if k := strings.LastIndexByte(s, '-'); k >= 0 {
		return epoch, s[:k], s[k+1:]
	}
	return epoch, s, ""
}

func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func rpmvercmp(a, b string) int {
	if a == b {
		return 0
	}
	for len(a) > 0 || len(b) > 0 {
		for len(a) > 0 && !isAlnum(a[0]) && a[0] != '~' && a[0] != '^' {
			a = a[1:]
		}
		for len(b) > 0 && !isAlnum(b[0]) && b[0] != '~' && b[0] != '^' {
			b = b[1:]
		}
		// "~" sorts before everything, even the end of the string.
		if len(a) > 0 && a[0] == '~' || len(b) > 0 && b[0] == '~' {
			if len(a) == 0 || a[0] != '~' {
				return 1
			}
			if len(b) == 0 || b[0] != '~' {
				return -1
			}
			a, b = a[1:], b[1:]
			continue
		}
		// "^" sorts after the end of the string, before anything else.
		if len(a) > 0 && a[0] == '^' || len(b) > 0 && b[0] == '^' {
			if len(a) == 0 {
				return -1
			}
			if len(b) == 0 {
				return 1
			}
			if a[0] != '^' {
				return 1
			}
			if b[0] != '^' {
				return -1
			}
			a, b = a[1:], b[1:]
			continue
		}
		if len(a) == 0 || len(b) == 0 {
			break
		}
		num := isDigit(a[0])
		seg := func(s string) (string, string) {
			k := 0
			for k < len(s) && (num && isDigit(s[k]) || !num && isAlpha(s[k])) {
				k++
			}
			return s[:k], s[k:]
		}
		var sa, sb string
		sa, a = seg(a)
		sb, b = seg(b)
		if sb == "" {
			// Different segment types: numbers are newer than letters.
			if num {
				return 1
			}
			return -1
		}
		if num {
			sa, sb = strings.TrimLeft(sa, "0"), strings.TrimLeft(sb, "0")
			if len(sa) != len(sb) {
				if len(sa) < len(sb) {
					return -1
				}
				return 1
			}
		}
		if c := strings.Compare(sa, sb); c != 0 {
			return c
		}
	}
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return -1
	}
	return 1
}

// CompareDpkg orders Debian versions "[epoch:]upstream[-revision]".
func CompareDpkg(a, b string) int {
	ea, ua, ra := splitDeb(a)
	eb, ub, rb := splitDeb(b)
	if ea != eb {
		if ea < eb {
			return -1
		}
		return 1
	}
	if c := verrevcmp(ua, ub); c != 0 {
		return c
	}
	return verrevcmp(ra, rb)
}

func splitDeb(s string) (int, string, string) {
	epoch := 0
	if e, rest, ok := strings.Cut(s, ":"); ok {
		epoch, _ = strconv.Atoi(e)
		s = rest
	}
	if k := strings.LastIndexByte(s, '-'); k >= 0 {
		return epoch, s[:k], s[k+1:]
	}
	return epoch, s, ""
}

// debOrder weighs a character: "~" before the end, the end before letters,
// letters before other symbols.
func debOrder(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	c := s[i]
	switch {
	case isDigit(c):
		return 0
	case isAlpha(c):
		return int(c)
	case c == '~':
		return -1
	}
	return int(c) + 256
}

func verrevcmp(a, b string) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		for i < len(a) && !isDigit(a[i]) || j < len(b) && !isDigit(b[j]) {
			ac, bc := debOrder(a, i), debOrder(b, j)
			if ac != bc {
				return sign(ac - bc)
			}
			i++
			j++
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		first := 0
		for i < len(a) && isDigit(a[i]) && j < len(b) && isDigit(b[j]) {
			if first == 0 {
				first = int(a[i]) - int(b[j])
			}
			i++
			j++
		}
		if i < len(a) && isDigit(a[i]) {
			return 1
		}
		if j < len(b) && isDigit(b[j]) {
			return -1
		}
		if first != 0 {
			return sign(first)
		}
	}
	return 0
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
