// Package bytesize reads the sizes tools and users write (524288, 512k,
// 1M, 1MiB, 1 MiB, 128g, 4KB), through github.com/docker/go-units so the
// provider, the benchmark parsers and the lab share one reading of them.
package bytesize

import (
	"fmt"
	"math"
	"strings"

	"github.com/docker/go-units"
)

// Parse reads a whole number of bytes with an optional binary suffix (k,
// m, g, t, p; "KiB", "KB" and "k" alike are powers of 1024, as fio, IOR
// and beegfs-ctl read them). "0" parses as 0; callers that need a
// positive size refuse it. Fractions and exponents ("1.5k", "1e3") are
// refused: every tool this reads writes whole numbers.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.ContainsAny(t, ".eE") {
		return 0, fmt.Errorf("%q is not a whole size such as 4k, 1M or 128g", s)
	}
	if tooLarge(t) {
		return 0, fmt.Errorf("%q is too large", s)
	}
	v, err := units.RAMInBytes(t)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size such as 4k, 1M or 128g", s)
	}
	return v, nil
}

// ParseDecimal is Parse for drive capacities, as vendors print them:
// "12TB" and "960GB" are powers of 1000, "4TiB" powers of 1024.
func ParseDecimal(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.ContainsAny(t, "iI") {
		return parseFloat(t, units.RAMInBytes, s)
	}
	return parseFloat(t, units.FromHumanSize, s)
}

func parseFloat(t string, parse func(string) (int64, error), s string) (int64, error) {
	if tooLarge(t) {
		return 0, fmt.Errorf("%q is too large", s)
	}
	v, err := parse(t)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size such as 12TB, 960GB or 4TiB", s)
	}
	return v, nil
}

// tooLarge catches what go-units would overflow (its float to int64
// conversion is platform-dependent past 2^63): the number times the
// largest unit its suffix may mean.
func tooLarge(t string) bool {
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, sfx := t, ""
	if i >= 0 {
		num, sfx = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	var f float64
	if _, err := fmt.Sscan(num, &f); err != nil {
		return false // go-units reports it
	}
	mult := 1.0
	if sfx != "" {
		if e := strings.IndexByte("kmgtp", sfx[0]); e >= 0 {
			mult = math.Pow(1024, float64(e+1))
		}
	}
	return f*mult >= math.MaxInt64
}
