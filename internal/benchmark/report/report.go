// Package report draws a benchmark run: an SVG chart (gonum.org/v1/plot)
// of each phase against threads beside the paper's figure, and a Markdown
// table. It is apart from package benchmark so the parsers (which the
// lab's simulators use) do not pull the plotting library in.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/benchmark"
)

// ErrEmpty is returned for a report without measurements.
var ErrEmpty = errors.New("report: no measurements")

// Report is what one run shows: its sweep, its peaks against the paper.
type Report struct {
	Title     string
	Points    []benchmark.Point
	Summaries []benchmark.Summary
	Expected  map[string]benchmark.Figure
}

// Legend labels: tests and readers find the series by them.
const (
	MeasuredSuffix = " measured"
	PaperSuffix    = " paper peak"
)

// SVG draws one panel per metric (GB/s, IOPS, op/s): for each phase its
// measured curve against threads (log2 axis) and, where the paper gives
// a figure, the paper's peak as a dashed line (with a mark at the thread
// count the paper reached it, when it says).
func (r Report) SVG() ([]byte, error) {
	var metrics []benchmark.Metric
	phases := r.phases()
	for _, ph := range phases {
		if m := benchmark.MetricOf(ph); !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	if len(metrics) == 0 {
		return nil, ErrEmpty
	}
	threads := r.threads()
	var rows [][]*plot.Plot
	for pi, m := range metrics {
		p := plot.New()
		if pi == 0 {
			p.Title.Text = r.Title
		}
		p.X.Label.Text = "threads"
		p.Y.Label.Text = m.Unit()
		p.X.Scale = plot.LogScale{}
		var ticks plot.ConstantTicks
		for _, t := range threads {
			ticks = append(ticks, plot.Tick{Value: float64(t), Label: strconv.Itoa(t)})
		}
		p.X.Tick.Marker = ticks
		p.Legend.Top = true
		p.Legend.Left = true
		lo, hi := float64(threads[0]), float64(threads[len(threads)-1])
		if lo == hi {
			lo, hi = lo/2, hi*2
		}
		p.X.Min, p.X.Max = lo, hi
		for i, ph := range phases {
			if benchmark.MetricOf(ph) != m {
				continue
			}
			col := plotutil.Color(i)
			var xy plotter.XYs
			for _, pt := range r.Points {
				if pt.Phase == ph {
					xy = append(xy, plotter.XY{X: float64(pt.Threads), Y: m.Scale(pt.Value())})
				}
			}
			line, dots, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, fmt.Errorf("report: %s: %w", ph, err)
			}
			line.Color, dots.Color = col, col
			dots.Shape = plotutil.Shape(i)
			p.Add(line, dots)
			p.Legend.Add(ph+MeasuredSuffix, line, dots)
			if f, ok := r.Expected[ph]; ok && f.Value > 0 {
				v := m.Scale(f.Value)
				ref, err := plotter.NewLine(plotter.XYs{{X: lo, Y: v}, {X: hi, Y: v}})
				if err != nil {
					return nil, err
				}
				ref.Color = col
				ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(ref)
				p.Legend.Add(ph+PaperSuffix, ref)
				if f.Threads > 0 {
					mark, err := plotter.NewScatter(plotter.XYs{{X: float64(f.Threads), Y: v}})
					if err != nil {
						return nil, err
					}
					mark.Color = col
					mark.Shape = draw.CrossGlyph{}
					mark.Radius = vg.Points(4)
					p.Add(mark)
				}
			}
		}
		p.Add(plotter.NewGrid())
		r.scaleY(p, m)
		rows = append(rows, []*plot.Plot{p})
	}
	w, h := 18*vg.Centimeter, vg.Length(len(rows))*11*vg.Centimeter
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	// A white background: the SVG is read in dark viewers too.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadY: vg.Centimeter / 2, PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4,
		PadLeft: vg.Centimeter / 4, PadRight: vg.Centimeter / 2}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return buf.Bytes(), nil
}

// scaleY leaves room above the highest line for the legend; when the
// paper's figure and the measurements are orders of magnitude apart (a
// lab run against a vendor's cluster), the axis is logarithmic so both
// stay readable.
func (r Report) scaleY(p *plot.Plot, m benchmark.Metric) {
	lo, hi := 0.0, 0.0
	see := func(v float64) {
		if v <= 0 {
			return
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	for _, pt := range r.Points {
		if benchmark.MetricOf(pt.Phase) == m {
			see(m.Scale(pt.Value()))
		}
	}
	for ph, f := range r.Expected {
		if benchmark.MetricOf(ph) == m && slices.Contains(r.phases(), ph) {
			see(m.Scale(f.Value))
		}
	}
	if hi == 0 {
		return
	}
	if hi/lo > 50 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = lo/2, hi*20
		p.Y.Label.Text += " (log)"
		return
	}
	p.Y.Min, p.Y.Max = 0, hi*1.3
}

// Table is the report as Markdown: the peaks against the paper, then
// every point of the sweep.
func (r Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", r.Title)
	b.WriteString("| phase | peak | at threads | paper | ratio |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, s := range r.Summaries {
		paper, ratio := "—", "—"
		if s.Expected > 0 {
			paper = formatValue(s.Metric, s.Expected)
			ratio = fmt.Sprintf("%.3f", s.Ratio)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", s.Phase, formatValue(s.Metric, s.Peak), s.PeakThreads, paper, ratio)
	}
	b.WriteString("\n| phase | threads | bandwidth | IOPS | op/s | mean latency | p99.99 latency |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, ph := range r.phases() {
		for _, p := range r.Points {
			if p.Phase != ph {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s |\n", ph, p.Threads, orDash(p.BandwidthBps, formatValue(benchmark.Bandwidth, p.BandwidthBps)),
				orDash(p.IOPS, fmt.Sprintf("%.0f", p.IOPS)), orDash(p.OpsPerSec, fmt.Sprintf("%.0f", p.OpsPerSec)),
				orDash(p.MeanLatencyNs, formatNs(p.MeanLatencyNs)), orDash(p.P9999LatencyNs, formatNs(p.P9999LatencyNs)))
		}
	}
	return b.String()
}

func orDash(v float64, s string) string {
	if v == 0 {
		return "—"
	}
	return s
}

func formatValue(m benchmark.Metric, v float64) string {
	if m == benchmark.Bandwidth {
		return fmt.Sprintf("%.3f GB/s", v/1e9)
	}
	return fmt.Sprintf("%.0f %s", v, m.Unit())
}

func formatNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func (r Report) phases() []string {
	var out []string
	for _, p := range r.Points {
		if !slices.Contains(out, p.Phase) {
			out = append(out, p.Phase)
		}
	}
	return benchmark.SortPhases(out)
}

func (r Report) threads() []int {
	var out []int
	for _, p := range r.Points {
		if !slices.Contains(out, p.Threads) {
			out = append(out, p.Threads)
		}
	}
	slices.Sort(out)
	return out
}
