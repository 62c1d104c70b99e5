package day2

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/pacemaker"
)

// pcmkDomain is a pacemaker cluster: the member goes to standby, its
// resources move to the others, and come back once it is online again.
type pcmkDomain struct {
	r Runner
	m Member
	// home: what ran on the member before it went, from the lock;
	// standby: it was in standby already, and stays so.
	home    []string
	standby bool
}

// admin is where cluster commands run: any member sees the whole CIB.
func (d *pcmkDomain) admin() string {
	if d.m.Admin != "" {
		return d.m.Admin
	}
	return d.m.Host
}

func (d *pcmkDomain) readLock(ctx context.Context, host string) (*pacemaker.Lock, error) {
	out, err := query(ctx, d.r, host, pacemaker.QueryCRMConfigItem())
	if err != nil {
		if strings.Contains(err.Error(), pacemaker.NotConnected) {
			return nil, fmt.Errorf("%w: %v", ErrNoCluster, err)
		}
		return nil, err
	}
	return pacemaker.ReadLock([]byte(out[0]), d.m.Domain)
}

func (d *pcmkDomain) status(ctx context.Context, host string) (map[string]pacemaker.NodeState, map[string]string, error) {
	out, err := query(ctx, d.r, host, pacemaker.QueryMembersItem())
	if err != nil {
		if strings.Contains(err.Error(), pacemaker.NotConnected) {
			return nil, nil, fmt.Errorf("%w: %v", ErrNoCluster, err)
		}
		return nil, nil, err
	}
	return pacemaker.Members([]byte(out[0]))
}

func (d *pcmkDomain) lock(ctx context.Context) (string, error) {
	l, err := d.readLock(ctx, d.admin())
	if err != nil {
		return "", err
	}
	if l != nil {
		d.home, d.standby = l.Home, l.Standby
		return l.Holder, nil
	}
	nodes, top, err := d.status(ctx, d.admin())
	if err != nil {
		return "", err
	}
	if _, ok := nodes[d.m.Node]; !ok {
		return "", fmt.Errorf("node %q is not a member of the cluster (members: %s)", d.m.Node, strings.Join(slices.Sorted(maps.Keys(nodes)), ", "))
	}
	home := pacemaker.Running(top, d.m.Node)
	take := pacemaker.Lock{Holder: d.m.Node, Home: home, Standby: nodes[d.m.Node].Standby}
	res, err := d.r.Run(ctx, d.admin(), []protocol.Item{pacemaker.TakeLockItem(d.m.Domain, take)}, false)
	if err != nil {
		return "", err
	}
	// Another run may have taken it between the read and the create (the
	// CIB manager refuses the second create: "File exists"): whoever the
	// CIB names holds it.
	l, err = d.readLock(ctx, d.admin())
	if err != nil {
		return "", err
	}
	if l == nil {
		return "", fmt.Errorf("taking the lock: %s", itemErrors(res))
	}
	d.home, d.standby = l.Home, l.Standby
	return l.Holder, nil
}

func (d *pcmkDomain) pending(ctx context.Context) (bool, error) {
	l, err := d.readLock(ctx, d.admin())
	if err != nil {
		return false, err
	}
	return l != nil && l.Holder == d.m.Node, nil
}

func (d *pcmkDomain) canLeave(ctx context.Context) error {
	nodes, _, err := d.status(ctx, d.admin())
	if err != nil {
		return err
	}
	var away []string
	for _, n := range slices.Sorted(maps.Keys(nodes)) {
		if n == d.m.Node {
			continue
		}
		if s := nodes[n]; !s.Online || s.Standby {
			away = append(away, n)
		}
	}
	if len(away) > 0 {
		return fmt.Errorf("%s not online and active: taking %s out now would leave the cluster's resources nowhere to run", strings.Join(away, ", "), d.m.Node)
	}
	if len(nodes) < 2 {
		return errors.New("the cluster has no other member to take the resources")
	}
	return nil
}

func (d *pcmkDomain) enter(ctx context.Context) error {
	_, err := change(ctx, d.r, d.admin(), pacemaker.StandbyItem(d.m.Node, true))
	return err
}

func (d *pcmkDomain) drained(ctx context.Context) error {
	nodes, top, err := d.status(ctx, d.admin())
	if err != nil {
		return err
	}
	if !nodes[d.m.Node].Standby {
		return fmt.Errorf("%s is not in standby", d.m.Node)
	}
	if still := pacemaker.Running(top, d.m.Node); len(still) > 0 {
		return fmt.Errorf("%s still runs %s", d.m.Node, strings.Join(still, ", "))
	}
	return nil
}

// rejoined asks the member itself: its pacemaker answers once it has
// booted and joined.
func (d *pcmkDomain) rejoined(ctx context.Context) error {
	nodes, _, err := d.status(ctx, d.m.Host)
	if err != nil {
		return err
	}
	if !nodes[d.m.Node].Online {
		return fmt.Errorf("%s is not online in the cluster", d.m.Node)
	}
	return nil
}

func (d *pcmkDomain) leave(ctx context.Context) error {
	if d.standby {
		return nil // the configuration keeps it in standby
	}
	_, err := change(ctx, d.r, d.admin(), pacemaker.StandbyItem(d.m.Node, false))
	return err
}

// settled moves back what ran on the member before (pcs resource
// relocate), then waits until it runs there.
func (d *pcmkDomain) settled(ctx context.Context) error {
	nodes, top, err := d.status(ctx, d.admin())
	if err != nil {
		return err
	}
	if s := nodes[d.m.Node]; !s.Online || s.Standby && !d.standby {
		return fmt.Errorf("%s is not online and active", d.m.Node)
	}
	if d.standby {
		return nil
	}
	var away []string
	for _, id := range d.home {
		if at, ok := top[id]; ok && at != d.m.Node {
			away = append(away, id)
		}
	}
	if len(away) == 0 {
		return nil
	}
	// The relocation waits for its transition (crm_resource --wait): the
	// next read finds it done.
	if _, err := change(ctx, d.r, d.admin(), pacemaker.RelocateHomeItems(away, d.m.Node)...); err != nil {
		return err
	}
	return fmt.Errorf("%s moved back to %s, checking", strings.Join(away, ", "), d.m.Node)
}

func (d *pcmkDomain) release(ctx context.Context) error {
	_, err := change(ctx, d.r, d.admin(), pacemaker.ReleaseLockItem(d.m.Domain))
	return err
}
