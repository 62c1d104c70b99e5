package pacemaker

// The CIB push as one sequence: read the live configuration on the push
// node, refuse a CIB rendered for another pacemaker, diff, patch only what
// differs, read it back and verify. It runs over a Runner, so it is tested
// on a file CIB with pacemaker's own tools, without Terraform.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Runner sends agent items to the push node as one owner (check: read
// only). An error means the node was not reached or the agent did not run;
// item failures are in the result.
type Runner interface {
	Run(ctx context.Context, owner string, items []protocol.Item, check bool) (*protocol.Result, error)
}

// CIBOwner owns the push node's CIB documents; QueryOwner its read-only
// queries (a query must not revert the documents).
func CIBOwner(cluster string) string   { return "ha-cluster-" + cluster + "-cib" }
func QueryOwner(cluster string) string { return CIBOwner(cluster) + "-query" }

// What the push reports, besides ErrLive (an answer it cannot read) and a
// version mismatch (ErrInvalid, located at pacemaker_version).
var (
	// ErrQuery: cibadmin --query failed on the node.
	ErrQuery = errors.New("cibadmin --query failed")
	// ErrTooLarge: the configuration is larger than the agent returns.
	ErrTooLarge = errors.New("the CIB configuration is larger than the agent returns")
	// ErrRefused: the cluster refused the patch; nothing else changed.
	ErrRefused = errors.New("the cluster refused the change")
	// ErrNotVerified: after the patch the configuration still differs.
	ErrNotVerified = errors.New("after the patch the configuration still differs")
)

// ReadConfiguration reads the CIB's configuration on the push node.
func ReadConfiguration(ctx context.Context, r Runner, cluster string) ([]byte, error) {
	res, err := r.Run(ctx, QueryOwner(cluster), []protocol.Item{QueryConfigurationItem()}, true)
	if err != nil {
		return nil, err
	}
	return ConfigurationOf(res)
}

// ConfigurationOf takes the configuration from the first result of a query
// that starts with QueryConfigurationItem.
func ConfigurationOf(res *protocol.Result) ([]byte, error) {
	if len(res.Items) == 0 || res.Items[0].Error != "" || res.Items[0].Skipped {
		msg := "no result"
		if len(res.Items) > 0 {
			msg = res.Items[0].Error
		}
		return nil, fmt.Errorf("%w: %s", ErrQuery, msg)
	}
	out := res.Items[0].Output
	if len(out) >= protocol.MaxOutput {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, protocol.MaxOutput)
	}
	return []byte(out), nil
}

// Push makes the live configuration c's rendered want (c.Configuration())
// from the push node: nothing is sent when they are the same, else only
// the difference (PushItems), then the configuration is read back and
// compared. changed reports whether a patch was applied.
func (c Cluster) Push(ctx context.Context, r Runner, want []byte) (changed bool, err error) {
	live, err := ReadConfiguration(ctx, r, c.Name)
	if err != nil {
		return false, err
	}
	// Never push a CIB rendered for another pacemaker than the one running.
	dc, err := RunningVersion(live)
	if err != nil {
		return false, err
	}
	if err := CheckRunning(c.Version, dc); err != nil {
		return false, err
	}
	if d, err := ConfigDiff(live, want); err != nil || d == "" {
		return false, err
	}
	orig, next, err := PatchDocuments(live, want)
	if err != nil {
		return false, err
	}
	res, err := r.Run(ctx, CIBOwner(c.Name), PushItems(c.Name, orig, next), false)
	if err != nil {
		return false, err
	}
	if res.Failed {
		return false, fmt.Errorf("%w: %s", ErrRefused, failedItems(res))
	}
	live, err = ReadConfiguration(ctx, r, c.Name)
	if err != nil {
		return true, err
	}
	d, err := ConfigDiff(live, want)
	if err != nil {
		return true, err
	}
	if d != "" {
		return true, fmt.Errorf("%w:\n%s", ErrNotVerified, d)
	}
	return true, nil
}

// ErrNotJoined: the nodes did not all join the cluster in time.
var ErrNotJoined = errors.New("the cluster's nodes did not all join")

// WaitJoined waits until every node of c is online in one partition with
// a DC, as crm_mon on the push node sees it. A CIB pushed to a node whose
// peer has not joined yet can be lost when the partitions merge (seen on
// real corosync/pacemaker: the peer became DC and its empty CIB won), so
// the first push of a new cluster waits for this.
func (c Cluster) WaitJoined(ctx context.Context, r Runner, timeout, poll time.Duration) error {
	deadline := time.Now().Add(timeout)
	pause := min(100*time.Millisecond, poll)
	for {
		missing, err := c.notJoined(ctx, r)
		if err == nil && len(missing) == 0 {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("not online: %s", strings.Join(missing, ", "))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w within %s: %v", ErrNotJoined, timeout, err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, poll)
	}
}

// notJoined lists the nodes crm_mon does not show online ("no DC" while
// none is elected).
func (c Cluster) notJoined(ctx context.Context, r Runner) ([]string, error) {
	res, err := r.Run(ctx, QueryOwner(c.Name), []protocol.Item{QueryStatusItem(false)}, true)
	if err != nil {
		return nil, err
	}
	if len(res.Items) == 0 || res.Items[0].Error != "" {
		return nil, fmt.Errorf("crm_mon: %s", failedItems(res))
	}
	st, err := ReadStatus([]byte(res.Items[0].Output))
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, n := range c.Nodes {
		if !st.Online[n.Name] {
			missing = append(missing, n.Name)
		}
	}
	if st.DC == "" {
		missing = append(missing, "no DC")
	}
	return missing, nil
}

// failedItems lists the failed items of a result, "id: error; ...".
func failedItems(res *protocol.Result) string {
	s := ""
	for _, ir := range res.Items {
		if ir.Error != "" {
			if s != "" {
				s += "; "
			}
			s += ir.ID + ": " + ir.Error
		}
	}
	return s
}
