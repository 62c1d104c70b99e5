package gpfs

import (
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"

	"fmt"
	"slices"
	"strings"
)

// NFSExport is one CES NFS export: a path and its clients, each a client
// spec (host, network, "*") with its options ("Access_Type=RW,Squash=root_squash").
type NFSExport struct {
	Path    string
	Clients []NFSClient
}

// NFSClient is one client of an export.
type NFSClient struct {
	Spec    string
	Options string
}

// ClientArg is mmnfs export add's --client value: "SPEC(OPTIONS)" for
// each client, joined by ";".
func (e NFSExport) ClientArg() string {
	parts := make([]string, len(e.Clients))
	for i, c := range e.Clients {
		parts[i] = c.Spec + "(" + c.Options + ")"
	}
	return strings.Join(parts, ";")
}

// ProtocolsSpec is what the CES resource configures.
type ProtocolsSpec struct {
	// Nodes are the CES (protocol) nodes: mmchnode --ces-enable.
	Nodes    []string
	Services []string // "NFS", "SMB"
	Exports  []NFSExport
	// Addresses are the CES addresses clients mount from (mmces address
	// add --ces-ip); GPFS moves them between the CES nodes.
	Addresses []string
	SMB       []SMBExport
}

// ProtocolsSeen is the cesNode section of mmlscluster -Y, mmces service
// list -Y and mmnfs export list -Y.
type ProtocolsSeen struct {
	CESNodes  []string
	Services  []string
	Exports   []Export
	Addresses []string   // mmces address list -Y
	Shares    []SMBShare // mmsmb export list -Y --all
}

func (s ProtocolsSpec) missingNodes(seen ProtocolsSeen) []string {
	var out []string
	for _, n := range s.Nodes {
		if !slices.Contains(seen.CESNodes, n) {
			out = append(out, n)
		}
	}
	return out
}

func (s ProtocolsSeen) clients(p string) []string {
	var out []string
	for _, e := range s.Exports {
		if e.Path == p {
			out = append(out, e.Clients)
		}
	}
	return out
}

func (e NFSExport) specs() []string {
	out := make([]string, len(e.Clients))
	for i, c := range e.Clients {
		out[i] = c.Spec
	}
	return out
}

// ValidateProtocols checks service names, export paths and clients.
func ValidateProtocols(s ProtocolsSpec) Problems {
	var ps Problems
	if len(s.Nodes) == 0 {
		ps.add(located.At("nodes"), "name the CES (protocol gateway) nodes")
	}
	for i, svc := range s.Services {
		if !slices.Contains(CESServices, svc) {
			ps.add(located.At("services").Index(i), "%q is not one of %s%s", svc, strings.Join(CESServices, ", "), didYouMean(svc, CESServices))
		}
	}
	seen := map[string]bool{}
	for i, e := range s.Exports {
		if !strings.HasPrefix(e.Path, "/") {
			ps.add(located.At("exports").Index(i).Name("path"), "%q is not an absolute path", e.Path)
		}
		if seen[e.Path] {
			ps.add(located.At("exports").Index(i).Name("path"), "%s is exported twice", e.Path)
		}
		seen[e.Path] = true
		if len(e.Clients) == 0 {
			ps.add(located.At("exports").Index(i).Name("clients"), "an export needs at least one client")
		}
		for j, c := range e.Clients {
			if c.Spec == "" || strings.ContainsAny(c.Spec+c.Options, "();\" ") {
				ps.add(located.At("exports").Index(i).Name("clients").Index(j), "client %q (%q): no spaces, quotes, parentheses or semicolons", c.Spec, c.Options)
			}
		}
	}
	if len(s.Exports) > 0 && !slices.Contains(s.Services, "NFS") {
		ps.add(located.At("services"), "exports need the NFS service: add \"NFS\"")
	}
	validateGatewayExtras(s, &ps)
	return ps
}

// ProtocolsDrift lists services not enabled and exports missing or with
// other clients.
func ProtocolsDrift(s ProtocolsSpec, seen ProtocolsSeen) map[string]string {
	d := map[string]string{}
	for _, n := range s.missingNodes(seen) {
		d["ces_node:"+n] = "not a CES node"
	}
	for _, svc := range s.Services {
		if !slices.Contains(seen.Services, svc) {
			d["service:"+svc] = "not enabled"
		}
	}
	for _, e := range s.Exports {
		got := seen.clients(e.Path)
		switch {
		case len(got) == 0:
			d["export:"+e.Path] = "not exported"
		case !sameSet(got, e.specs()):
			d["export:"+e.Path] = fmt.Sprintf("clients %s, want %s", strings.Join(sorted(got), ","), strings.Join(sorted(e.specs()), ","))
		}
	}
	gatewayExtraDrift(s, seen, d)
	return d
}

// ProtocolsSteps enable the missing services, remove dropped exports and
// those whose clients differ, add the missing ones, then the CES
// addresses and SMB exports (droppedSMB: names no longer configured).
func ProtocolsSteps(s ProtocolsSpec, seen ProtocolsSeen, dropped, droppedSMB []string) []Step {
	var steps []Step
	if add := s.missingNodes(seen); len(add) > 0 {
		var m []string
		for _, n := range add {
			m = append(m, `(?m)^mmlscluster:cesNode:0:1:::[0-9]+:`+nodeName(n)+`:`)
		}
		steps = append(steps, guarded(Step{Name: "mmchnode --ces-enable", Argv: []string{"mmchnode", "--ces-enable", "-N", strings.Join(add, ",")}},
			[]string{"mmlscluster", "-Y"}, m))
	}
	for _, svc := range s.Services {
		if !slices.Contains(seen.Services, svc) {
			q, m := guardService(svc)
			steps = append(steps, guarded(Step{Name: "mmces service enable " + svc, Argv: []string{"mmces", "service", "enable", svc}}, q, m))
		}
	}
	for _, p := range sorted(dropped) {
		if len(seen.clients(p)) > 0 {
			steps = append(steps, once(Step{Name: "mmnfs export remove " + p, Argv: []string{"mmnfs", "export", "remove", p}}))
		}
	}
	for _, e := range s.Exports {
		got := seen.clients(e.Path)
		if len(got) > 0 && sameSet(got, e.specs()) {
			continue
		}
		if len(got) > 0 {
			steps = append(steps, once(Step{Name: "mmnfs export remove " + e.Path, Argv: []string{"mmnfs", "export", "remove", e.Path}}))
		}
		q, m := guardExport(e)
		steps = append(steps, guarded(Step{Name: "mmnfs export add " + e.Path, Argv: []string{"mmnfs", "export", "add", e.Path, "--client", e.ClientArg()}}, q, m))
	}
	return append(steps, gatewayExtraSteps(s, seen, droppedSMB)...)
}
