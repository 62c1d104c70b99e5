// Package multipath renders /etc/multipath.conf for servers cabled twice
// to an array: the array's device section (Dell PowerVault ME4: ALUA,
// paths grouped by priority) and one alias per volume, so each volume
// appears as /dev/mapper/<alias> whichever paths it has.
package multipath

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// ErrInvalid is wrapped by every validation error; one about a volume is
// located (internal/located) at its key of hpcstorage_multipath.volumes.
var ErrInvalid = errors.New("invalid multipath setting")

// Where multipath keeps its config, and its daemon.
const (
	ConfPath = "/etc/multipath.conf"
	Service  = "multipathd"
)

// Device is one devices{} section: the array's vendor and product as the
// SCSI inquiry reports them, and its settings in order.
type Device struct {
	Vendor   string
	Product  string
	Settings [][2]string
}

// ME4 is Dell's recommended section for the PowerVault ME4 series (both
// controllers active, the owning one preferred through ALUA).
var ME4 = Device{Vendor: "DellEMC", Product: "ME4", Settings: [][2]string{
	{"path_grouping_policy", `"group_by_prio"`},
	{"path_checker", `"tur"`},
	{"hardware_handler", `"1 alua"`},
	{"prio", `"alua"`},
	{"failback", "immediate"},
	{"rr_weight", `"uniform"`},
	{"path_selector", `"service-time 0"`},
}}

// Alias names one volume, by its WWN (NAA hex; 0x or naa. prefixes
// accepted).
type Alias struct {
	WWN  string
	Name string
}

// Config is the whole multipath.conf.
type Config struct {
	Devices []Device
	Aliases []Alias
}

var (
	reWWN   = regexp.MustCompile(`^[0-9a-f]{16}([0-9a-f]{16})?$`)
	reAlias = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
	reWord  = regexp.MustCompile(`^[^"\n\r{}#]{1,64}$`)
)

// NormWWN is a WWN as lower-case hex without prefix.
func NormWWN(w string) string {
	w = strings.ToLower(strings.TrimSpace(w))
	w = strings.TrimPrefix(w, "0x")
	return strings.TrimPrefix(w, "naa.")
}

// WWID is how multipath names a volume with an NAA WWN: "3" (the SCSI
// designator type of an NAA name) then the hex.
func WWID(wwn string) string { return "3" + NormWWN(wwn) }

// MapperPath is where the volume appears.
func MapperPath(alias string) string { return "/dev/mapper/" + alias }

// Validate checks the config; the error joins one error per mistake.
func (c Config) Validate() error {
	var errs []error
	for i, d := range c.Devices {
		if !reWord.MatchString(d.Vendor) || !reWord.MatchString(d.Product) {
			errs = append(errs, fmt.Errorf("%w: devices[%d]: vendor %q product %q: want the inquiry strings", ErrInvalid, i, d.Vendor, d.Product))
		}
	}
	if len(c.Aliases) == 0 {
		errs = append(errs, located.Errorf(located.At("volumes"), "%w: name at least one volume", ErrInvalid))
	}
	names, wwns := map[string]int{}, map[string]int{}
	for i, a := range c.Aliases {
		// An alias is an element of the volumes map, keyed by its name.
		at := located.At("volumes").Key(a.Name)
		w := NormWWN(a.WWN)
		switch j, dup := wwns[w]; {
		case !reWWN.MatchString(w):
			errs = append(errs, located.Errorf(at, "%w: wwn %q: want the volume's NAA WWN (16 or 32 hex digits)", ErrInvalid, a.WWN))
		case dup:
			errs = append(errs, located.Errorf(at, "%w: wwn %s is also aliased by %q", ErrInvalid, w, c.Aliases[j].Name))
		}
		wwns[w] = i
		switch _, dup := names[a.Name]; {
		case !reAlias.MatchString(a.Name):
			errs = append(errs, located.Errorf(at, "%w: name %q: want 1-64 of A-Z a-z 0-9 _ -", ErrInvalid, a.Name))
		case dup:
			errs = append(errs, located.Errorf(at, "%w: name %q is used twice", ErrInvalid, a.Name))
		}
		names[a.Name] = i
	}
	return errors.Join(errs...)
}

// Render writes multipath.conf. Aliases are sorted by name so the file does
// not change with the order volumes are listed in.
func (c Config) Render() (string, error) {
	if err := c.Validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Managed by hpcstorage; local changes are reverted.\n")
	// find_multipaths: only devices seen through several paths (or listed
	// below) become maps, so local disks stay as they are.
	b.WriteString("defaults {\n    user_friendly_names yes\n    find_multipaths yes\n}\n")
	if len(c.Devices) > 0 {
		b.WriteString("devices {\n")
		for _, d := range c.Devices {
			fmt.Fprintf(&b, "    device {\n        vendor %q\n        product %q\n", d.Vendor, d.Product)
			for _, kv := range d.Settings {
				fmt.Fprintf(&b, "        %s %s\n", kv[0], kv[1])
			}
			b.WriteString("    }\n")
		}
		b.WriteString("}\n")
	}
	aliases := append([]Alias(nil), c.Aliases...)
	sort.Slice(aliases, func(i, j int) bool { return aliases[i].Name < aliases[j].Name })
	b.WriteString("multipaths {\n")
	for _, a := range aliases {
		fmt.Fprintf(&b, "    multipath {\n        wwid %s\n        alias %s\n    }\n", WWID(a.WWN), a.Name)
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// Items are the agent items: the config (multipathd reloads it when it
// changes), the daemon running and enabled, `multipath -r` whenever an
// alias has no map (a volume cabled after the daemon started), and one
// read-only probe per volume that fails, naming it, when the node does
// not see it: a plan then stops before anything is changed.
func (c Config) Items() ([]protocol.Item, error) {
	conf, err := c.Render()
	if err != nil {
		return nil, err
	}
	on := true
	items := []protocol.Item{
		{File: &protocol.File{Path: ConfPath, Content: &conf, Mode: "0644", Owner: "root", Group: "root", Notify: []string{Service}}},
		{Service: &protocol.Service{Name: Service, Enabled: &on, State: "started"}},
		{Command: &protocol.Command{Name: "multipath-maps", Argv: []string{"multipath", "-r"},
			Unless: append([]string{"/bin/sh", "-c", mapsScript, "multipath-maps"}, c.mapperPaths()...)}},
	}
	for _, a := range c.Aliases {
		items = append(items, VisibleProbe(a))
	}
	return items, nil
}

// mapsScript holds when every alias has its map.
const mapsScript = `for d in "$@"; do [ -e "$d" ] || exit 1; done`

func (c Config) mapperPaths() []string {
	var out []string
	for _, a := range c.Aliases {
		out = append(out, MapperPath(a.Name))
	}
	sort.Strings(out)
	return out
}

// ByIDPath is where udev links a volume by its WWN (one of its paths).
func ByIDPath(wwn string) string { return "/dev/disk/by-id/wwn-0x" + NormWWN(wwn) }

// VisibleProbe is the read-only query that fails when the node does not
// see the volume (not mapped to it, or not cabled).
func VisibleProbe(a Alias) protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "visible-" + a.Name, ReadOnly: true,
		Argv: []string{"/bin/sh", "-c", `[ -e "$1" ] && exit 0; echo "volume $2 (WWN $3) is not visible on this node ($1 missing): map it to every server of the pair"; exit 1`,
			"visible-" + a.Name, ByIDPath(a.WWN), a.Name, NormWWN(a.WWN)}}}
}
