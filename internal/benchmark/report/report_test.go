package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	. "github.com/hpcstorage/terraform-provider-hpcstorage/internal/benchmark"
)

// svgTexts parses the SVG as XML and returns its text elements.
func svgTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(e)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return texts
}

// SeriesCount counts the legend entries of measured series per phase.
func seriesCount(texts []string, suffix string) map[string]int {
	out := map[string]int{}
	for _, tx := range texts {
		if ph, ok := strings.CutSuffix(tx, suffix); ok {
			out[ph]++
		}
	}
	return out
}

func TestReport(t *testing.T) {
	pts := []Point{
		pt(1, Measurement{Phase: Write, BandwidthBps: 2e9, IOPS: 2e3}), pt(2, Measurement{Phase: Write, BandwidthBps: 3e9, IOPS: 3e3}),
		pt(1, Measurement{Phase: Read, BandwidthBps: 4e9, IOPS: 4e3}), pt(2, Measurement{Phase: Read, BandwidthBps: 6e9, IOPS: 6e3}),
		pt(1, Measurement{Phase: RandRead, BandwidthBps: 4e7, IOPS: 1e4, MeanLatencyNs: 2e5, P9999LatencyNs: 3e6}),
		pt(2, Measurement{Phase: RandRead, BandwidthBps: 8e7, IOPS: 2e4, MeanLatencyNs: 2e5, P9999LatencyNs: 4e6}),
	}
	exp := map[string]Figure{Write: {Value: 22.1e9}, Read: {Value: 23.7e9}, RandRead: {Value: 47.5e3, Threads: 2}}
	r := Report{Title: "r1-seq (fio)", Points: pts, Summaries: Summarize(pts, exp), Expected: exp}
	svg, err := r.SVG()
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, svg)
	got := seriesCount(texts, MeasuredSuffix)
	if len(got) != 3 || got[Write] != 1 || got[Read] != 1 || got[RandRead] != 1 {
		t.Errorf("measured series per phase %v in %q", got, texts)
	}
	if paper := seriesCount(texts, PaperSuffix); len(paper) != 3 {
		t.Errorf("paper peaks %v", paper)
	}
	for _, want := range []string{"GB/s", "IOPS", "r1-seq (fio)"} {
		if !strings.Contains(strings.Join(texts, "|"), want) {
			t.Errorf("no %q in the SVG texts %q", want, texts)
		}
	}
	tab := r.Table()
	for _, want := range []string{"| write | 3.000 GB/s | 2 | 22.100 GB/s | 0.136 |", "| randread | 20000 IOPS | 2 | 47500 IOPS | 0.421 |",
		"| randread | 2 | 0.080 GB/s | 20000 | — | 200.0 µs | 4.00 ms |",
		"| phase | threads | bandwidth | IOPS | op/s | mean latency | p99.99 latency |"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	if _, err := (Report{}).SVG(); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty report: %v", err)
	}
}

func TestReportWriteSample(t *testing.T) {
	dst := os.Getenv("BENCH_SVG_OUT")
	if dst == "" {
		t.Skip("set BENCH_SVG_OUT to write a sample chart")
	}
	pts := []Point{pt(1, Measurement{Phase: Write, BandwidthBps: 2e9}), pt(2, Measurement{Phase: Write, BandwidthBps: 3e9}),
		pt(1, Measurement{Phase: RandRead, IOPS: 1e4}), pt(2, Measurement{Phase: RandRead, IOPS: 2e4})}
	exp := map[string]Figure{Write: {Value: 22.1e9}, RandRead: {Value: 47.5e3, Threads: 2}}
	svg, err := Report{Title: "sample", Points: pts, Summaries: Summarize(pts, exp), Expected: exp}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, svg, 0o644); err != nil {
		t.Fatal(err)
	}
}

func pt(threads int, m Measurement) Point { return Point{Threads: threads, Measurement: m} }
