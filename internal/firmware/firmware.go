// Package firmware holds the pure rules about server firmware: how vendor
// version strings compare, which inventory entry a component name means,
// firmware floors checked at plan time, and whether an image fits a
// system's model. It reads nothing from the network; internal/redfish
// fills the inventory and the provider turns the errors into diagnostics.
package firmware

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Sentinel errors.
var (
	ErrBelowFloor   = errors.New("firmware below its floor")
	ErrNoComponent  = errors.New("no such firmware component")
	ErrWrongModel   = errors.New("firmware image is for another model")
	ErrInvalidFloor = errors.New("invalid firmware floor")
)

// Component kinds the provider knows by name on every vendor.
const (
	KindBIOS = "BIOS"
	KindBMC  = "BMC"
)

// Component is one running firmware of a server's inventory.
type Component struct {
	ID         string // SoftwareInventory Id (iDRAC puts the version in it)
	URI        string
	Name       string
	Version    string
	SoftwareID string
	Updateable bool
	// Kind is KindBIOS, KindBMC or "" for other components.
	Kind string
	// Pending is a version staged to run after the next reset, when the
	// BMC shows one (iDRAC's Available- entries); "" otherwise.
	Pending string
}

// FQDD is the Dell device name in an iDRAC inventory id
// ("Installed-159-2.10.2__BIOS.Setup.1-1" -> "BIOS.Setup.1-1"), else "".
func FQDD(id string) string {
	if _, f, ok := strings.Cut(id, "__"); ok {
		return f
	}
	return ""
}

// Matches reports whether name designates c: its kind (BIOS, BMC), id,
// name, software id or Dell FQDD, ignoring case. Kind and FQDD do not
// change with the version, so they are the names to use in configuration.
func (c Component) Matches(name string) bool {
	for _, v := range []string{c.Kind, c.ID, c.Name, c.SoftwareID, FQDD(c.ID)} {
		if v != "" && strings.EqualFold(v, name) {
			return true
		}
	}
	return false
}

// Find returns the component name designates; none or several is an
// error listing what the inventory holds.
func Find(inv []Component, name string) (Component, error) {
	var found []Component
	for _, c := range inv {
		if c.Matches(name) {
			found = append(found, c)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	names := make([]string, 0, len(inv))
	for _, c := range inv {
		names = append(names, label(c))
	}
	if len(found) == 0 {
		return Component{}, fmt.Errorf("%w: %q (the inventory holds %s)", ErrNoComponent, name, strings.Join(names, ", "))
	}
	return Component{}, fmt.Errorf("%w: %q names %d components (%s); use an id", ErrNoComponent, name, len(found), strings.Join(names, ", "))
}

func label(c Component) string {
	if c.Kind != "" && !strings.EqualFold(c.Kind, c.Name) {
		return fmt.Sprintf("%s (%s)", c.Name, c.Kind)
	}
	return c.Name
}

// Compare orders two firmware versions: -1, 0 or 1. Runs of digits compare
// as numbers and runs of letters without case; dots, dashes, spaces and
// underscores only separate. So Dell's "4.40.00.00" equals "4.40.0.0" and
// is below "4.40.10.00", "2.12.2" is above "2.9.10", and a missing numeric
// part counts as 0 ("2.10" equals "2.10.0").
func Compare(a, b string) int {
	ta, tb := tokens(a), tokens(b)
	for i := 0; i < max(len(ta), len(tb)); i++ {
		x, y := "0", "0"
		if i < len(ta) {
			x = ta[i]
		}
		if i < len(tb) {
			y = tb[i]
		}
		if c := compareToken(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func tokens(v string) []string {
	var out []string
	cur := []rune{}
	digits := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range strings.TrimSpace(v) {
		switch {
		case unicode.IsDigit(r):
			if !digits {
				flush()
			}
			digits = true
			cur = append(cur, r)
		case unicode.IsLetter(r):
			if digits {
				flush()
			}
			digits = false
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// compareToken: numbers by value (of any length), words by text, and a
// number above a word ("2.1" > "2.beta").
func compareToken(x, y string) int {
	dx, dy := isDigits(x), isDigits(y)
	switch {
	case dx && dy:
		x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
		if len(x) != len(y) {
			return cmp.Compare(len(x), len(y))
		}
	case dx:
		return 1
	case dy:
		return -1
	}
	return strings.Compare(x, y)
}

func isDigits(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// Floor is a lowest acceptable firmware version and why.
type Floor struct {
	Component string // as Component.Matches takes it: BIOS, BMC, an id ...
	Min       string
	Why       string
}

// Validate checks a floor before it is used.
func (f Floor) Validate() error {
	switch {
	case strings.TrimSpace(f.Component) == "":
		return fmt.Errorf("%w: the component is empty", ErrInvalidFloor)
	case len(tokens(f.Min)) == 0:
		return fmt.Errorf("%w: %s: min version %q holds no number or word", ErrInvalidFloor, f.Component, f.Min)
	}
	return nil
}

// CascadeLakeBIOS is the R2 paper's rule (Dell NSS 7.4-HA): a server's
// BIOS must support Cascade Lake before its CPUs are moved to that
// generation. The paper gives no version; min is the one the vendor's
// release notes name for the model.
func CascadeLakeBIOS(min string) Floor {
	return Floor{Component: KindBIOS, Min: min,
		Why: "R2 (NSS 7.4-HA): update the BIOS to a version that supports Cascade Lake before moving to Cascade Lake CPUs"}
}

// CheckFloors refuses an inventory where a component runs below its floor,
// naming the component, both versions and the reason; every violation is
// reported. A floor whose component the inventory lacks is an error too:
// a floor that checks nothing must not pass silently.
func CheckFloors(inv []Component, floors []Floor) error {
	var errs []error
	for _, f := range floors {
		if err := f.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := Find(inv, f.Component)
		if err != nil {
			errs = append(errs, fmt.Errorf("floor %s %s: %w", f.Component, f.Min, err))
			continue
		}
		if Compare(c.Version, f.Min) < 0 {
			e := fmt.Errorf("%w: %s runs %s, below %s", ErrBelowFloor, label(c), c.Version, f.Min)
			if f.Why != "" {
				e = fmt.Errorf("%w (%s)", e, f.Why)
			}
			if c.Pending != "" {
				e = fmt.Errorf("%w; %s is staged and runs after the next reset", e, c.Pending)
			}
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

// Image is what is known of a firmware image before it is sent: the
// component and version it carries and the system models it fits.
type Image struct {
	URI       string
	Component string
	Version   string
	Models    []string
}

// CheckImageModel refuses an image that does not list the system's model
// (exact, ignoring case and surrounding spaces). An image with no models
// listed is not checked: the BMC itself verifies the package.
func CheckImageModel(img Image, model string) error {
	if len(img.Models) == 0 {
		return nil
	}
	if slices.ContainsFunc(img.Models, func(m string) bool { return strings.EqualFold(strings.TrimSpace(m), strings.TrimSpace(model)) }) {
		return nil
	}
	return fmt.Errorf("%w: %s image %s %s fits %s, not this system's model %s", ErrWrongModel, img.Component, img.URI, img.Version,
		strings.Join(img.Models, ", "), model)
}
