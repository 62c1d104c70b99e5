package sim

// Storage Scale releases in the lab: the code level a node has installed
// (its gpfs.base rpm) decides which options the mm commands take, the
// cluster's minReleaseLevel is raised by mmchconfig release=LATEST, and a
// file system's format level by mmchfs -V full.

import (
	"fmt"
	"strconv"
	"strings"
)

// gpfsDefaultLevel is the level of a node without a gpfs.base record and
// of state written before levels were kept (the lab's former only one).
const gpfsDefaultLevel = "5.1.9.0"

// gpfsCodeLevel is the installed code level: gpfs.base's version in the
// node's rpm database ("5.2.3-0" reads 5.2.3.0).
func gpfsCodeLevel(e *Env) string {
	// fakenode.RPMDBPath (fakenode imports this package).
	data, _ := e.read("/var/lib/rpm/hpcstorage-fake-rpmdb.txt")
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 2 || f[0] != "gpfs.base" {
			continue
		}
		v := f[1]
		if _, after, ok := strings.Cut(v, ":"); ok {
			v = after
		}
		return strings.Replace(v, "-", ".", 1)
	}
	return gpfsDefaultLevel
}

func parseGPFSLevel(s string) [4]int {
	var l [4]int
	for i, p := range strings.SplitN(s, ".", 4) {
		l[i], _ = strconv.Atoi(p)
	}
	return l
}

// gpfsLevelBelow says whether level a is below b.
func gpfsLevelBelow(a, b string) bool {
	x, y := parseGPFSLevel(a), parseGPFSLevel(b)
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}

// mmcrfsOptions are mmcrfs options that exist only between two code
// levels (from: first level with it; until: first level without it).
var mmcrfsOptions = []struct{ opt, from, until string }{
	{"--metadata-block-size", "", "6.0.0.0"},
	{"--write-cache-threshold", "", "6.0.0.0"},
	{"--auto-inode-limit", "5.1.6.0", ""},
	{"--noauto-inode-limit", "5.1.6.0", ""},
}

// mmcrfsLevelCheck refuses an option this code level's mmcrfs lacks, as
// its usage check does ("" when every option is known).
func mmcrfsLevelCheck(level string, f flags) string {
	for _, o := range mmcrfsOptions {
		if !f.set[o.opt] {
			continue
		}
		if o.from != "" && gpfsLevelBelow(level, o.from) || o.until != "" && !gpfsLevelBelow(level, o.until) {
			return fmt.Sprintf("mmcrfs: Invalid option: %s (not an option of this release, %s).", o.opt, level)
		}
	}
	return ""
}

// minReleaseLevel is the cluster's minReleaseLevel.
func (g *gpfsRun) minReleaseLevel() string {
	if g.st.MinReleaseLevel != "" {
		return g.st.MinReleaseLevel
	}
	return gpfsDefaultLevel
}

// releaseLatest is mmchconfig release=LATEST: the cluster's level becomes
// the installed code's, refused while any node runs older code (the
// cluster would then lock it out).
func (g *gpfsRun) releaseLatest() int {
	code := gpfsCodeLevel(g.e)
	for _, n := range g.st.Nodes {
		env, done := g.nodeEnv(n.Name)
		if env == nil {
			continue
		}
		lvl := gpfsCodeLevel(env)
		done()
		if gpfsLevelBelow(lvl, code) {
			return g.fail("mmchconfig: 6027-2044 Node %s is running code level %s, below %s: upgrade it before release=LATEST.",
				n.Name, lvl, code)
		}
	}
	if gpfsLevelBelow(code, g.minReleaseLevel()) {
		return g.fail("mmchconfig: The installed code level %s is below the cluster's minReleaseLevel %s.", code, g.minReleaseLevel())
	}
	g.st.MinReleaseLevel = code
	g.dirty = true
	fmt.Fprintf(g.e.Stderr, "mmchconfig: Command successfully completed\n")
	return 0
}

// fsFormat is mmlsfs -V's value: the lab's stand-in format number (the
// one it always printed) and the format's release level, the part the
// provider reads.
func fsFormat(f *gpfsFS) string {
	lvl := f.Level
	if lvl == "" {
		lvl = gpfsDefaultLevel
	}
	return "27.00 (" + lvl + ")"
}

// mmchfs takes -V full|compat only in the lab: the file system's format
// follows the cluster's minReleaseLevel.
func mmchfs(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		f, err := parseFlags(args, "-V")
		if err != nil {
			return g.fail("%v", err)
		}
		if len(f.pos) != 1 || !f.set["-V"] {
			return g.fail("6027-1268 Missing arguments.")
		}
		for o := range f.set {
			if o != "-V" {
				return g.fail("mmchfs: option %s is not simulated by the lab.", o)
			}
		}
		fsys, code := g.fsOrFail(strings.TrimPrefix(f.pos[0], "/dev/"))
		if fsys == nil {
			return code
		}
		switch f.vals["-V"] {
		case "full", "compat":
		default:
			return g.fail("Incorrect value %s for the -V option (want full or compat).", f.vals["-V"])
		}
		fsys.Level = g.minReleaseLevel()
		g.dirty = true
		fmt.Fprintf(e.Stdout, "mmchfs: The file system format of %s is now %s.\n", fsys.Name, fsFormat(fsys))
		return 0
	})
}
