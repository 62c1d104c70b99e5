package ceph

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Client is an RBD client node: its cephx keyring, a minimal ceph.conf,
// the rbdmap file listing its images (mapped again at boot by the rbdmap
// unit) and the images mapped now.
type Client struct {
	// Name is the cephx id (client.<Name>).
	Name   string
	Pool   string
	Images []string
	FSID   string
	// MonHosts are the monitors' addresses (IPs, optionally with a port).
	MonHosts []string
	// Key is the cephx key; Unread renders the keyring with its mode only
	// (a refresh has no key: state keeps its hash).
	Key    string
	Unread bool
}

var (
	reFSID   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	reCephxK = regexp.MustCompile(`^[A-Za-z0-9+/]{38,}={0,2}$`)
)

// Validate checks the client's settings; errors are located at the
// hpcstorage_rbd_client attribute (name, pool, images[i], fsid,
// mon_hosts[i]).
func (c Client) Validate() error {
	errs := []error{c.ValidateNames(), c.ValidateCluster()}
	if !c.Unread && !reCephxK.MatchString(c.Key) {
		errs = append(errs, invalid(nil, "the cephx key read from the cluster is not a base64 key"))
	}
	return errors.Join(errs...)
}

// ValidateNames checks the client, pool and image names: what the
// configuration says, known at plan even when the cluster is not built yet.
func (c Client) ValidateNames() error {
	errs := []error{ValidName(located.At("name"), c.Name), ValidName(located.At("pool"), c.Pool)}
	seen := map[string]bool{}
	for i, img := range c.Images {
		at := located.At("images").Index(i)
		errs = append(errs, ValidName(at, img))
		if seen[img] {
			errs = append(errs, invalid(at, "%q listed twice", img))
		}
		seen[img] = true
	}
	return errors.Join(errs...)
}

// ValidateCluster checks the cluster's fsid and monitors (values that come
// from hpcstorage_ceph_cluster, unknown until it is bootstrapped).
func (c Client) ValidateCluster() error {
	var errs []error
	if !reFSID.MatchString(c.FSID) {
		errs = append(errs, invalid(located.At("fsid"), "%q: want the cluster's fsid (a UUID, hpcstorage_ceph_cluster.fsid)", c.FSID))
	}
	if len(c.MonHosts) == 0 {
		errs = append(errs, invalid(located.At("mon_hosts"), "name at least one monitor"))
	}
	for i, m := range c.MonHosts {
		if _, err := netip.ParseAddr(m); err != nil {
			if _, err := netip.ParseAddrPort(m); err != nil {
				errs = append(errs, invalid(located.At("mon_hosts").Index(i), "%q: want an IP address, optionally with :port", m))
			}
		}
	}
	return errors.Join(errs...)
}

// ConfContent is the client's /etc/ceph/ceph.conf: what the kernel client
// and the rbd tool need to reach the monitors.
func (c Client) ConfContent() string {
	return fmt.Sprintf("# Managed by hpcstorage (RBD client %s).\n[global]\n\tfsid = %s\n\tmon_host = %s\n",
		c.Name, c.FSID, strings.Join(c.MonHosts, ","))
}

// RbdmapContent is /etc/ceph/rbdmap: one line per image, mapped with the
// client's id and keyring.
func (c Client) RbdmapContent() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Managed by hpcstorage (RBD client %s): mapped at boot by rbdmap.service.\n", c.Name)
	for _, i := range c.Images {
		fmt.Fprintf(&b, "%s/%s\tid=%s,keyring=%s\n", c.Pool, i, c.Name, KeyringPath(c.Name))
	}
	return b.String()
}

// KeyringContent is the client's keyring file.
func (c Client) KeyringContent() string {
	return fmt.Sprintf("[client.%s]\n\tkey = %s\n", c.Name, c.Key)
}

// Items renders the client node's items: keyring (0600), ceph.conf,
// rbdmap, the rbdmap unit enabled, then one `rbd map` per image not mapped
// yet and the read-back of what is mapped.
func (c Client) Items() ([]protocol.Item, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	key := &protocol.File{Path: KeyringPath(c.Name), Mode: "0600", Owner: "root", Group: "root", Sensitive: true}
	if !c.Unread {
		k := c.KeyringContent()
		key.Content = &k
	}
	conf, rbdmap := c.ConfContent(), c.RbdmapContent()
	enabled := true
	items := []protocol.Item{
		{File: key},
		{File: &protocol.File{Path: ConfFile, Content: &conf, Mode: "0644"}},
		{File: &protocol.File{Path: RbdmapFile, Content: &rbdmap, Mode: "0644"}},
		{Service: &protocol.Service{Name: RbdmapUnit, Enabled: &enabled}},
	}
	for _, i := range c.Images {
		items = append(items, c.MapItem(i))
	}
	return append(items, QueryShowmapped), nil
}

// MapItem maps one image unless `rbd showmapped` lists it.
func (c Client) MapItem(image string) protocol.Item {
	p, n := regexp.QuoteMeta(c.Pool), regexp.QuoteMeta(image)
	listed := `\{[^{}]*("pool":\s*"` + p + `"[^{}]*"name":\s*"` + n + `"|"name":\s*"` + n + `"[^{}]*"pool":\s*"` + p + `")[^{}]*\}`
	return Guarded("rbd-map-"+c.Pool+"-"+image, []string{"rbd", "map", c.Pool + "/" + image, "--id", c.Name},
		QueryShowmapped.Command.Argv, listed)
}

// UnmapItem unmaps one image; sent when showmapped lists it.
func UnmapItem(pool, image, nonce string) protocol.Item {
	return Once("rbd-unmap-"+pool+"-"+image, nonce, "rbd", "unmap", pool+"/"+image)
}

// AuthCreate creates the client's key on the admin host with the caps
// RBD needs on one pool, writing its keyring there (the guard).
func AuthCreate(name, pool string) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "ceph-auth-create-" + name,
		Argv: []string{"ceph", "auth", "get-or-create", "client." + name, "mon", "profile rbd", "osd", "profile rbd pool=" + pool,
			"-o", KeyringPath(name)},
		Unless: nonEmpty(KeyringPath(name))}}
}
