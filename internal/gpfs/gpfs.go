// Package gpfs renders what IBM Spectrum Scale (GPFS) administration
// commands read (node files, %nsd and %pool stanzas, placement policies,
// mmchconfig and mmcrfs argv) and parses what they print with -Y. It is
// pure: the provider sends the results through the agent, which runs the
// mm commands on one admin node of the cluster.
package gpfs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/located"
)

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid Spectrum Scale setting")

// Problems are the rules a configuration breaks, each located on the
// attribute at fault (internal/located: the provider puts the diagnostic
// there without reading the message); Warning ones are advice, not
// refusals. Every error wraps ErrInvalid.
type Problems []*located.Error

func (ps *Problems) add(at located.Path, format string, args ...any) {
	*ps = append(*ps, &located.Error{Path: at, Err: invalid(fmt.Sprintf(format, args...))})
}

// invalid is a refusal's message; it wraps ErrInvalid without repeating
// its text.
type invalid string

func (e invalid) Error() string { return string(e) }
func (e invalid) Unwrap() error { return ErrInvalid }

func (ps *Problems) warn(at located.Path, format string, args ...any) {
	*ps = append(*ps, &located.Error{Path: at, Err: fmt.Errorf(format, args...), Warning: true})
}

// Err joins the refusals (warnings aside); nil when none.
func (ps Problems) Err() error {
	var errs []error
	for _, p := range ps {
		if !p.Warning {
			errs = append(errs, p)
		}
	}
	return errors.Join(errs...)
}

// Warnings joins the advice; nil when none.
func (ps Problems) Warnings() error {
	var errs []error
	for _, p := range ps {
		if p.Warning {
			errs = append(errs, p)
		}
	}
	return errors.Join(errs...)
}

// Usage words of an %nsd stanza (IBM's stanza grammar; descOnly and
// localCache are not used by this provider).
const (
	DataOnly        = "dataOnly"
	MetadataOnly    = "metadataOnly"
	DataAndMetadata = "dataAndMetadata"
)

// Usages lists the allowed usage words, in the order docs show them.
var Usages = []string{DataOnly, MetadataOnly, DataAndMetadata}

// SystemPool is the pool metadata always lives in.
const SystemPool = "system"

// MaxServersPerNSD is GPFS's limit on an NSD's server list.
const MaxServersPerNSD = 8

// MaxReplicas bounds -m/-M/-r/-R.
const MaxReplicas = 3

// DefaultMaxBlockSize is maxblocksize when mmchconfig never set it
// (Spectrum Scale 5.0 and later).
const DefaultMaxBlockSize = 4 << 20

// ParseSize reads a GPFS size: a whole number with an optional K, M, G or
// T suffix, powers of 1024 ("8M", "16G", "512K", "262144").
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%w: empty size", ErrInvalid)
	}
	mult := int64(1)
	switch t[len(t)-1] {
	case 'K', 'k':
		mult = 1 << 10
	case 'M', 'm':
		mult = 1 << 20
	case 'G', 'g':
		mult = 1 << 30
	case 'T', 't':
		mult = 1 << 40
	}
	if mult > 1 {
		t = t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%w: %q is not a size such as 256K, 8M or 16G", ErrInvalid, s)
	}
	return n * mult, nil
}

// FormatSize writes a size the way GPFS prints it (the largest exact
// unit: 8388608 is "8M").
func FormatSize(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// validName is GPFS's rule for NSD, node class, pool and device names:
// letters, digits and underscores (and dots/dashes for node names), not
// starting with a digit for NSDs; "gpfs" prefixes are reserved for NSDs.
func validName(s string, extra string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || strings.ContainsRune(extra, r)) {
			return false
		}
	}
	return true
}
