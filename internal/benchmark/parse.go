package benchmark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Parse reads one step's output: the measurements of phases. blockSize
// converts a tool's bytes per second to IOPS (or back) when it reports
// only one of them.
func Parse(tool Tool, phases []string, blockSize int64, out []byte) ([]Measurement, error) {
	var ms []Measurement
	switch tool {
	case Mdtest:
		return ParseMdtest(out, phases)
	case IOzone:
		return ParseIOzone(out, phases, blockSize)
	}
	for _, ph := range phases {
		var m Measurement
		var err error
		switch tool {
		case Fio:
			m, err = ParseFio(out, ph)
		case IOR:
			m, err = ParseIOR(out, ph, blockSize)
		case Elbencho:
			m, err = ParseElbencho(out, ph, blockSize)
		default:
			err = fmt.Errorf("%w: no parser for tool %q", ErrParse, tool)
		}
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// jsonFrom skips what a tool prints before its JSON document (fio's
// warnings, IOR's banner).
func jsonFrom(out []byte, what string) ([]byte, error) {
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return nil, fmt.Errorf("%w: %s printed no JSON: %q", ErrParse, what, head(out))
	}
	return out[i:], nil
}

func head(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// direction is the side of fio's and IOR's results a phase reads.
func direction(phase string) string {
	if phase == Write || phase == RandWrite {
		return "write"
	}
	return "read"
}

type fioLat struct {
	Mean       float64            `json:"mean"`
	Percentile map[string]float64 `json:"percentile"`
}

type fioSide struct {
	IOBytes float64 `json:"io_bytes"`
	BWBytes float64 `json:"bw_bytes"`
	IOPS    float64 `json:"iops"`
	LatNs   fioLat  `json:"lat_ns"`
	ClatNs  fioLat  `json:"clat_ns"`
}

type fioJob struct {
	JobName string  `json:"jobname"`
	Error   int     `json:"error"`
	Read    fioSide `json:"read"`
	Write   fioSide `json:"write"`
}

// ParseFio reads `fio --output-format=json --lat_percentiles=1`: the
// phase's side (read or write) of every job (one with --group_reporting;
// with --client, the "All clients" entry of client_stats), its bandwidth,
// IOPS, mean total latency and p99.99 total latency (completion latency
// when total percentiles are off).
func ParseFio(out []byte, phase string) (Measurement, error) {
	doc, err := jsonFrom(out, "fio")
	if err != nil {
		return Measurement{}, err
	}
	var r struct {
		Jobs        []fioJob `json:"jobs"`
		ClientStats []fioJob `json:"client_stats"`
	}
	if err := json.NewDecoder(bytes.NewReader(doc)).Decode(&r); err != nil {
		return Measurement{}, fmt.Errorf("%w: fio JSON: %v", ErrParse, err)
	}
	jobs := r.Jobs
	if len(r.ClientStats) > 0 {
		jobs = r.ClientStats
		for _, j := range r.ClientStats {
			if j.JobName == "All clients" {
				jobs = []fioJob{j}
			}
		}
	}
	if len(jobs) == 0 {
		return Measurement{}, fmt.Errorf("%w: fio JSON has no jobs", ErrParse)
	}
	var ms []Measurement
	for _, j := range jobs {
		if j.Error != 0 {
			return Measurement{}, fmt.Errorf("%w: fio job %s ended with error %d", ErrParse, j.JobName, j.Error)
		}
		s := j.Read
		if direction(phase) == "write" {
			s = j.Write
		}
		p := s.LatNs.Percentile
		if len(p) == 0 {
			p = s.ClatNs.Percentile
		}
		mean := s.LatNs.Mean
		if mean == 0 {
			mean = s.ClatNs.Mean
		}
		ms = append(ms, Measurement{Phase: phase, BandwidthBps: s.BWBytes, IOPS: s.IOPS, MeanLatencyNs: mean,
			P9999LatencyNs: p["99.990000"]})
	}
	m := Combine(ms)
	if m.BandwidthBps == 0 && m.IOPS == 0 {
		return Measurement{}, fmt.Errorf("%w: fio measured no %s I/O for phase %s", ErrParse, direction(phase), phase)
	}
	return m, nil
}

// ParseIOR reads IOR's `-O summaryFormat=JSON` (the summary entry of the
// phase's operation: mean bandwidth in MiB/s and mean operations per
// second over the iterations); without JSON it falls back on the text
// report's "Max Write:"/"Max Read:" lines (IOPS then from blockSize).
func ParseIOR(out []byte, phase string, blockSize int64) (Measurement, error) {
	op := direction(phase)
	if doc, err := jsonFrom(out, "ior"); err == nil {
		var r struct {
			Summary []struct {
				Operation string  `json:"operation"`
				BwMeanMIB float64 `json:"bwMeanMIB"`
				OPsMean   float64 `json:"OPsMean"`
			} `json:"summary"`
		}
		if err := json.NewDecoder(bytes.NewReader(doc)).Decode(&r); err != nil {
			return Measurement{}, fmt.Errorf("%w: IOR JSON: %v", ErrParse, err)
		}
		for _, s := range r.Summary {
			if s.Operation == op {
				return Measurement{Phase: phase, BandwidthBps: s.BwMeanMIB * (1 << 20), IOPS: s.OPsMean}, nil
			}
		}
		return Measurement{}, fmt.Errorf("%w: IOR summary has no %s operation", ErrParse, op)
	}
	label := "Max Write:"
	if op == "read" {
		label = "Max Read:"
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), label)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != "MiB/sec" {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return Measurement{}, fmt.Errorf("%w: IOR %q: %v", ErrParse, sc.Text(), err)
		}
		m := Measurement{Phase: phase, BandwidthBps: v * (1 << 20)}
		if blockSize > 0 {
			m.IOPS = m.BandwidthBps / float64(blockSize)
		}
		return m, nil
	}
	return Measurement{}, fmt.Errorf("%w: IOR printed neither a JSON summary nor %q: %q", ErrParse, label, head(out))
}

// mdtestRows maps mdtest's SUMMARY rows to phases.
var mdtestRows = map[string]string{"File creation": Create, "File stat": Stat, "File read": FileRead, "File removal": Remove}

// ParseMdtest reads mdtest's SUMMARY rate table (mdtest has no JSON):
// rows "File creation", "File stat", "File read", "File removal" with
// Max, Min, Mean and Std Dev in op/s; the phase's value is the Mean. The
// SUMMARY time table that newer versions print after it is ignored.
func ParseMdtest(out []byte, phases []string) ([]Measurement, error) {
	rates := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	inTime := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "SUMMARY") {
			inTime = strings.Contains(line, "time")
			continue
		}
		if inTime {
			continue
		}
		for label, ph := range mdtestRows {
			rest, ok := strings.CutPrefix(line, label)
			if !ok {
				continue
			}
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
			if len(f) < 4 {
				continue
			}
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return nil, fmt.Errorf("%w: mdtest row %q: %v", ErrParse, line, err)
			}
			if _, dup := rates[ph]; !dup {
				rates[ph] = v
			}
		}
	}
	var ms []Measurement
	for _, ph := range phases {
		v, ok := rates[ph]
		if !ok {
			return nil, fmt.Errorf("%w: mdtest SUMMARY has no row for %s: %q", ErrParse, ph, head(out))
		}
		ms = append(ms, Measurement{Phase: ph, OpsPerSec: v})
	}
	return ms, nil
}

// iozoneTests maps IOzone's "Children see throughput for N <test>" to
// phases.
var iozoneTests = map[string]string{"initial writers": Write, "readers": Read, "random writers": RandWrite,
	"random readers": RandRead}

// ParseIOzone reads IOzone's throughput report: "Children see throughput
// for N <test> = V <unit>/sec" (the sum over the threads; kB/sec, KB/sec
// or, with -O, ops/sec). blockSize (the -r record) converts between bytes
// and operations.
func ParseIOzone(out []byte, phases []string, blockSize int64) ([]Measurement, error) {
	got := map[string]Measurement{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "Children see throughput for")
		if !ok {
			continue
		}
		name, val, ok := strings.Cut(rest, "=")
		if !ok {
			continue
		}
		nf := strings.Fields(name)
		if len(nf) < 2 {
			continue
		}
		ph, known := iozoneTests[strings.Join(nf[1:], " ")]
		vf := strings.Fields(val)
		if !known || len(vf) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(vf[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%w: IOzone %q: %v", ErrParse, line, err)
		}
		m := Measurement{Phase: ph}
		switch strings.ToLower(vf[1]) {
		case "kb/sec":
			m.BandwidthBps = v * 1024
			if blockSize > 0 {
				m.IOPS = m.BandwidthBps / float64(blockSize)
			}
		case "ops/sec":
			m.IOPS = v
			m.BandwidthBps = v * float64(blockSize)
		default:
			return nil, fmt.Errorf("%w: IOzone unit %q in %q", ErrParse, vf[1], line)
		}
		got[ph] = m
	}
	var ms []Measurement
	for _, ph := range phases {
		m, ok := got[ph]
		if !ok {
			return nil, fmt.Errorf("%w: IOzone printed no throughput for %s: %q", ErrParse, ph, head(out))
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// ParseElbencho reads elbencho's result table: an operation row (WRITE,
// READ) followed by "IOPS : first last" and "Throughput MiB/s : first
// last"; the LAST DONE column is the end result (all threads done).
func ParseElbencho(out []byte, phase string, blockSize int64) (Measurement, error) {
	op := strings.ToUpper(direction(phase))
	sc := bufio.NewScanner(bytes.NewReader(out))
	cur := ""
	m := Measurement{Phase: phase}
	found := false
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		key, val, hasColon := strings.Cut(line, ":")
		if raw[0] != ' ' && raw[0] != '\t' {
			f := strings.Fields(key)
			if len(f) > 0 && strings.ToUpper(f[0]) == f[0] && !strings.HasPrefix(f[0], "=") {
				cur = f[0]
				key = strings.Join(f[1:], " ")
			}
		}
		if cur != op || !hasColon {
			continue
		}
		vf := strings.Fields(val)
		if len(vf) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(vf[len(vf)-1], 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(key) {
		case "IOPS":
			m.IOPS, found = v, true
		case "Throughput MiB/s":
			m.BandwidthBps, found = v*(1<<20), true
		}
	}
	if !found {
		return Measurement{}, fmt.Errorf("%w: elbencho printed no %s result: %q", ErrParse, op, head(out))
	}
	if m.IOPS == 0 && blockSize > 0 {
		m.IOPS = m.BandwidthBps / float64(blockSize)
	}
	return m, nil
}
