package ceph

// The OSD spec's apply sequence: read what cephadm holds, plan the OSDs on
// its inventory, write and apply the spec only when the exported one
// differs, read back and verify. It runs over a Runner (agent items on
// the admin host), so it is tested on lab roots without Terraform.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Runner runs agent items on the cluster's admin host.
type Runner interface {
	// Query runs read-only items in one request and returns each one's
	// stdout by item name.
	Query(ctx context.Context, items ...protocol.Item) (map[string]string, error)
	// Apply converges items under owner (the agent records what owner
	// wrote, so removing the owner takes its files back).
	Apply(ctx context.Context, owner string, items []protocol.Item) error
}

// OSDReadBack is what cephadm holds for an OSD spec.
type OSDReadBack struct {
	// Diff is how the exported spec differs from the wanted one, "" when
	// it matches.
	Diff string
	// Inventory is each host's devices as `ceph orch device ls` lists
	// them.
	Inventory map[string][]Device
	// Rejected lists, per host, the devices the data filter matches that
	// cephadm will not use ("/dev/nvme3n1: LVM detected, locked").
	Rejected map[string][]string
}

// ReadOSDSpec reads the exported spec and the inventory of hosts in one
// request.
func ReadOSDSpec(ctx context.Context, r Runner, s ServiceSpec, hosts []string) (OSDReadBack, error) {
	hosts = append([]string(nil), hosts...)
	sort.Strings(hosts)
	queries := []protocol.Item{QueryExport}
	for _, h := range hosts {
		queries = append(queries, QueryDeviceLs(h))
	}
	out, err := r.Query(ctx, queries...)
	if err != nil {
		return OSDReadBack{}, err
	}
	specs, err := ParseOrchExport([]byte(out[QueryExport.Command.Name]))
	if err != nil {
		return OSDReadBack{}, err
	}
	rb := OSDReadBack{Diff: "not applied (ceph orch ls --export does not list " + s.ServiceName() + ")",
		Inventory: map[string][]Device{}, Rejected: map[string][]string{}}
	if got, ok := specs[s.ServiceName()]; ok {
		if rb.Diff, err = SpecDiff(s, got); err != nil {
			return OSDReadBack{}, err
		}
	}
	for _, h := range hosts {
		one, err := ParseDeviceLs([]byte(out[QueryDeviceLs(h).Command.Name]))
		if err != nil {
			return OSDReadBack{}, err
		}
		rb.Inventory[h] = one[h]
		for _, d := range one[h] {
			if d.Available || d.CephDevice || s.DataDevices == nil {
				continue
			}
			if ok, _ := s.DataDevices.Match(d); ok {
				rb.Rejected[h] = append(rb.Rejected[h], d.Path+": "+strings.Join(d.Rejected, ", "))
			}
		}
	}
	return rb, nil
}

// OSDApply is one apply of an OSD spec.
type OSDApply struct {
	Spec ServiceSpec
	// Owner names the agent owner of the spec file on the admin host.
	Owner string
	// Placed are the hosts the spec places OSDs on.
	Placed []string
	// Facts are the hosts' devices as the node facts list them; a host
	// cephadm has no inventory of yet is planned on these.
	Facts map[string][]Device
	// Nonce names this apply's run-once marker.
	Nonce string
	// Record are items the caller adds to the apply request (the
	// resource's record, which import reads back).
	Record []protocol.Item
}

// ErrNotVerified is wrapped when cephadm does not hold the spec after the
// apply.
var ErrNotVerified = errors.New("change not verified")

// ErrNoOSDMade is wrapped when a placed host got no OSD from cephadm.
var ErrNoOSDMade = errors.New("cephadm made no OSD")

// OSDResult is what an apply leaves: the OSDs per host as planned and
// cephadm's read-back after it.
type OSDResult struct {
	Plans []HostPlan
	After OSDReadBack
}

// ApplyOSDSpec plans the spec's OSDs on cephadm's inventory (the facts for
// a host it has none of), writes the spec file, applies it only when the
// exported spec differs, then verifies cephadm holds it and that every
// placed host got an OSD. Errors about the configuration are located.
func ApplyOSDSpec(ctx context.Context, r Runner, a OSDApply) (OSDResult, error) {
	var res OSDResult
	s := a.Spec
	if err := s.Validate(); err != nil {
		return res, err
	}
	before, err := ReadOSDSpec(ctx, r, s, a.Placed)
	if err != nil {
		return res, err
	}
	hosts, err := DevicesOf(a.Placed, before.Inventory, a.Facts)
	if err != nil {
		return res, err
	}
	if res.Plans, err = PlanOSDs(s, hosts); err != nil {
		return res, err
	}
	y, err := RenderYAML(s)
	if err != nil {
		return res, err
	}
	items := []protocol.Item{SpecDirItem(), SpecFile(s.ServiceName(), y)}
	if before.Diff != "" {
		items = append(items, SpecApply(s.ServiceName(), a.Nonce))
	}
	items = append(items, a.Record...)
	if err := r.Apply(ctx, a.Owner, items); err != nil {
		return res, err
	}
	if res.After, err = ReadOSDSpec(ctx, r, s, a.Placed); err != nil {
		return res, err
	}
	if res.After.Diff != "" {
		return res, fmt.Errorf("%w: after ceph orch apply, the exported spec %s still differs: %s", ErrNotVerified, s.ServiceName(), res.After.Diff)
	}
	// cephadm may still refuse what the facts showed (partitions, LVM it
	// did not make): a placed host without any OSD device fails, with
	// cephadm's reasons.
	var errs []error
	for _, p := range res.Plans {
		n := 0
		for _, d := range res.After.Inventory[p.Host] {
			if d.CephDevice {
				n++
			}
		}
		if n == 0 && len(res.After.Inventory[p.Host]) > 0 {
			errs = append(errs, located.Errorf(located.At("data_devices"), "%w: host %s; its devices: %s", ErrNoOSDMade, p.Host,
				DescribeDevices(res.After.Inventory[p.Host])))
		}
	}
	return res, errors.Join(errs...)
}

// DevicesOf is each placed host's devices: cephadm's inventory, else the
// facts; a host with neither is an error at placement_hosts.
func DevicesOf(placed []string, inv, facts map[string][]Device) (map[string][]Device, error) {
	out := map[string][]Device{}
	var errs []error
	for _, h := range placed {
		switch {
		case len(inv[h]) > 0:
			out[h] = inv[h]
		case facts[h] != nil:
			out[h] = facts[h]
		default:
			errs = append(errs, invalid(located.At("placement_hosts"), "host %s is placed but not in hosts: add its devices "+
				"(hpcstorage_node_facts) so the plan can check what it gets", h))
		}
	}
	return out, errors.Join(errs...)
}
