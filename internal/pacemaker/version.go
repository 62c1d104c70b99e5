package pacemaker

// Pacemaker versions. The designs were validated on Pacemaker 1.1 (RHEL
// 7.6) and 2.x; RHEL 10 ships Pacemaker 3.0, whose CIB must declare a
// schema it knows (pacemaker-4.0) and which dropped options Pacemaker 2
// took (its 3.0.0 ChangeLog, "Features added since 2.1.9", and the
// pacemaker-4.0 schema, which refuses them). A CIB follows the cluster's
// version: it never carries what that version removed, and a plan that
// asks for it fails naming the attribute.
//
// What Pacemaker 3 removed that this renderer cannot write at all, so
// nothing checks it here: operation options (can-fail, can_fail,
// role_after_failure: operations carry name, interval and timeout only),
// rules in location constraints (locations name one node), lifetime
// elements, rsc_defaults instance_attributes (defaults are meta
// attributes), ping nodes and the master resource.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// The versions a cluster is rendered for: "2" is the papers' Pacemaker
// (1.1 on RHEL 7, 2.x on RHEL 8 and 9), "3" is Pacemaker 3.x (RHEL 10).
const (
	Version2       = "2"
	Version3       = "3"
	DefaultVersion = Version2
)

// Versions are the values of pacemaker_version, the paper's first.
var Versions = []string{Version2, Version3}

// versionInfo is what a CIB of one version declares and which majors of
// the running pacemaker (its dc-version) it is for.
type versionInfo struct {
	validateWith, featureSet string
	majors                   []int
	// describe names the releases in messages.
	describe string
}

// Pacemaker 2.1's tools refuse a CIB whose feature set is newer than
// their own (3.16.1 is the newest Debian's 2.1.5 takes); pacemaker-3.0 is
// the oldest schema of pacemaker 2.x and holds everything rendered here.
// Pacemaker 3.0.0 has feature set 3.20.0 (3.0.x clusters take it) and
// pacemaker-4.0 is its schema, the one validate-with must name.
var versions = map[string]versionInfo{
	Version2: {validateWith: ValidateWith, featureSet: FeatureSet, majors: []int{1, 2}, describe: "Pacemaker 1.1 or 2.x"},
	Version3: {validateWith: "pacemaker-4.0", featureSet: "3.20.0", majors: []int{3}, describe: "Pacemaker 3.x"},
}

// What the CIB of the default version (2) declares.
const (
	FeatureSet   = "3.16.1"
	ValidateWith = "pacemaker-3.0"
)

// SchemaOf is the schema (validate-with) and feature set the CIB of
// version declares.
func SchemaOf(version string) (validateWith, featureSet string) {
	v := versions[versionOr(version)]
	return v.validateWith, v.featureSet
}

func versionOr(v string) string {
	if v == "" {
		return DefaultVersion
	}
	return v
}

// removed3 are the cluster properties Pacemaker 3 dropped (the
// pacemaker-4.0 schema refuses them), with what to use instead.
var removed3Properties = map[string]string{
	"crmd-finalization-timeout": `use "join-finalization-timeout"`,
	"crmd-integration-timeout":  `use "join-integration-timeout"`,
	"crmd-transition-delay":     `use "transition-delay"`,
	"remove-after-stop":         "it has no replacement: drop it",
}

// removed3Meta are the resource meta attributes Pacemaker 3 dropped.
var removed3Meta = map[string]string{
	"restart-type": "it has no replacement: drop it",
}

// removed3Classes are the resource classes Pacemaker 3 dropped (refused
// for every version here, as classes other than ocf, systemd and service;
// the message says why for 3).
var removed3Classes = []string{"nagios", "upstart"}

// checkVersion refuses what the cluster's version removed; errors name
// the field as Validate does.
func (c Cluster) checkVersion() []error {
	v := versionOr(c.Version)
	if _, ok := versions[v]; !ok {
		return []error{invalid(located.At("pacemaker_version"), "%q: want one of %s", c.Version, strings.Join(Versions, ", "))}
	}
	if v != Version3 {
		return nil
	}
	var errs []error
	for _, k := range sortedKeys(c.Properties) {
		if hint, ok := removed3Properties[k]; ok {
			errs = append(errs, invalid(located.At("properties"), "%s: Pacemaker 3 removed this option (pacemaker_version = %q); %s", k, v, hint))
		}
		if k == "stonith-action" && c.Properties[k] == "poweroff" {
			errs = append(errs, invalid(located.At("properties"), `stonith-action = "poweroff": Pacemaker 3 removed this value `+
				`(pacemaker_version = %q); use "off"`, v))
		}
	}
	errs = append(errs, checkMeta3(located.At("resource_defaults"), c.ResourceDefaults)...)
	for i, g := range c.Groups {
		field := located.At("groups").Index(i)
		errs = append(errs, checkMeta3(field.Name("meta"), g.Meta)...)
		for j, p := range g.Members {
			errs = append(errs, checkPrimitive3(field.Name("members").Index(j), p)...)
		}
	}
	for i, p := range c.Primitives {
		errs = append(errs, checkPrimitive3(located.At("primitives").Index(i), p)...)
	}
	for i, f := range c.Fencing {
		errs = append(errs, checkDeprecatedParams(located.At("fence_devices").Index(i), "stonith", "", f.Agent, f.Params)...)
	}
	return errs
}

func checkPrimitive3(field located.Path, p Primitive) []error {
	errs := checkMeta3(field.Name("meta"), p.Meta)
	if contains(removed3Classes, p.Class) {
		errs = append(errs, invalid(field.Name("class"), "%q: Pacemaker 3 removed the %s class (pacemaker_version = %q); "+
			"use a systemd unit", p.Class, p.Class, Version3))
	}
	return errs
}

func checkMeta3(field located.Path, meta map[string]string) []error {
	var errs []error
	for _, k := range sortedKeys(meta) {
		if hint, ok := removed3Meta[k]; ok {
			errs = append(errs, invalid(field, "%s: Pacemaker 3 removed this meta attribute (pacemaker_version = %q); %s", k, Version3, hint))
		}
		// Pacemaker 3 ignores a negative threshold and uses the default.
		if n, err := strconv.Atoi(meta[k]); k == "migration-threshold" && err == nil && n < 0 {
			errs = append(errs, invalid(field, "migration-threshold = %d: Pacemaker 3 takes no negative threshold "+
				"(it would use the default, INFINITY); use 0 or more", n))
		}
	}
	return errs
}

// checkDeprecatedParams refuses the parameters the agent's meta-data marks
// deprecated (fence_redfish's ipaddr, login, passwd), naming the one that
// replaces each: Pacemaker 3's pcs validates options against the agent.
func checkDeprecatedParams(field located.Path, class, provider, typ string, params map[string]string) []error {
	a, ok := agentTable[AgentSpec(class, provider, typ)]
	if !ok {
		return nil
	}
	var errs []error
	for _, k := range sortedKeys(params) {
		p, ok := a.params[k]
		if !ok || !p.deprecated {
			continue
		}
		instead := ""
		for _, n := range sortedKeys(a.params) {
			if a.params[n].obsoletes == k {
				instead = fmt.Sprintf("; use %q", n)
			}
		}
		errs = append(errs, invalid(field, "parameter %q of %s is deprecated with Pacemaker 3's fence agents (pacemaker_version = %q)%s",
			k, AgentSpec(class, provider, typ), Version3, instead))
	}
	return errs
}

// reDCVersion reads the release from a dc-version ("2.1.5-a3f44794f94",
// "1.1.19-8.el7_6.4-c3c624ea3d", "3.0.1-3.el10-...").
var reDCVersion = regexp.MustCompile(`^([0-9]+)\.[0-9]+`)

// RunningVersion is the dc-version the controller wrote in a live
// configuration (cibadmin --query --scope configuration); "" when there
// is none yet (no controller elected).
func RunningVersion(live []byte) (string, error) {
	conf, err := parseConfiguration(live)
	if err != nil {
		return "", err
	}
	cc := conf.child("crm_config")
	if cc == nil {
		return "", nil
	}
	for _, set := range cc.Children {
		for _, nv := range set.Children {
			if nv.Name == "nvpair" && nv.attr("name") == "dc-version" {
				return nv.attr("value"), nil
			}
		}
	}
	return "", nil
}

// CheckRunning refuses a cluster whose pacemaker (dcVersion, from
// RunningVersion) is not of the version the CIB is rendered for. An empty
// dcVersion (not known yet) passes.
func CheckRunning(version, dcVersion string) error {
	if dcVersion == "" {
		return nil
	}
	v := versionOr(version)
	info, ok := versions[v]
	if !ok {
		return invalid(located.At("pacemaker_version"), "%q: want one of %s", version, strings.Join(Versions, ", "))
	}
	m := reDCVersion.FindStringSubmatch(dcVersion)
	if m == nil {
		return fmt.Errorf("%w: dc-version %q: not a pacemaker release", ErrLive, dcVersion)
	}
	major, _ := strconv.Atoi(m[1])
	for _, ok := range info.majors {
		if ok == major {
			return nil
		}
	}
	want := ""
	for _, name := range Versions {
		for _, mj := range versions[name].majors {
			if mj == major {
				want = name
			}
		}
	}
	msg := fmt.Sprintf("pacemaker_version = %q is for %s, but the cluster runs Pacemaker %s (its dc-version)", v, info.describe, dcVersion)
	if want != "" {
		msg += fmt.Sprintf("; set pacemaker_version = %q", want)
	}
	return invalid(located.At("pacemaker_version"), "%s", msg)
}
