// Package benchmark holds the validation runs of the reference designs:
// the papers' benchmark command lines and figures (presets), the argv of
// each tool for one phase at one thread count, parsers of the tools'
// machine-readable output, the comparison with the papers' figures, and
// the report (chart and table), and the sweep that runs them (sweep.go)
// over a Clients interface: the provider gives it its SSH node runner.
package benchmark

import (
	"errors"
	"math"
	"slices"
	"strconv"
)

// ErrInvalid wraps every parameter error; each is located
// (internal/located) at the parameter's attribute.
var ErrInvalid = errors.New("invalid benchmark parameter")

// ErrParse wraps every output the parsers cannot read.
var ErrParse = errors.New("unreadable benchmark output")

// Tool is a benchmark program.
type Tool string

// The tools. Only fio is packaged by Debian; the others are built from
// source on real clients (ior and mdtest come from one source tree).
const (
	Fio      Tool = "fio"
	IOR      Tool = "ior"
	Mdtest   Tool = "mdtest"
	IOzone   Tool = "iozone"
	Elbencho Tool = "elbencho"
)

// Tools lists every tool, in the order the docs show them.
var Tools = []Tool{Fio, IOR, Mdtest, IOzone, Elbencho}

// Metric is what a phase measures.
type Metric string

const (
	// Bandwidth is in bytes per second.
	Bandwidth Metric = "bandwidth"
	// IOPS is I/O operations per second.
	IOPS Metric = "iops"
	// OpsRate is metadata operations per second.
	OpsRate Metric = "ops"
)

// Unit is how a metric is shown in reports.
func (m Metric) Unit() string {
	switch m {
	case Bandwidth:
		return "GB/s"
	case IOPS:
		return "IOPS"
	default:
		return "op/s"
	}
}

// Scale converts a value in base units to the display unit.
func (m Metric) Scale(v float64) float64 {
	if m == Bandwidth {
		return v / 1e9
	}
	return v
}

// Phase names. Data phases are what fio calls its rw modes; metadata
// phases are mdtest's file operations.
const (
	Write     = "write"
	Read      = "read"
	RandWrite = "randwrite"
	RandRead  = "randread"
	Create    = "create"
	Stat      = "stat"
	FileRead  = "file_read"
	Remove    = "remove"
)

// phaseMetric maps each phase to its metric; the order is the run order
// (a read follows the write that laid its files out).
var phaseOrder = []struct {
	name   string
	metric Metric
}{
	{Write, Bandwidth}, {Read, Bandwidth}, {RandWrite, IOPS}, {RandRead, IOPS},
	{Create, OpsRate}, {Stat, OpsRate}, {FileRead, OpsRate}, {Remove, OpsRate},
}

// Phases lists every phase name in run order.
func Phases() []string {
	out := make([]string, len(phaseOrder))
	for i, p := range phaseOrder {
		out[i] = p.name
	}
	return out
}

// MetricOf is the metric of a phase ("" for an unknown phase).
func MetricOf(phase string) Metric {
	for _, p := range phaseOrder {
		if p.name == phase {
			return p.metric
		}
	}
	return ""
}

// toolPhases says which phases a tool can run.
var toolPhases = map[Tool][]string{
	Fio:      {Write, Read, RandWrite, RandRead},
	IOR:      {Write, Read},
	IOzone:   {Write, Read, RandWrite, RandRead},
	Elbencho: {Write, Read, RandWrite, RandRead},
	Mdtest:   {Create, Stat, FileRead, Remove},
}

// PhasesOf lists the phases tool can run, in run order.
func PhasesOf(t Tool) []string { return slices.Clone(toolPhases[t]) }

// SortPhases orders phases in run order.
func SortPhases(phases []string) []string {
	out := slices.Clone(phases)
	rank := func(p string) int { return slices.Index(Phases(), p) }
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// Measurement is one phase's result at one thread count, aggregated
// over the clients.
type Measurement struct {
	Phase string
	// BandwidthBps is bytes per second (data phases).
	BandwidthBps float64
	// IOPS is I/O operations per second (data phases).
	IOPS float64
	// OpsPerSec is metadata operations per second (mdtest phases).
	OpsPerSec float64
	// MeanLatencyNs and P9999LatencyNs are per I/O, when the tool reports
	// them (fio with --lat_percentiles=1); 0 otherwise.
	MeanLatencyNs  float64
	P9999LatencyNs float64
}

// Value is the measurement in its phase's metric.
func (m Measurement) Value() float64 {
	switch MetricOf(m.Phase) {
	case Bandwidth:
		return m.BandwidthBps
	case IOPS:
		return m.IOPS
	default:
		return m.OpsPerSec
	}
}

// Combine aggregates the same phase measured on several clients at once:
// rates add up, the mean latency is weighted by each client's I/O rate,
// and the p99.99 latency is the worst client's (percentiles do not add).
func Combine(ms []Measurement) Measurement {
	var out Measurement
	var weight float64
	for i, m := range ms {
		if i == 0 {
			out.Phase = m.Phase
		}
		out.BandwidthBps += m.BandwidthBps
		out.IOPS += m.IOPS
		out.OpsPerSec += m.OpsPerSec
		out.MeanLatencyNs += m.MeanLatencyNs * m.IOPS
		weight += m.IOPS
		out.P9999LatencyNs = math.Max(out.P9999LatencyNs, m.P9999LatencyNs)
	}
	if weight > 0 {
		out.MeanLatencyNs /= weight
	} else {
		out.MeanLatencyNs = 0
	}
	return out
}

// PerDevice is the mean of one phase measured on several devices (or
// runs): rates and mean latency averaged, the p99.99 the worst.
func PerDevice(ms []Measurement) Measurement {
	m := Combine(ms)
	if n := float64(len(ms)); n > 1 {
		m.BandwidthBps /= n
		m.IOPS /= n
		m.OpsPerSec /= n
	}
	return m
}

// Point is one measurement of a sweep.
type Point struct {
	Threads int
	Measurement
}

// Summary is one phase of a run against the paper.
type Summary struct {
	Phase       string
	Metric      Metric
	Peak        float64 // best measured value, base units
	PeakThreads int
	Expected    float64 // the paper's figure, 0 when it gives none
	// Ratio is Peak/Expected, 0 without a figure.
	Ratio float64
}

// Summarize finds each phase's peak over the sweep and its ratio to the
// expected figure (by phase; missing phases have no figure). Phases come
// out in run order.
func Summarize(points []Point, expected map[string]Figure) []Summary {
	by := map[string]*Summary{}
	var order []string
	for _, p := range points {
		s, ok := by[p.Phase]
		if !ok {
			s = &Summary{Phase: p.Phase, Metric: MetricOf(p.Phase)}
			by[p.Phase] = s
			order = append(order, p.Phase)
		}
		if v := p.Value(); v > s.Peak || s.PeakThreads == 0 {
			s.Peak, s.PeakThreads = v, p.Threads
		}
	}
	var out []Summary
	for _, ph := range SortPhases(order) {
		s := by[ph]
		if f, ok := expected[ph]; ok && f.Value > 0 {
			s.Expected = f.Value
			s.Ratio = s.Peak / f.Value
		}
		out = append(out, *s)
	}
	return out
}

// Share splits threads over n clients: client i runs Share(threads, n, i)
// of them (the first ones get the remainder; clients beyond threads run
// nothing).
func Share(threads, n, i int) int {
	if n <= 0 || i < 0 || i >= n {
		return 0
	}
	s := threads / n
	if i < threads%n {
		s++
	}
	return s
}

// Doubling is from, 2·from, 4·from... up to and including to.
func Doubling(from, to int) []int {
	var out []int
	for t := from; t > 0 && t <= to; t *= 2 {
		out = append(out, t)
	}
	return out
}

// FormatSize writes bytes with the largest binary suffix that divides
// them exactly ("1m", "4k", "128g", "1000").
func FormatSize(b int64) string {
	for _, u := range []struct {
		s string
		n int64
	}{{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if b >= u.n && b%u.n == 0 {
			return strconv.FormatInt(b/u.n, 10) + u.s
		}
	}
	return strconv.FormatInt(b, 10)
}
