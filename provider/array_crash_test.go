package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/redfish"
)

// parseState lists, per endpoint, what a state snapshot holds.
func parseState(t *testing.T, raw []byte) map[string]*arrayObjects {
	t.Helper()
	if len(raw) == 0 {
		return map[string]*arrayObjects{}
	}
	var st struct {
		Resources []struct {
			Type      string `json:"type"`
			Mode      string `json:"mode"`
			Instances []struct {
				Attributes map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("state: %v", err)
	}
	out := map[string]*arrayObjects{}
	of := func(ep string) *arrayObjects {
		if out[ep] == nil {
			out[ep] = &arrayObjects{}
		}
		return out[ep]
	}
	for _, r := range st.Resources {
		if r.Mode != "managed" {
			continue
		}
		for _, in := range r.Instances {
			a := in.Attributes
			ep, _ := a["endpoint"].(string)
			id, _ := a["id"].(string)
			switch r.Type {
			case "hpcstorage_disk_group":
				of(ep).pools = append(of(ep).pools, path.Base(id))
			case "hpcstorage_volume":
				o := of(ep)
				o.volumes = append(o.volumes, path.Base(id))
				ms, _ := a["host_mappings"].([]any)
				for _, m := range ms {
					mm, _ := m.(map[string]any)
					lun, _ := mm["lun"].(float64)
					o.mappings = append(o.mappings, fmt.Sprintf("%s:%d=%s", mm["host"], int(lun), path.Base(id)))
				}
			case "hpcstorage_spare_drives":
				ids, _ := a["drive_ids"].([]any)
				for _, d := range ids {
					of(ep).spares = append(of(ep).spares, d.(string))
				}
			}
		}
	}
	for _, o := range out {
		o.sort()
	}
	return out
}

// arrayObjects is what an array holds that Terraform manages.
type arrayObjects struct {
	pools, volumes, mappings, spares []string
}

func (o *arrayObjects) sort() {
	for _, l := range [][]string{o.pools, o.volumes, o.mappings, o.spares} {
		sort.Strings(l)
	}
}

func (o *arrayObjects) String() string {
	return fmt.Sprintf("pools %v\n  volumes %v\n  mappings %v\n  spares %v", o.pools, o.volumes, o.mappings, o.spares)
}

func (o *arrayObjects) count() int {
	return len(o.pools) + len(o.volumes) + len(o.mappings) + len(o.spares)
}

// readArray lists, through Redfish, the disk groups, volumes, mappings and
// global spares an array holds.
func readArray(t *testing.T, ep *redfish.Endpoint) *arrayObjects {
	t.Helper()
	ctx := context.Background()
	const sid = "controller_a"
	o := &arrayObjects{}
	for uri, list := range map[string]*[]string{redfish.PoolsURI(sid): &o.pools, redfish.VolumesURI(sid): &o.volumes} {
		var coll struct {
			Members []struct {
				ID string `json:"@odata.id"`
			} `json:"Members"`
		}
		if _, err := ep.Get(ctx, uri, &coll); err != nil {
			t.Fatal(err)
		}
		for _, m := range coll.Members {
			*list = append(*list, path.Base(m.ID))
		}
	}
	luns, err := ep.LUNsInUse(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	for host, m := range luns {
		for lun, vol := range m {
			o.mappings = append(o.mappings, fmt.Sprintf("%s:%d=%s", host, lun, path.Base(vol)))
		}
	}
	drives, err := ep.Drives(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drives {
		if d.HotspareType == "Global" {
			o.spares = append(o.spares, d.ID)
		}
	}
	o.sort()
	return o
}

// crashConfig is the arrays part of examples/modules/beegfs-high-capacity
// (the R1 module) for the metadata array and the given storage arrays:
// RAID1 pairs on the ME4024, RAID6 8+2 groups and spares on each ME4084,
// one volume per group mapped to both servers of its kind.
func crashConfig(provider, stateURL string, storage []string) string {
	arrays, _ := json.Marshal(storage)
	return `terraform {
  required_providers {
    hpcstorage = { source = "hpcstorage/hpcstorage" }
  }
  backend "http" {
    address = "` + stateURL + `"
  }
}
` + provider + `
locals {
  metadata_array   = "me4024-1"
  storage_arrays   = ` + string(arrays) + `
  metadata_servers = ["meta1", "meta2"]
  storage_servers  = ["stor1", "stor2"]
}

data "hpcstorage_drives" "metadata" {
  endpoint = local.metadata_array
}

data "hpcstorage_array_layout" "metadata" {
  drives = [for d in data.hpcstorage_drives.metadata.drives : {
    id = d.id, media_type = d.media_type, capacity_bytes = d.capacity_bytes, drawer = d.drawer, slot = d.slot
  }]
  policy = { raid_level = "RAID1", name_prefix = "mdt" }
}

locals {
  mdt_groups = { for i, g in data.hpcstorage_array_layout.metadata.disk_groups : format("mdt%02d", i + 1) => merge(g, { index = i }) }
}

resource "hpcstorage_disk_group" "metadata" {
  for_each   = local.mdt_groups
  endpoint   = local.metadata_array
  name       = each.value.name
  raid_level = each.value.raid_level
  drive_ids  = each.value.drive_ids
}

resource "hpcstorage_volume" "mdt" {
  for_each           = hpcstorage_disk_group.metadata
  endpoint           = local.metadata_array
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = 131072
  host_mappings      = [for s in local.metadata_servers : { host = s, lun = local.mdt_groups[each.key].index + 1 }]
}

data "hpcstorage_drives" "storage" {
  for_each = toset(local.storage_arrays)
  endpoint = each.key
}

data "hpcstorage_array_layout" "storage" {
  for_each = toset(local.storage_arrays)
  drives = [for d in data.hpcstorage_drives.storage[each.key].drives : {
    id = d.id, media_type = d.media_type, capacity_bytes = d.capacity_bytes, drawer = d.drawer, slot = d.slot
  }]
  policy = { raid_level = "RAID6", drives_per_group = 10 }
}

locals {
  st_list = flatten([for ai, a in local.storage_arrays : [
    for gi, g in data.hpcstorage_array_layout.storage[a].disk_groups : {
      array = a, group = g, lun = gi + 1, index = ai * length(data.hpcstorage_array_layout.storage[a].disk_groups) + gi
    }
  ]])
  sts = { for t in local.st_list : format("st%02d", t.index + 1) => t }
}

resource "hpcstorage_disk_group" "storage" {
  for_each   = local.sts
  endpoint   = each.value.array
  name       = each.value.group.name
  raid_level = each.value.group.raid_level
  drive_ids  = each.value.group.drive_ids
}

resource "hpcstorage_spare_drives" "storage" {
  for_each  = toset(local.storage_arrays)
  endpoint  = each.key
  drive_ids = data.hpcstorage_array_layout.storage[each.key].spare_drive_ids
}

resource "hpcstorage_volume" "st" {
  for_each           = hpcstorage_disk_group.storage
  endpoint           = each.value.endpoint
  disk_group         = each.value.name
  name               = each.key
  segment_size_bytes = 524288
  host_mappings      = [for s in local.storage_servers : { host = s, lun = local.sts[each.key].lun }]
}
`
}

// writes counts the requests that change an array (sessions aside).
func writes(svcs []*redfishmock.Service) int {
	n := 0
	for _, s := range svcs {
		for k, v := range s.Stats() {
			if !strings.HasPrefix(k, "GET ") && !strings.Contains(k, "/SessionService/") {
				n += v
			}
		}
	}
	return n
}

// TestArrayApplyKilled kills terraform and its provider (SIGKILL to the
// process group) at seeded random points of the create phase of the R1
// arrays, each time on fresh arrays. After each kill one plain apply must
// converge, the next plan must be empty, and the arrays must hold exactly
// what the state holds. HPCSTORAGE_KILL_SEED replays a run;
// HPCSTORAGE_KILL_ARRAYS=4 takes all four ME4084s (default: one).
func TestArrayApplyKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and re-runs terraform applies")
	}
	t.Parallel()
	storage := []string{"me4084-1"}
	if n, _ := strconv.Atoi(os.Getenv("HPCSTORAGE_KILL_ARRAYS")); n > 1 && n <= 4 {
		for i := 2; i <= n; i++ {
			storage = append(storage, fmt.Sprintf("me4084-%d", i))
		}
	}
	lab := startLab(t, "r1", redfishmock.Options{}, append([]string{"me4024-1"}, storage...)...)
	var svcs []*redfishmock.Service
	names := append([]string{"me4024-1"}, storage...)
	for _, n := range names {
		svcs = append(svcs, lab.svcs[n])
	}
	state := startStateServer(t)
	cli := newPluginCLI(t, crashConfig(lab.providerBlock(), state.url, storage))
	if out, code := cli.run("init"); code != 0 {
		t.Fatalf("terraform init: exit %d\n%s", code, out)
	}

	// Writes of a full create: 12 RAID1 groups, their volumes and 2
	// mappings each on the ME4024; per ME4084 8 RAID6 groups, 8 volumes,
	// 16 mappings and 4 spare PATCHes.
	total := 12*4 + len(storage)*(8*4+4)
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("HPCSTORAGE_KILL_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("kill seed %d (HPCSTORAGE_KILL_SEED=%d replays it); %d writes in a full create", seed, seed, total)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	const kills = 10
	// One kill point in each tenth of the create phase, so they spread
	// from the first disk group to the last mappings and spares.
	var points []int
	for i := 0; i < kills; i++ {
		lo, hi := 1+i*(total-1)/kills, 1+(i+1)*(total-1)/kills
		points = append(points, lo+rng.IntN(max(hi-lo, 1)))
	}

	start := time.Now()
	adopted := 0
	for i, at := range points {
		for _, s := range svcs {
			if err := s.Reset(); err != nil {
				t.Fatal(err)
			}
		}
		state.clear()
		jitter := time.Duration(rng.IntN(3000)) * time.Microsecond
		t0 := time.Now()
		seen, _ := killAt(t, cli, svcs, at, jitter)
		t1 := time.Now()
		before := parseState(t, state.snapshot())
		onArrays := 0
		for _, s := range svcs {
			onArrays += readArray(t, lab.client(t, s.Name())).count()
		}
		inState := 0
		for _, o := range before {
			inState += o.count()
		}
		t.Logf("kill %d: after write %d (aimed at %d, +%s): arrays hold %d objects, the state %d (killed apply %s)",
			i+1, seen, at, jitter, onArrays, inState, t1.Sub(t0).Round(time.Millisecond))

		out, code := cli.run("apply", "-auto-approve")
		if code != 0 {
			t.Fatalf("kill %d at write %d: the next apply failed (exit %d):\n%s", i+1, at, code, out)
		}
		adopted += strings.Count(out, "Adopted")
		t2 := time.Now()
		if out, code := cli.run("plan", "-detailed-exitcode"); code != 0 {
			t.Fatalf("kill %d at write %d: the plan after the apply is not empty (exit %d):\n%s", i+1, at, code, out)
		}
		t.Logf("  then apply %s, plan %s", t2.Sub(t1).Round(time.Millisecond), time.Since(t2).Round(time.Millisecond))
		st := parseState(t, state.snapshot())
		for _, n := range names {
			got := readArray(t, lab.client(t, n))
			want := st[n]
			if want == nil {
				want = &arrayObjects{}
			}
			if got.String() != want.String() {
				t.Errorf("kill %d at write %d: %s holds\n  %s\nthe state\n  %s", i+1, at, n, got, want)
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d kills recovered in %s; the applies after them showed %d adoption warnings (Terraform folds similar ones)",
		kills, time.Since(start).Round(time.Second), adopted)
	if adopted == 0 {
		t.Error("no apply after a kill adopted anything: the kills missed the creates")
	}
}

// killAt starts terraform apply and SIGKILLs its process group once the
// arrays have seen at writes (and jitter more), then waits until neither
// terraform nor the provider is left. It returns the writes seen at the kill.
func killAt(t *testing.T, cli *pluginCLI, svcs []*redfishmock.Service, at int, jitter time.Duration) (int, string) {
	t.Helper()
	return killAfter(t, cli, func() int { return writes(svcs) }, at, jitter)
}

// killAfter is killAt with the writes counted by writes (any kind of array).
func killAfter(t *testing.T, cli *pluginCLI, writes func() int, at int, jitter time.Duration) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := cli.command(&out, "apply", "-auto-approve")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(500 * time.Microsecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			t.Fatalf("apply ended (%v) before write %d of the create phase (saw %d):\n%s", err, at, writes(), out.String())
		case <-tick.C:
		}
		if writes() >= at {
			break
		}
	}
	time.Sleep(jitter)
	seen := writes()
	killGroup(t, cmd, done)
	return seen, out.String()
}
