package sim

// ceph osd pool follows OSDMonitor's pool commands in Ceph Pacific:
//
//	osd pool create POOL [PG_NUM]    "pool 'P' created"; an existing pool is
//	                                 "pool 'P' already exists" (exit 0);
//	                                 size 3, min_size 2, pg_num 32, autoscale on
//	osd pool set POOL size N         1..10 ("pool size must be between 1 and
//	                                 10"); 1 only with mon_allow_pool_size_one
//	                                 and --yes-i-really-mean-it; min_size
//	                                 follows (size - size/2)
//	osd pool set POOL min_size N     1..size
//	pool create, set size, set pg_num: refused (ERANGE) when the pools'
//	                                 placement groups (pg_num × size,
//	                                 summed) would exceed
//	                                 mon_max_pg_per_osd (250) × the OSDs
//	                                 in (at least 3), as
//	                                 OSDMonitor::check_pg_num does
//	osd pool set POOL pg_num N       N > 0
//	osd pool set POOL pg_autoscale_mode on|off|warn
//	osd pool get POOL VAR ; osd pool ls [detail]
//	osd pool application enable POOL APP [--yes-i-really-mean-it]
//	osd pool rm POOL POOL --yes-i-really-really-mean-it
//	                                 refused unless the name is given twice
//	                                 with the flag, and unless
//	                                 mon_allow_pool_delete is true (ceph
//	                                 config set mon mon_allow_pool_delete true)
//
// A missing pool is "unrecognized pool 'P'" (ENOENT); rm of a missing pool
// is "pool 'P' does not exist" (exit 0). Progress messages go to stderr as
// the monitor's replies do. pool ls detail -f json has the pg_pool_t::dump
// field names. Once the cluster has OSDs, the mgr's devicehealth module
// adds its pool device_health_metrics (Pacific), as on a real cluster.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

func (c *cephCluster) osdPool(a cephArgs, w []string) int {
	e := c.e
	if len(w) == 0 {
		return e.cephErr(cephErrnoEINVAL, "invalid command")
	}
	switch w[0] {
	case "create":
		return c.poolCreate(w[1:])
	case "set":
		return c.poolSet(a, w[1:])
	case "get":
		return c.poolGet(a, w[1:])
	case "ls":
		return c.poolLs(a, len(w) > 1 && w[1] == "detail")
	case "application":
		if len(w) >= 4 && w[1] == "enable" {
			return c.poolAppEnable(a, w[2], w[3])
		}
	case "rm", "delete":
		return c.poolRm(a, w[1:])
	}
	return e.cephErr(cephErrnoEINVAL, "invalid command: osd pool %s", strings.Join(w, " "))
}

func (c *cephCluster) poolCreate(w []string) int {
	e := c.e
	if len(w) == 0 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: osd pool create <pool> [<pg_num>]")
	}
	name := w[0]
	if name == "" || strings.ContainsAny(name, "/ @") {
		return e.cephErr(cephErrnoEINVAL, "invalid pool name '%s'", name)
	}
	pg := poolDefaultPGNum
	if len(w) > 1 {
		n, err := strconv.Atoi(w[1])
		if err != nil {
			return e.cephErr(cephErrnoEINVAL, "pg_num '%s' is not an integer", w[1])
		}
		if n <= 0 {
			return e.cephErr(cephErrnoEINVAL, "'pg_num' must be greater than 0")
		}
		pg = n
	}
	if c.pool(name) != nil {
		fmt.Fprintf(e.Stderr, "pool '%s' already exists\n", name)
		return 0
	}
	if code := c.checkPGNum(name, pg, poolDefaultSize); code != 0 {
		return code
	}
	id := c.st.NextPG
	if id == 0 {
		id = 1
	}
	c.st.NextPG = id + 1
	c.st.Pools = append(c.st.Pools, cephPool{ID: id, Name: name, Created: time.Now().UTC(), Size: poolDefaultSize,
		MinSize: poolDefaultSize - poolDefaultSize/2, PGNum: pg, Autoscale: "on", Application: map[string]string{}})
	c.st.OSDEpoch++
	if code := c.persist(); code != 0 {
		return code
	}
	fmt.Fprintf(e.Stderr, "pool '%s' created\n", name)
	return 0
}

func (c *cephCluster) poolSet(a cephArgs, w []string) int {
	e := c.e
	if len(w) < 3 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: osd pool set <pool> <var> <val>")
	}
	p := c.pool(w[0])
	if p == nil {
		return e.cephErr(cephErrnoENOENT, "unrecognized pool '%s'", w[0])
	}
	v, val := w[1], w[2]
	num := func() (int, bool) {
		n, err := strconv.Atoi(val)
		return n, err == nil
	}
	switch v {
	case "size":
		n, ok := num()
		if !ok {
			return e.cephErr(cephErrnoEINVAL, "error parsing integer value '%s'", val)
		}
		if n <= 0 || n > poolMaxSize {
			return e.cephErr(cephErrnoEINVAL, "pool size must be between 1 and %d", poolMaxSize)
		}
		if code := c.checkPGNum(p.Name, p.PGNum, n); code != 0 {
			return code
		}
		if n == 1 && (c.config("mon_allow_pool_size_one") != "true" || a.flags["--yes-i-really-mean-it"] == "") {
			if c.config("mon_allow_pool_size_one") != "true" {
				return e.cephErr(cephErrnoEPERM, "configuring pool size as 1 is disabled by default.")
			}
			return e.cephErr(cephErrnoEPERM, "WARNING: setting pool size 1 could lead to data loss without recovery. If you are *ABSOLUTELY CERTAIN* that is what you want, pass the flag --yes-i-really-mean-it.")
		}
		p.Size = n
		p.MinSize = n - n/2
	case "min_size":
		n, ok := num()
		if !ok {
			return e.cephErr(cephErrnoEINVAL, "error parsing integer value '%s'", val)
		}
		if n < 1 || n > p.Size {
			return e.cephErr(cephErrnoEINVAL, "pool min_size must be between 1 and size, which is set to %d", p.Size)
		}
		p.MinSize = n
	case "pg_num", "pgp_num":
		n, ok := num()
		if !ok {
			return e.cephErr(cephErrnoEINVAL, "error parsing integer value '%s'", val)
		}
		if n <= 0 {
			return e.cephErr(cephErrnoEINVAL, "specified %s %d <= 0", v, n)
		}
		if v == "pg_num" {
			if code := c.checkPGNum(p.Name, n, p.Size); code != 0 {
				return code
			}
			p.PGNum = n
		}
	case "pg_autoscale_mode":
		if val != "on" && val != "off" && val != "warn" {
			return e.cephErr(cephErrnoEINVAL, "specified invalid mode %s", val)
		}
		p.Autoscale = val
	default:
		return e.cephErr(cephErrnoEINVAL, "unrecognized variable '%s'", v)
	}
	c.st.OSDEpoch++
	if code := c.persist(); code != 0 {
		return code
	}
	fmt.Fprintf(e.Stderr, "set pool %d %s to %s\n", p.ID, v, val)
	return 0
}

// monMaxPGPerOSD is mon_max_pg_per_osd's default.
const monMaxPGPerOSD = 250

// checkPGNum is OSDMonitor::check_pg_num: the placement groups of every
// pool, pool with pgNum and size, against mon_max_pg_per_osd per OSD in
// (a cluster counted as at least 3 OSDs).
func (c *cephCluster) checkPGNum(pool string, pgNum, size int) int {
	osds := max(len(c.st.OSDs), 3)
	limit := monMaxPGPerOSD * osds
	projected := pgNum * size
	for _, p := range c.st.Pools {
		if p.Name != pool {
			projected += p.PGNum * p.Size
		}
	}
	if projected > limit {
		return c.e.cephErr(cephErrnoERANGE, "pg_num %d size %d would mean %d total pgs, which exceeds max %d (mon_max_pg_per_osd %d * num_in_osds %d)",
			pgNum, size, projected, limit, monMaxPGPerOSD, osds)
	}
	return 0
}

func (c *cephCluster) poolGet(a cephArgs, w []string) int {
	e := c.e
	if len(w) < 2 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: osd pool get <pool> <var>")
	}
	p := c.pool(w[0])
	if p == nil {
		return e.cephErr(cephErrnoENOENT, "unrecognized pool '%s'", w[0])
	}
	var v any
	switch w[1] {
	case "size":
		v = p.Size
	case "min_size":
		v = p.MinSize
	case "pg_num", "pgp_num":
		v = p.PGNum
	case "pg_autoscale_mode":
		v = p.Autoscale
	default:
		return e.cephErr(cephErrnoEINVAL, "unrecognized variable '%s'", w[1])
	}
	if a.json() {
		e.printJSON(map[string]any{"pool": p.Name, "pool_id": p.ID, w[1]: v}, a.pretty())
	} else {
		fmt.Fprintf(e.Stdout, "%s: %v\n", w[1], v)
	}
	return 0
}

// poolDetail is one pool of `osd pool ls detail -f json` (pg_pool_t::dump).
func (p cephPool) detail() map[string]any {
	apps := map[string]any{}
	for k := range p.Application {
		apps[k] = map[string]any{}
	}
	// rbd pool init turns on self-managed snapshots (FLAG_SELFMANAGED_SNAPS).
	flags, flagNames := 1, "hashpspool"
	if p.RBDInit {
		flags, flagNames = 1|8192, "hashpspool,selfmanaged_snaps"
	}
	return map[string]any{
		"pool_id": p.ID, "pool_name": p.Name, "create_time": p.Created.UTC().Format("2006-01-02T15:04:05.000000-0700"),
		"flags": flags, "flags_names": flagNames, "type": 1, "size": p.Size, "min_size": p.MinSize, "crush_rule": 0,
		"peering_crush_bucket_count": 0, "peering_crush_bucket_target": 0, "peering_crush_bucket_barrier": 0,
		"peering_crush_bucket_mandatory_member": 2147483647, "object_hash": 2, "pg_autoscale_mode": p.Autoscale,
		"pg_num": p.PGNum, "pg_placement_num": p.PGNum, "pg_placement_num_target": p.PGNum, "pg_num_target": p.PGNum,
		"pg_num_pending": p.PGNum, "last_pg_merge_meta": map[string]any{}, "last_change": "1", "last_force_op_resend": "0",
		"auid": 0, "snap_mode": "selfmanaged", "snap_seq": 0, "snap_epoch": 0, "pool_snaps": []any{}, "removed_snaps": "[]",
		"quota_max_bytes": 0, "quota_max_objects": 0, "tiers": []any{}, "tier_of": -1, "read_tier": -1, "write_tier": -1,
		"cache_mode": "none", "target_max_bytes": 0, "target_max_objects": 0, "erasure_code_profile": "",
		"hit_set_params": map[string]any{"type": "none"}, "hit_set_period": 0, "hit_set_count": 0, "use_gmt_hitset": true,
		"min_read_recency_for_promote": 0, "min_write_recency_for_promote": 0, "stripe_width": 0,
		"expected_num_objects": 0, "fast_read": false, "options": map[string]any{}, "application_metadata": apps,
	}
}

func (c *cephCluster) poolLs(a cephArgs, detail bool) int {
	e := c.e
	if a.json() {
		if detail {
			out := []map[string]any{}
			for _, p := range c.st.Pools {
				out = append(out, p.detail())
			}
			e.printJSON(out, a.pretty())
		} else {
			out := []string{}
			for _, p := range c.st.Pools {
				out = append(out, p.Name)
			}
			e.printJSON(out, a.pretty())
		}
		return 0
	}
	for _, p := range c.st.Pools {
		if detail {
			apps := strings.Join(sortedKeys(p.Application), ",")
			fmt.Fprintf(e.Stdout, "pool %d '%s' replicated size %d min_size %d crush_rule 0 object_hash rjenkins pg_num %d pgp_num %d autoscale_mode %s flags hashpspool stripe_width 0 application %s\n",
				p.ID, p.Name, p.Size, p.MinSize, p.PGNum, p.PGNum, p.Autoscale, apps)
		} else {
			fmt.Fprintln(e.Stdout, p.Name)
		}
	}
	return 0
}

func (c *cephCluster) poolAppEnable(a cephArgs, pool, app string) int {
	e := c.e
	p := c.pool(pool)
	if p == nil {
		return e.cephErr(cephErrnoENOENT, "unrecognized pool '%s'", pool)
	}
	if _, ok := p.Application[app]; !ok {
		if len(p.Application) > 0 && a.flags["--yes-i-really-mean-it"] == "" {
			return e.cephErr(cephErrnoEPERM, "Are you SURE? Pool '%s' already has an enabled application; pass --yes-i-really-mean-it to proceed anyway", pool)
		}
		p.Application[app] = ""
		c.st.OSDEpoch++
		if code := c.persist(); code != 0 {
			return code
		}
	}
	fmt.Fprintf(e.Stderr, "enabled application '%s' on pool '%s'\n", app, pool)
	return 0
}

func (c *cephCluster) poolRm(a cephArgs, w []string) int {
	e := c.e
	if len(w) == 0 {
		return e.cephErr(cephErrnoEINVAL, "invalid command: osd pool rm <pool> [<pool2>] [--yes-i-really-really-mean-it]")
	}
	name := w[0]
	p := c.pool(name)
	if p == nil {
		fmt.Fprintf(e.Stderr, "pool '%s' does not exist\n", name)
		return 0
	}
	if len(w) < 2 || w[1] != name || a.flags["--yes-i-really-really-mean-it"] == "" {
		return e.cephErr(cephErrnoEPERM, "WARNING: this will *PERMANENTLY DESTROY* all data stored in pool %s.  If you are *ABSOLUTELY CERTAIN* that is what you want, pass the pool name *twice*, followed by --yes-i-really-really-mean-it.", name)
	}
	if c.config("mon_allow_pool_delete") != "true" {
		return e.cephErr(cephErrnoEPERM, "pool deletion is disabled; you must first set the mon_allow_pool_delete config option to true before you can destroy a pool")
	}
	var keep []cephPool
	for _, q := range c.st.Pools {
		if q.Name != name {
			keep = append(keep, q)
		}
	}
	c.st.Pools = keep
	delete(c.st.Images, name)
	c.st.OSDEpoch++
	if code := c.persist(); code != 0 {
		return code
	}
	fmt.Fprintf(e.Stderr, "pool '%s' removed\n", name)
	return 0
}
