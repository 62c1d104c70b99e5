package sim

// rbd follows rbd(8) of Ceph Pacific for the forms the provider uses:
//
//	rbd pool init POOL
//	rbd create [POOL/]IMG --size SIZE [--image-feature f1,f2]
//	rbd resize [POOL/]IMG --size SIZE [--allow-shrink]
//	rbd ls [-l] [--format json] [POOL] ; rbd info [POOL/]IMG [--format json]
//	rbd rm [POOL/]IMG
//	rbd map [POOL/]IMG [--id NAME] ; rbd unmap DEV|[POOL/]IMG
//	rbd showmapped [--format json]
//
// SIZE is in MiB unless suffixed (K, M, G, T: binary). The default pool is
// "rbd". Images have format 2, 4 MiB objects (order 22) and Pacific's
// default features (layering, exclusive-lock, object-map, fast-diff,
// deep-flatten) unless --image-feature says otherwise; feature
// dependencies are checked as librbd does (object-map needs
// exclusive-lock, fast-diff needs object-map, journaling needs
// exclusive-lock). Refusals, with rbd's messages and the errno as exit
// status: a missing pool ("error opening pool", 2), an existing image
// (17), a missing image (2), shrinking without --allow-shrink (22),
// removing an image a client still maps ("image still has watchers", 16),
// an entity whose osd caps do not cover the pool (1).
//
// map runs on a client: it connects with the client's ceph.conf and
// keyring (--id NAME: /etc/ceph/ceph.client.NAME.keyring), takes the
// lowest free /dev/rbdN, and lays the device out in the client's root
// (/dev/rbdN, /sys/block/rbdN, the udev link /dev/rbd/POOL/IMG); the
// mapping table is volatile (RunDir), as the kernel's is. Mapping an image
// already mapped maps it again with rbd's warning, as krbd does.
// showmapped and unmap need no cluster connection (sysfs only).

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rbdImg is one image in the cluster state.
type rbdImg struct {
	Name     string    `json:"name"`
	ID       string    `json:"id"`
	Size     int64     `json:"size"`
	Features []string  `json:"features"`
	Created  time.Time `json:"created"`
	Modified time.Time `json:"modified"`
	Watchers []string  `json:"watchers,omitempty"` // host:rbdN of the clients mapping it
}

// rbdMapping is one mapped device of a client (RunDir/rbd-mapped.json).
type rbdMapping struct {
	ID     int    `json:"id"`
	Pool   string `json:"pool"`
	Image  string `json:"name"`
	Entity string `json:"entity"`
}

const rbdMappedFile = RunDir + "/rbd-mapped.json"

var rbdDefaultFeatures = []string{"layering", "exclusive-lock", "object-map", "fast-diff", "deep-flatten"}

var rbdFeatures = []string{"layering", "striping", "exclusive-lock", "object-map", "fast-diff", "deep-flatten", "journaling", "data-pool"}

func rbdTool(e *Env, args []string) int {
	a := parseCephArgs(args)
	if len(a.words) == 0 {
		return e.fail(22, "error: no command given")
	}
	if a.format == "" {
		a.format = "plain"
	}
	w := a.words
	if w[0] == "device" && len(w) > 1 {
		// rbd device map|unmap|list are the long forms.
		w = append([]string{map[string]string{"map": "map", "unmap": "unmap", "list": "showmapped", "ls": "showmapped"}[w[1]]}, w[2:]...)
	}
	switch w[0] {
	case "showmapped":
		return rbdShowmapped(e, a)
	case "unmap":
		return rbdUnmap(e, a, w[1:])
	}
	c, code := e.connect(a, "rbd")
	if c == nil {
		return code
	}
	defer c.close()
	switch {
	case len(w) >= 3 && w[0] == "pool" && w[1] == "init":
		return c.rbdPoolInit(w[2])
	case w[0] == "create":
		return c.rbdCreate(a, w[1:])
	case w[0] == "resize":
		return c.rbdResize(a, w[1:])
	case w[0] == "ls" || w[0] == "list":
		return c.rbdLs(a, w[1:])
	case w[0] == "info":
		return c.rbdInfo(a, w[1:])
	case w[0] == "rm" || w[0] == "remove":
		return c.rbdRm(a, w[1:])
	case w[0] == "map":
		return c.rbdMap(a, w[1:])
	}
	return e.fail(22, "error: unknown option '%s'", strings.Join(a.words, " "))
}

// imageSpec splits [POOL/]IMG (with -p/--pool as the pool's default).
func imageSpec(a cephArgs, w []string) (pool, img string) {
	pool = "rbd"
	if p := a.flags["--pool"]; p != "" {
		pool = p
	}
	if p := a.flags["-p"]; p != "" {
		pool = p
	}
	if i := a.flags["--image"]; i != "" {
		img = i
	}
	if len(w) > 0 {
		if p, i, ok := strings.Cut(w[0], "/"); ok {
			return p, i
		}
		img = w[0]
	}
	return pool, img
}

// rbdSize parses --size: MiB by default, K/M/G/T binary suffixes.
func rbdSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mult := int64(1 << 20)
	if s != "" {
		switch strings.ToUpper(s[len(s)-1:]) {
		case "K":
			mult, s = 1<<10, s[:len(s)-1]
		case "M":
			mult, s = 1<<20, s[:len(s)-1]
		case "G":
			mult, s = 1<<30, s[:len(s)-1]
		case "T":
			mult, s = 1<<40, s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * mult, true
}

// allowed reports whether the connected entity's osd caps cover pool.
func (c *cephCluster) allowed(entity, pool string) bool {
	au := c.auth(entity)
	if au == nil {
		return false
	}
	for _, grant := range strings.Split(au.Caps["osd"], ",") {
		g := strings.TrimSpace(grant)
		switch {
		case g == "allow *" || g == "allow rwx" || g == "profile rbd" || g == "allow rw":
			return true
		case strings.HasPrefix(g, "profile rbd ") || strings.HasPrefix(g, "allow "):
			if strings.Contains(g, "pool="+pool) && !strings.Contains(g, "profile rbd-read-only") {
				return true
			}
		}
	}
	return false
}

func (c *cephCluster) openPool(a cephArgs, pool string) (*cephPool, int) {
	p := c.pool(pool)
	if p == nil {
		c.e.fail(2, "error opening pool '%s': (2) No such file or directory", pool)
		return nil, 2
	}
	if !c.allowed(a.entity, pool) {
		c.e.fail(1, "error opening pool '%s': (1) Operation not permitted", pool)
		return nil, 1
	}
	return p, 0
}

func (c *cephCluster) image(pool, name string) *rbdImg {
	for i := range c.st.Images[pool] {
		if c.st.Images[pool][i].Name == name {
			return &c.st.Images[pool][i]
		}
	}
	return nil
}

func (c *cephCluster) rbdPoolInit(pool string) int {
	p := c.pool(pool)
	if p == nil {
		return c.e.fail(2, "error opening pool '%s': (2) No such file or directory", pool)
	}
	if _, ok := p.Application["rbd"]; !ok {
		if len(p.Application) > 0 {
			return c.e.fail(1, "error enabling rbd application on pool '%s': (1) Operation not permitted", pool)
		}
		p.Application["rbd"] = ""
	}
	p.RBDInit = true
	return c.persist()
}

func (c *cephCluster) rbdCreate(a cephArgs, w []string) int {
	e := c.e
	pool, name := imageSpec(a, w)
	if name == "" {
		return e.fail(22, "image name was not specified")
	}
	if strings.ContainsAny(name, "@/") {
		return e.fail(22, "invalid image name '%s'", name)
	}
	sz, ok := rbdSize(a.flags["--size"])
	if a.flags["--size"] == "" {
		return e.fail(22, "must specify --size <M/G/T>")
	}
	if !ok {
		return e.fail(22, "invalid size value '%s'", a.flags["--size"])
	}
	feats := append([]string(nil), rbdDefaultFeatures...)
	if f := a.flags["--image-feature"]; f != "" {
		feats = nil
		for _, x := range strings.Split(f, ",") {
			x = strings.TrimSpace(x)
			if !slices.Contains(rbdFeatures, x) {
				return e.fail(22, "invalid image feature: %s", x)
			}
			if !slices.Contains(feats, x) {
				feats = append(feats, x)
			}
		}
		need := map[string]string{"object-map": "exclusive-lock", "fast-diff": "object-map", "journaling": "exclusive-lock"}
		for f, dep := range need {
			if slices.Contains(feats, f) && !slices.Contains(feats, dep) {
				fmt.Fprintf(e.Stderr, "librbd: cannot use %s without %s\n", f, dep)
				return e.fail(22, "create error: (22) Invalid argument")
			}
		}
	}
	if _, code := c.openPool(a, pool); code != 0 {
		return code
	}
	if c.image(pool, name) != nil {
		fmt.Fprintf(e.Stderr, "librbd: rbd image %s already exists\n", name)
		return e.fail(17, "create error: (17) File exists")
	}
	now := time.Now().UTC()
	c.st.Images[pool] = append(c.st.Images[pool], rbdImg{Name: name, ID: randHex(12), Size: sz, Features: sortFeatures(feats), Created: now, Modified: now})
	return c.persist()
}

// sortFeatures orders features as librbd lists them (by feature bit).
func sortFeatures(f []string) []string {
	out := []string{}
	for _, x := range rbdFeatures {
		if slices.Contains(f, x) {
			out = append(out, x)
		}
	}
	return out
}

func (c *cephCluster) openImage(a cephArgs, w []string) (string, *rbdImg, int) {
	pool, name := imageSpec(a, w)
	if name == "" {
		return "", nil, c.e.fail(22, "image name was not specified")
	}
	if _, code := c.openPool(a, pool); code != 0 {
		return "", nil, code
	}
	img := c.image(pool, name)
	if img == nil {
		return "", nil, c.e.fail(2, "error opening image %s: (2) No such file or directory", name)
	}
	return pool, img, 0
}

func (c *cephCluster) rbdResize(a cephArgs, w []string) int {
	e := c.e
	_, img, code := c.openImage(a, w)
	if img == nil {
		return code
	}
	sz, ok := rbdSize(a.flags["--size"])
	if a.flags["--size"] == "" || !ok {
		return e.fail(22, "must specify --size <M/G/T>")
	}
	if sz < img.Size && a.flags["--allow-shrink"] == "" {
		return e.fail(22, "shrinking an image is only allowed with the --allow-shrink flag")
	}
	img.Size = sz
	img.Modified = time.Now().UTC()
	if code := c.persist(); code != 0 {
		return code
	}
	fmt.Fprintln(e.Stderr, "Resizing image: 100% complete...done.")
	return 0
}

func (c *cephCluster) rbdLs(a cephArgs, w []string) int {
	e := c.e
	pool := "rbd"
	if len(w) > 0 {
		pool = w[0]
	} else if p := a.flags["--pool"] + a.flags["-p"]; p != "" {
		pool = p
	}
	if _, code := c.openPool(a, pool); code != 0 {
		return code
	}
	imgs := append([]rbdImg(nil), c.st.Images[pool]...)
	slices.SortFunc(imgs, func(x, y rbdImg) int { return strings.Compare(x.Name, y.Name) })
	long := a.flags["-l"] != "" || a.flags["--long"] != "" || slices.Contains(w, "-l")
	if a.json() {
		if long {
			out := []map[string]any{}
			for _, i := range imgs {
				out = append(out, map[string]any{"image": i.Name, "id": i.ID, "size": i.Size, "format": 2})
			}
			e.printJSON(out, a.pretty())
		} else {
			out := []string{}
			for _, i := range imgs {
				out = append(out, i.Name)
			}
			e.printJSON(out, a.pretty())
		}
		return 0
	}
	if long && len(imgs) > 0 {
		fmt.Fprintf(e.Stdout, "%-12s %-9s %-6s %s\n", "NAME", "SIZE", "PARENT", "FMT PROT LOCK")
	}
	for _, i := range imgs {
		if long {
			fmt.Fprintf(e.Stdout, "%-12s %-9s %-6s 2\n", i.Name, fmt.Sprintf("%d MiB", i.Size>>20), "")
		} else {
			fmt.Fprintln(e.Stdout, i.Name)
		}
	}
	return 0
}

func rbdTimestamp(t time.Time) string { return t.UTC().Format("Mon Jan _2 15:04:05 2006") }

func (c *cephCluster) rbdInfo(a cephArgs, w []string) int {
	e := c.e
	_, img, code := c.openImage(a, w)
	if img == nil {
		return code
	}
	const order = 22
	objects := (img.Size + (1<<order - 1)) >> order
	if a.json() {
		e.printJSON(map[string]any{"name": img.Name, "id": img.ID, "size": img.Size, "objects": objects, "order": order,
			"object_size": 1 << order, "snapshot_count": 0, "block_name_prefix": "rbd_data." + img.ID, "format": 2,
			"features": img.Features, "op_features": []string{}, "flags": []string{},
			"create_timestamp": rbdTimestamp(img.Created), "access_timestamp": rbdTimestamp(img.Modified),
			"modify_timestamp": rbdTimestamp(img.Modified)}, a.pretty())
		return 0
	}
	fmt.Fprintf(e.Stdout, "rbd image '%s':\n\tsize %d MiB in %d objects\n\torder %d (4 MiB objects)\n\tsnapshot_count: 0\n\tid: %s\n\tblock_name_prefix: rbd_data.%s\n\tformat: 2\n\tfeatures: %s\n\top_features: \n\tflags: \n\tcreate_timestamp: %s\n",
		img.Name, img.Size>>20, objects, order, img.ID, img.ID, strings.Join(img.Features, ", "), rbdTimestamp(img.Created))
	return 0
}

func (c *cephCluster) rbdRm(a cephArgs, w []string) int {
	e := c.e
	pool, img, code := c.openImage(a, w)
	if img == nil {
		return code
	}
	c.pruneWatchers(pool, img)
	if len(img.Watchers) > 0 {
		fmt.Fprintln(e.Stderr, "rbd: error: image still has watchers")
		fmt.Fprintln(e.Stderr, "This means the image is still open or the client using it crashed. Try again after closing/unmapping it or waiting 30s for the crashed client to timeout.")
		fmt.Fprintln(e.Stderr, "Removing image: 0% complete...failed.")
		return e.fail(16, "delete error: (16) Device or resource busy")
	}
	name := img.Name
	c.st.Images[pool] = slices.DeleteFunc(c.st.Images[pool], func(i rbdImg) bool { return i.Name == name })
	if code := c.persist(); code != 0 {
		return code
	}
	fmt.Fprintln(e.Stderr, "Removing image: 100% complete...done.")
	return 0
}

func (e *Env) loadMappings() []rbdMapping {
	var out []rbdMapping
	if data, _ := e.read(rbdMappedFile); data != nil {
		_ = jsonUnmarshal(data, &out)
	}
	return out
}

func (e *Env) saveMappings(m []rbdMapping) error {
	data, err := jsonMarshal(m)
	if err != nil {
		return err
	}
	return e.write(rbdMappedFile, data)
}

func (c *cephCluster) rbdMap(a cephArgs, w []string) int {
	e := c.e
	pool, name := imageSpec(a, w)
	if c.pool(pool) == nil || c.image(pool, name) == nil {
		fmt.Fprintf(e.Stderr, "rbd: sysfs write failed\nrbd: error opening image %s: (2) No such file or directory\n", name)
		return e.fail(2, "map failed: (2) No such file or directory")
	}
	if !c.allowed(a.entity, pool) {
		fmt.Fprintln(e.Stderr, "rbd: sysfs write failed\nIn some cases useful info is found in syslog - try \"dmesg | tail\".")
		return e.fail(1, "map failed: (1) Operation not permitted")
	}
	maps := e.loadMappings()
	used := map[int]bool{}
	for _, m := range maps {
		used[m.ID] = true
		if m.Pool == pool && m.Image == name {
			fmt.Fprintf(e.Stderr, "rbd: warning: image already mapped as /dev/rbd%d\n", m.ID)
		}
	}
	e.dropStaleDevices(used)
	id := 0
	for used[id] {
		id++
	}
	img := c.image(pool, name)
	dev := "rbd" + strconv.Itoa(id)
	maps = append(maps, rbdMapping{ID: id, Pool: pool, Image: name, Entity: a.entity})
	if err := e.saveMappings(maps); err != nil {
		return e.fail(1, "map failed: %v", err)
	}
	for _, f := range []struct{ p, v string }{
		{"/dev/" + dev, ""},
		{"/sys/block/" + dev + "/size", strconv.FormatInt(img.Size/512, 10) + "\n"},
		{"/sys/block/" + dev + "/ro", "0\n"},
		{"/sys/block/" + dev + "/removable", "0\n"},
		{"/sys/block/" + dev + "/queue/rotational", "0\n"},
		{"/sys/block/" + dev + "/queue/scheduler", "[none] mq-deadline\n"},
		{"/sys/block/" + dev + "/queue/logical_block_size", "512\n"},
		{"/sys/bus/rbd/devices/" + strconv.Itoa(id) + "/pool", pool + "\n"},
		{"/sys/bus/rbd/devices/" + strconv.Itoa(id) + "/name", name + "\n"},
		{"/sys/bus/rbd/devices/" + strconv.Itoa(id) + "/current_snap", "-\n"},
	} {
		if err := writeMode(e.Root, f.p, []byte(f.v), 0o644); err != nil {
			return e.fail(1, "map failed: %v", err)
		}
	}
	link := "/dev/rbd/" + pool + "/" + name
	if _, err := e.Root.MkdirAll("/dev/rbd/"+pool, 0o755); err == nil {
		_ = e.Root.Remove(link)
		_ = symlinkIn(e, link, "../../"+dev)
	}
	c.pruneWatchers(pool, img)
	img.Watchers = append(img.Watchers, e.hostname()+":"+dev)
	if code := c.persist(); code != 0 {
		return code
	}
	fmt.Fprintf(e.Stdout, "/dev/%s\n", dev)
	return 0
}

func rbdShowmapped(e *Env, a cephArgs) int {
	maps := e.loadMappings()
	slices.SortFunc(maps, func(x, y rbdMapping) int { return x.ID - y.ID })
	if a.json() {
		out := []map[string]string{}
		for _, m := range maps {
			out = append(out, map[string]string{"id": strconv.Itoa(m.ID), "pool": m.Pool, "namespace": "", "name": m.Image,
				"snap": "-", "device": "/dev/rbd" + strconv.Itoa(m.ID)})
		}
		e.printJSON(out, a.pretty())
		return 0
	}
	if len(maps) > 0 {
		fmt.Fprintf(e.Stdout, "%-3s %-8s %-9s %-12s %-4s %s\n", "id", "pool", "namespace", "image", "snap", "device")
	}
	for _, m := range maps {
		fmt.Fprintf(e.Stdout, "%-3d %-8s %-9s %-12s %-4s /dev/rbd%d\n", m.ID, m.Pool, "", m.Image, "-", m.ID)
	}
	return 0
}

func rbdUnmap(e *Env, a cephArgs, w []string) int {
	if len(w) == 0 {
		return e.fail(22, "unmap requires either image name or device path")
	}
	// The cluster's lock also serialises the client's mapping table.
	c, err := e.openCeph()
	if err != nil {
		return e.fail(1, "unmap failed: %v", err)
	}
	defer c.close()
	maps := e.loadMappings()
	i := -1
	if strings.HasPrefix(w[0], "/dev/") {
		for k, m := range maps {
			if w[0] == "/dev/rbd"+strconv.Itoa(m.ID) || w[0] == "/dev/rbd/"+m.Pool+"/"+m.Image {
				i = k
			}
		}
		if i < 0 {
			return e.fail(22, "'%s' is not an rbd device", w[0])
		}
	} else {
		pool, name := imageSpec(a, w)
		for k, m := range maps {
			if m.Pool == pool && m.Image == name {
				i = k
				break
			}
		}
		if i < 0 {
			return e.fail(22, "%s/%s: not a mapped image or snapshot", pool, name)
		}
	}
	m := maps[i]
	dev := "rbd" + strconv.Itoa(m.ID)
	maps = slices.Delete(maps, i, i+1)
	if err := e.saveMappings(maps); err != nil {
		return e.fail(1, "unmap failed: %v", err)
	}
	for _, p := range []string{"/dev/" + dev, "/sys/block/" + dev, "/sys/bus/rbd/devices/" + strconv.Itoa(m.ID), "/dev/rbd/" + m.Pool + "/" + m.Image} {
		_ = removeAllIn(e, p)
	}
	// The cluster forgets the watch.
	if img := c.image(m.Pool, m.Image); img != nil {
		w := e.hostname() + ":" + dev
		img.Watchers = slices.DeleteFunc(img.Watchers, func(x string) bool { return x == w })
		if err := c.save(); err != nil {
			return e.fail(1, "unmap failed: %v", err)
		}
	}
	return 0
}

// pruneWatchers drops the watches of clients that no longer map the image
// (a client rebooted: its volatile mapping table is gone, and the OSDs
// expire its watch, as they do after 30 s).
func (c *cephCluster) pruneWatchers(pool string, img *rbdImg) {
	img.Watchers = slices.DeleteFunc(img.Watchers, func(w string) bool {
		host, dev, _ := strings.Cut(w, ":")
		r := c.nodeRoot(host)
		if r == nil {
			return true
		}
		defer r.Close()
		data, _ := r.ReadFile(rbdMappedFile)
		var maps []rbdMapping
		_ = jsonUnmarshal(data, &maps)
		for _, m := range maps {
			if "rbd"+strconv.Itoa(m.ID) == dev && m.Pool == pool && m.Image == img.Name {
				return false
			}
		}
		return true
	})
}

// dropStaleDevices removes rbd device nodes a power cycle left behind (the
// kernel's table is gone; the files of a fake root are not).
func (e *Env) dropStaleDevices(used map[int]bool) {
	ents, _ := e.Root.ReadDir("/sys/block")
	for _, ent := range ents {
		n, ok := strings.CutPrefix(ent.Name(), "rbd")
		id, err := strconv.Atoi(n)
		if !ok || err != nil || used[id] {
			continue
		}
		for _, p := range []string{"/sys/block/rbd" + n, "/dev/rbd" + n, "/sys/bus/rbd/devices/" + n} {
			_ = removeAllIn(e, p)
		}
	}
}
