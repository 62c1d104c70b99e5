package gpfs

import (
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"

	"fmt"
	"net"
	"slices"
	"strings"
)

// SMBExport is one CES SMB export (share): mmsmb export add NAME PATH
// --option "KEY=VALUE"...
type SMBExport struct {
	Name    string
	Path    string
	Options map[string]string
}

// SMBOptions are the share options mmsmb export add accepts (IBM's list
// of supported SMB export options); yes/no options are marked.
var SMBOptions = map[string]bool{
	"access based share enum": true, "admin users": false, "browseable": true, "comment": false,
	"csc policy": false, "gpfs:leases": true, "gpfs:recalls": true, "gpfs:sharemodes": true,
	"guest ok": true, "hide dot files": true, "hide unreadable": true, "invalid users": false,
	"oplocks": true, "posix locking": true, "read list": false, "read only": true,
	"smb encrypt": false, "valid users": false, "write list": false,
}

// SMBOptionNames are SMBOptions' names, sorted (for docs and suggestions).
func SMBOptionNames() []string { return sortedKeys(SMBOptions) }

// smbReserved are share names Samba keeps for itself.
var smbReserved = []string{"global", "homes", "printers", "ipc$"}

// Argv is the mmsmb export add command, options in name order.
func (x SMBExport) Argv() []string {
	argv := []string{"mmsmb", "export", "add", x.Name, x.Path}
	for _, k := range sortedKeys(x.Options) {
		argv = append(argv, "--option", k+"="+x.Options[k])
	}
	return argv
}

// SMBShare is a row of mmsmb export list -Y --all.
type SMBShare struct {
	Name, Path string
	Options    map[string]string
}

// ParseSMBExports reads mmsmb export list -Y [--all] by header name.
func ParseSMBExports(out string) ([]SMBShare, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	var sh []SMBShare
	for _, r := range p.Table("mmsmb", "exports").Rows {
		s := SMBShare{Name: r["export"], Path: r["path"], Options: map[string]string{}}
		for k, v := range r {
			if k != "export" && k != "path" {
				s.Options[k] = v
			}
		}
		sh = append(sh, s)
	}
	return sh, nil
}

// ParseCESAddresses reads mmces address list -Y: the CES addresses.
func ParseCESAddresses(out string) ([]string, error) {
	p, err := ParseY(out)
	if err != nil {
		return nil, err
	}
	var ips []string
	for _, r := range p.Table("mmces", "address").Rows {
		if ip := r["cesAddress"]; ip != "" {
			ips = append(ips, ip)
		}
	}
	return ips, nil
}

// smbDiff says how a share differs from its export ("" when it matches):
// the path, or an option whose value mmsmb lists otherwise (yes/no
// options compare case-insensitively).
func smbDiff(x SMBExport, s SMBShare) string {
	if s.Path != x.Path {
		return fmt.Sprintf("path %s, want %s", s.Path, x.Path)
	}
	for _, k := range sortedKeys(x.Options) {
		got, ok := s.Options[k]
		if !ok || !strings.EqualFold(strings.TrimSpace(got), strings.TrimSpace(x.Options[k])) {
			return fmt.Sprintf("%s = %q, want %q", k, got, x.Options[k])
		}
	}
	return ""
}

func (s ProtocolsSeen) share(name string) (SMBShare, bool) {
	for _, sh := range s.Shares {
		if strings.EqualFold(sh.Name, name) {
			return sh, true
		}
	}
	return SMBShare{}, false
}

// validateGatewayExtras checks CES addresses and SMB exports.
func validateGatewayExtras(s ProtocolsSpec, ps *Problems) {
	seenIP := map[string]int{}
	for i, ip := range s.Addresses {
		at := located.At("ces_addresses").Index(i)
		if net.ParseIP(ip) == nil {
			ps.add(at, "%q is not an IP address (mmces address add --ces-ip takes addresses, not networks)", ip)
		}
		if j, dup := seenIP[ip]; dup {
			ps.add(at, "%s is listed twice (ces_addresses[%d])", ip, j)
		}
		seenIP[ip] = i
	}
	names := map[string]int{}
	opts := SMBOptionNames()
	for i, x := range s.SMB {
		at := func(f string) located.Path { return located.At("smb_exports").Index(i).Name(f) }
		switch {
		case x.Name == "" || len(x.Name) > 80:
			ps.add(at("name"), "%q: an SMB export name has 1 to 80 characters", x.Name)
		case strings.ContainsAny(x.Name, "\\/:*?\"<>| ") || strings.ContainsFunc(x.Name, func(r rune) bool { return r < 32 || r == 127 }):
			ps.add(at("name"), "%q: an SMB export name cannot contain \\ / : * ? \" < > |, spaces or control characters", x.Name)
		case slices.Contains(smbReserved, strings.ToLower(x.Name)):
			ps.add(at("name"), "%q is reserved by Samba", x.Name)
		}
		if j, dup := names[strings.ToLower(x.Name)]; dup {
			ps.add(at("name"), "SMB export %s is listed twice (smb_exports[%d]; names compare case-insensitively)", x.Name, j)
		}
		names[strings.ToLower(x.Name)] = i
		if !strings.HasPrefix(x.Path, "/") {
			ps.add(at("path"), "%q is not an absolute path", x.Path)
		}
		for _, k := range sortedKeys(x.Options) {
			yesNo, ok := SMBOptions[k]
			if !ok {
				ps.add(at("options"), "%q is not an SMB export option mmsmb accepts%s", k, didYouMean(k, opts))
				continue
			}
			if v := strings.ToLower(x.Options[k]); yesNo && v != "yes" && v != "no" {
				ps.add(at("options"), "%s = %q: want yes or no", k, x.Options[k])
			}
		}
	}
	if len(s.SMB) > 0 && !slices.Contains(s.Services, "SMB") {
		ps.add(located.At("services"), "smb_exports need the SMB service: add \"SMB\"")
	}
}

// gatewayExtraDrift lists CES addresses and SMB exports that differ.
func gatewayExtraDrift(s ProtocolsSpec, seen ProtocolsSeen, d map[string]string) {
	for _, ip := range s.Addresses {
		if !slices.Contains(seen.Addresses, ip) {
			d["ces_address:"+ip] = "not a CES address"
		}
	}
	for _, x := range s.SMB {
		sh, ok := seen.share(x.Name)
		switch {
		case !ok:
			d["smb_export:"+x.Name] = "not exported"
		case smbDiff(x, sh) != "":
			d["smb_export:"+x.Name] = smbDiff(x, sh)
		}
	}
}

// gatewayExtraSteps add the missing CES addresses (one mmces address add)
// and bring the SMB exports to the configuration: dropped ones removed,
// differing ones removed and added again, missing ones added.
func gatewayExtraSteps(s ProtocolsSpec, seen ProtocolsSeen, droppedSMB []string) []Step {
	var steps []Step
	var add []string
	for _, ip := range s.Addresses {
		if !slices.Contains(seen.Addresses, ip) {
			add = append(add, ip)
		}
	}
	if len(add) > 0 {
		var m []string
		for _, ip := range add {
			m = append(m, `(?m)^mmces:address:0:1:::`+yVal(ip)+`:`)
		}
		steps = append(steps, guarded(Step{Name: "mmces address add", Argv: []string{"mmces", "address", "add", "--ces-ip", strings.Join(add, ",")}},
			[]string{"mmces", "address", "list", "-Y"}, m))
	}
	remove := func(name string) Step {
		return once(Step{Name: "mmsmb export remove " + name, Argv: []string{"mmsmb", "export", "remove", name}})
	}
	for _, n := range sorted(droppedSMB) {
		if sh, ok := seen.share(n); ok {
			steps = append(steps, remove(sh.Name))
		}
	}
	for _, x := range s.SMB {
		sh, ok := seen.share(x.Name)
		if ok && smbDiff(x, sh) == "" {
			continue
		}
		if ok {
			steps = append(steps, remove(sh.Name))
		}
		steps = append(steps, guarded(Step{Name: "mmsmb export add " + x.Name, Argv: x.Argv()},
			[]string{"mmsmb", "export", "list", "-Y"}, []string{`(?m)^mmsmb:exports:0:1:::` + yVal(x.Name) + `:`}))
	}
	return steps
}
