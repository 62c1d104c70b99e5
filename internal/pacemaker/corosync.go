package pacemaker

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// Where corosync keeps its files.
const (
	CorosyncConf = "/etc/corosync/corosync.conf"
	AuthKey      = "/etc/corosync/authkey"
	CorosyncLog  = "/var/log/cluster/corosync.log"
)

// maxRings is how many rings (links) each transport takes: knet up to 8
// links, udpu (corosync 2's redundant ring protocol) 2.
func maxRings(transport string) int {
	if transport == "udpu" {
		return 2
	}
	return 8
}

// checkRings checks one node's ring addresses: how many, and IP
// addresses.
func checkRings(field located.Path, transport string, networks []string, addrs []string) error {
	var errs []error
	if len(addrs) == 0 || len(addrs) > maxRings(transport) {
		errs = append(errs, invalid(field, "%d ring addresses: want 1 to %d for %s", len(addrs), maxRings(transport), transport))
	}
	if len(networks) > 0 && len(networks) != len(addrs) {
		errs = append(errs, invalid(field, "%d ring addresses for %d cluster networks: want one address per network", len(addrs), len(networks)))
	}
	// Networks and the addresses on them: Rules.
	for i, a := range addrs {
		if _, err := netip.ParseAddr(a); err != nil {
			errs = append(errs, invalid(field, "ring %d address %q: want an IP address", i, a))
		}
	}
	return errors.Join(errs...)
}

// Corosync renders corosync.conf: the nodes with their ring addresses,
// votequorum with two_node for a pair, and the transport's encryption (the
// authkey, written beside it, keys it).
func (c Cluster) Corosync() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("# Managed by hpcstorage; local changes are reverted.\n")
	fmt.Fprintf(&b, "totem {\n    version: 2\n    cluster_name: %s\n    transport: %s\n", c.Name, c.Transport)
	// The authkey encrypts and signs the cluster traffic: knet with
	// crypto_*, corosync 2's udpu with secauth.
	if c.Transport == "knet" {
		b.WriteString("    crypto_cipher: aes256\n    crypto_hash: sha256\n")
	} else {
		b.WriteString("    secauth: on\n")
	}
	fmt.Fprintf(&b, "    keyfile: %s\n", AuthKey)
	b.WriteString("}\n\nnodelist {\n")
	for _, n := range c.Nodes {
		b.WriteString("    node {\n")
		for i, a := range n.Addrs {
			fmt.Fprintf(&b, "        ring%d_addr: %s\n", i, a)
		}
		fmt.Fprintf(&b, "        name: %s\n        nodeid: %d\n    }\n", n.Name, n.ID)
	}
	b.WriteString("}\n\nquorum {\n    provider: corosync_votequorum\n")
	if c.TwoNode {
		b.WriteString("    two_node: 1\n")
	}
	fmt.Fprintf(&b, "}\n\nlogging {\n    to_logfile: yes\n    logfile: %s\n    to_syslog: yes\n    timestamp: on\n}\n", CorosyncLog)
	return []byte(b.String()), nil
}
