package pacemaker

import (
	"errors"
	"net"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// PasswordDir holds, on every cluster node, one root-only file per fence
// device with its BMC password. The CIB holds only the command that reads
// it (the fence agents' password_script), never the password: the CIB is
// readable by the haclient group and copied into every report.
const PasswordDir = "/etc/hpcstorage/fence"

// PasswordFile is where device id's password is kept on the nodes (0400).
func PasswordFile(id string) string { return PasswordDir + "/" + id + ".password" }

// FenceID is the id of the device that fences node.
func FenceID(node string) string { return "fence-" + node }

// RedfishBMC is what fence_redfish needs to fence one node through its
// BMC.
type RedfishBMC struct {
	// Node is the cluster node the BMC powers.
	Node string
	// Address is the BMC's host or host:port (HTTPS).
	Address string
	// SystemsURI is the node's Redfish system; without it fence_redfish
	// takes the last member of /redfish/v1/Systems, which on a multi-node
	// chassis is another node.
	SystemsURI string
	Username   string
	// Insecure skips the BMC certificate check (fence_redfish has no CA
	// option: a verified BMC needs its CA in the node's trust store).
	Insecure bool
}

// RedfishFence is the fence_redfish device of one node.
func RedfishFence(b RedfishBMC) FenceDevice {
	id := FenceID(b.Node)
	host, port := b.Address, ""
	if h, p, err := net.SplitHostPort(b.Address); err == nil {
		host, port = h, p
	}
	p := map[string]string{
		"ip":              host,
		"systems_uri":     b.SystemsURI,
		"username":        b.Username,
		"password_script": "/bin/cat " + PasswordFile(id),
		"pcmk_host_list":  b.Node,
	}
	// The agent's own default is 443; "ip=host:port" works only as its
	// legacy form.
	if port != "" {
		p["ipport"] = port
	}
	if b.Insecure {
		p["ssl_insecure"] = "1"
	}
	return FenceDevice{ID: id, Agent: "fence_redfish", Node: b.Node, Params: p}
}

// checkFenceParams holds what the agents' meta-data cannot say: no
// password in clear, the device fences its own node, and fence_redfish
// always names its BMC and system.
func checkFenceParams(field located.Path, f FenceDevice) error {
	var errs []error
	for _, k := range []string{"password", "passwd"} {
		if _, ok := f.Params[k]; ok {
			errs = append(errs, invalid(field, "parameter %q would keep the BMC password in the CIB in clear: use "+
				"password_script reading %s (0400) instead", k, PasswordFile(f.ID)))
		}
	}
	if hl, ok := f.Params["pcmk_host_list"]; ok && hl != f.Node {
		errs = append(errs, invalid(field, "pcmk_host_list %q: this device fences %q and only it", hl, f.Node))
	}
	if f.Agent == "fence_redfish" {
		if err := checkAddress(f.Params["ip"]); err != nil {
			errs = append(errs, invalid(field, "ip %q: %v", f.Params["ip"], err))
		}
		if p, ok := f.Params["ipport"]; ok {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				errs = append(errs, invalid(field, "ipport %q: want 1 to 65535", p))
			}
		}
		if u := f.Params["systems_uri"]; !strings.HasPrefix(u, "/redfish/v1/Systems/") || len(u) == len("/redfish/v1/Systems/") {
			errs = append(errs, invalid(field, "systems_uri %q: want /redfish/v1/Systems/<id> of the fenced node (without it "+
				"fence_redfish powers the last system the BMC lists)", u))
		}
		if f.Params["username"] == "" {
			errs = append(errs, invalid(field, "fence_redfish needs a username"))
		}
		if f.Params["password_script"] == "" {
			errs = append(errs, invalid(field, "fence_redfish needs password_script (the password stays out of the CIB)"))
		}
	}
	return errors.Join(errs...)
}

// checkAddress accepts host or host:port.
func checkAddress(a string) error {
	host, port := a, ""
	if h, p, err := net.SplitHostPort(a); err == nil {
		host, port = h, p
	}
	if host == "" || strings.ContainsAny(host, " /") {
		return errors.New("want the BMC's host or host:port")
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return errors.New("port: want 1 to 65535")
		}
	}
	return nil
}
