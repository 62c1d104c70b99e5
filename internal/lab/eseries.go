package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/arrays"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/santricitymock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/santricity"
)

// APISantricity marks an endpoint served by the SANtricity REST API (NetApp
// E-Series) rather than Redfish/Swordfish.
const APISantricity = "santricity"

// startESeries serves the design's E-Series arrays (R3: one EF600 per
// building block) and cables each to its file nodes: a volume mapped to a
// host object named after a node appears in that node's root by its WWN.
func (l *Lab) startESeries(design, password string) error {
	for _, spec := range santricitymock.DesignArrays(design) {
		svc := santricitymock.New(spec, santricitymock.Options{Username: "admin", Password: password, CabledHosts: true})
		svc.OnMapping(l.onMapping) // before serving, so no mapping is missed
		srv, err := santricitymock.Start(svc, "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("array %s: %w", spec.Name, err)
		}
		l.eseries = append(l.eseries, srv)
		for _, node := range spec.CabledTo {
			// The node's NVMe host NQN, the initiator of its seeded host object.
			if root, ok := l.roots[node]; ok {
				if err := os.MkdirAll(filepath.Join(root, "etc/nvme"), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(root, "etc/nvme/hostnqn"), []byte(santricitymock.NodeNQN(node)+"\n"), 0o644); err != nil {
					return err
				}
			}
		}
		l.State.Endpoints = append(l.State.Endpoints, Endpoint{Name: spec.Name, Kind: "array", Model: spec.Model, URL: srv.URL, Username: srv.Username,
			CabledTo: slices.Clone(spec.CabledTo), API: APISantricity, CACertificate: string(srv.CAPEM())})
	}
	return nil
}

// ESeries returns the running E-Series arrays.
func (l *Lab) ESeries() []*santricitymock.Server { return slices.Clone(l.eseries) }

func (l *Lab) eseriesServer(name string) *santricitymock.Server {
	for _, s := range l.eseries {
		if s.Service.Spec().Name == name {
			return s
		}
	}
	return nil
}

func (l *Lab) closeESeries() error {
	var errs []error
	for _, s := range l.eseries {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// provisionESeries does what ProvisionVolume does on an E-Series array, as
// an administrator with NetApp's tools would: through the SANtricity API.
// Drives are "tray.slot" locations (99.0 ...); the hosts get host objects
// named after the nodes (the lab seeds them), in a host group when there are
// several, and the volume takes the whole group.
func (l *Lab) provisionESeries(srv *santricitymock.Server, r VolumeRequest) (string, error) {
	ctx := context.Background()
	c, err := santricity.New(santricity.Config{Name: r.Array, URL: srv.URL, Username: srv.Username, Password: srv.Password, CACertPEM: srv.CAPEM()})
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	drives, err := c.Drives(ctx)
	if err != nil {
		return "", err
	}
	var ids []string
	for _, want := range r.Drives {
		i := slices.IndexFunc(drives, func(d santricity.Drive) bool { return d.Location() == want })
		if i < 0 {
			return "", fmt.Errorf("%s has no drive %s (tray.slot)", r.Array, want)
		}
		ids = append(ids, drives[i].ID)
	}
	level := strings.ToLower(r.RAID)
	if level == "raid10" {
		level = santricity.RAID1 // E-Series RAID 1 over 4+ drives is RAID 10
	}
	vg, err := c.CreateVolumeGroup(ctx, r.Pool, level, ids)
	if err != nil {
		return "", err
	}
	v, err := c.CreateVolume(ctx, santricity.VolumeSpec{Name: r.Volume, VolumeGroupID: vg.ID, CapacityBytes: vg.FreeBytes, SegmentBytes: r.SegmentBytes})
	if err != nil {
		return "", err
	}
	if r.FSType != "" {
		l.mu.Lock()
		if l.fstypes == nil {
			l.fstypes = map[string]string{}
		}
		l.fstypes[normWWN(v.WWN)] = r.FSType
		l.mu.Unlock()
	}
	var hostIDs []string
	for _, h := range r.Hosts {
		ho, err := c.FindHost(ctx, h)
		if santricity.IsGone(err) {
			ho, err = c.CreateHost(ctx, h, santricity.HostTypeLinuxDMMP, nil)
		}
		if err != nil {
			return "", err
		}
		hostIDs = append(hostIDs, ho.ID)
	}
	target := ""
	switch len(hostIDs) {
	case 0:
	case 1:
		target = hostIDs[0]
	default:
		g, err := c.CreateHostGroup(ctx, strings.Join(r.Hosts, "_"), hostIDs)
		if err != nil {
			return "", err
		}
		target = g.ID
	}
	if target != "" {
		if _, err := c.Map(ctx, v.ID, target, r.LUN); err != nil {
			return normWWN(v.WWN), err
		}
	}
	return normWWN(v.WWN), nil
}

// unmapESeries stops host seeing volume; the other hosts keep it (E-Series
// maps to one target, so the mapping moves to what remains).
func unmapESeries(srv *santricitymock.Server, volume, host string) error {
	ctx := context.Background()
	c, err := santricity.New(santricity.Config{Name: srv.Service.Spec().Name, URL: srv.URL, Username: srv.Username,
		Password: srv.Password, CACertPEM: srv.CAPEM()})
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	a := arrays.ESeries(c)
	v, ms, err := a.ReadVolume(ctx, volume)
	if err != nil {
		return err
	}
	var keep []string
	var lun int64
	for _, m := range ms {
		lun = m.LUN
		if m.Host != host {
			keep = append(keep, m.Host)
		}
	}
	if len(keep) == len(ms) {
		return fmt.Errorf("volume %s is not mapped to %s", volume, host)
	}
	return a.SetMappings(ctx, v.ID, keep, lun)
}

// isESeries reports whether an array name is one of the lab's E-Series
// arrays (their volumes are NVMe flash, from NetApp).
func isESeries(array string) bool { return strings.HasPrefix(array, "ef") }
