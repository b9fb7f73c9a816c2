package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// benchModulePath is the root module's import path; package paths in the report
// are shown relative to it ("plugins/wasm", "bench/extism", "." for the
// root).
const benchModulePath = "github.com/talonhq/talon"

// benchKey names one benchmark: its package relative to the module and its
// full name without the GOMAXPROCS suffix, e.g. {"commandtool",
// "BenchmarkCall/bare"}.
type benchKey struct {
	Pkg  string
	Name string
}

func (k benchKey) String() string { return k.Pkg + " " + k.Name }

// benchResult gathers every sample of one benchmark: value lists per unit
// ("ns/op", "B/op", "receipts/s", ...), in input order.
type benchResult struct {
	Key     benchKey
	Procs   int
	Samples map[string][]float64
	// Units keeps the order the units first appeared in.
	Units []string
}

// Value is the median of the samples in unit, or false without any.
func (r *benchResult) Value(unit string) (float64, bool) {
	vs := r.Samples[unit]
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

// benchStatus is a benchmark that reported no figures: skipped or failed,
// with the first line it logged.
type benchStatus struct {
	Key    benchKey
	Status string // "skipped" or "failed"
	Reason string
}

// benchSet is everything read from one or more `go test -bench` outputs.
type benchSet struct {
	GOOS, GOARCH, CPU string
	Procs             int
	results           map[benchKey]*benchResult
	order             []benchKey
	statuses          map[benchKey]benchStatus
	// failedPkgs maps a package whose test binary failed to build, or
	// whose run failed, to "failed to build" or "failed".
	failedPkgs map[string]string
}

func newBenchSet() *benchSet {
	return &benchSet{results: map[benchKey]*benchResult{}, statuses: map[benchKey]benchStatus{}, failedPkgs: map[string]string{}}
}

// Result is the benchmark named by k, or nil if the input did not measure it.
func (s *benchSet) Result(k benchKey) *benchResult { return s.results[k] }

// Results lists every measured benchmark in input order.
func (s *benchSet) Results() []*benchResult {
	out := make([]*benchResult, len(s.order))
	for i, k := range s.order {
		out[i] = s.results[k]
	}
	return out
}

// benchRelPkg shows an import path relative to the module.
func benchRelPkg(pkg string) string {
	switch {
	case pkg == benchModulePath:
		return "."
	case strings.HasPrefix(pkg, benchModulePath+"/"):
		return pkg[len(benchModulePath)+1:]
	}
	return pkg
}

// benchSplitProcs removes the "-N" GOMAXPROCS suffix the testing package adds to
// a benchmark name when N > 1. A name whose last element itself ends in
// "-digits" is indistinguishable from a suffixed one; benchmarks here avoid
// such names.
func benchSplitProcs(name string) (string, int) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name, 1
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n <= 0 || strings.ContainsAny(name[i+1:], "+") {
		return name, 1
	}
	return name[:i], n
}

// benchFigures parses "iterations value unit value unit ..." (the part of a
// result line after the name), or reports false.
func benchFigures(fields []string) (map[string]float64, []string, bool) {
	if len(fields) < 3 || len(fields)%2 != 1 {
		return nil, nil, false
	}
	if n, err := strconv.ParseInt(fields[0], 10, 64); err != nil || n <= 0 {
		return nil, nil, false
	}
	vals := map[string]float64{}
	var units []string
	for i := 1; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return nil, nil, false
		}
		unit := fields[i+1]
		if _, dup := vals[unit]; dup {
			return nil, nil, false
		}
		vals[unit] = v
		units = append(units, unit)
	}
	return vals, units, true
}

// Parse reads one `go test -bench` output (any number of packages) into the
// set. Lines that are not benchmark results are ignored, so the whole
// output, PASS/ok lines and logs included, can be fed as is. A result the
// testing package split over two lines (the benchmark wrote to stdout while
// it ran) is joined back.
func (s *benchSet) Parse(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	pkg := ""
	pending := ""         // a benchmark name printed without its figures yet
	var last *benchStatus // the skip or failure awaiting its reason
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if last != nil {
			if strings.HasPrefix(line, "    ") && last.Reason == "" {
				last.Reason = strings.TrimSpace(line)
				if i := strings.Index(last.Reason, ": "); i > 0 && strings.Contains(last.Reason[:i], ".go:") {
					last.Reason = last.Reason[i+2:]
				}
				s.statuses[last.Key] = *last
			}
			last = nil
		}
		switch {
		case strings.HasPrefix(line, "goos: "):
			s.GOOS = benchFirst(s.GOOS, fields[1:])
			continue
		case strings.HasPrefix(line, "goarch: "):
			s.GOARCH = benchFirst(s.GOARCH, fields[1:])
			continue
		case strings.HasPrefix(line, "cpu: "):
			if s.CPU == "" {
				s.CPU = strings.TrimSpace(strings.TrimPrefix(line, "cpu: "))
			}
			continue
		case fields[0] == "FAIL" && len(fields) >= 2:
			// "FAIL\tpkg [build failed]", "FAIL\tpkg [setup failed]" or
			// "FAIL\tpkg\t1.2s"; a bare "FAIL" closes a failed run.
			what := "failed"
			if len(fields) >= 3 && strings.HasSuffix(fields[len(fields)-1], "failed]") {
				what = "failed to build"
			}
			s.failedPkgs[benchRelPkg(fields[1])] = what
			continue
		case strings.HasPrefix(line, "pkg: ") && len(fields) == 2:
			pkg = benchRelPkg(fields[1])
			pending = ""
			continue
		case (fields[0] == "---" || strings.HasPrefix(strings.TrimSpace(line), "--- ")) && len(fields) >= 3 &&
			strings.HasPrefix(fields[2], "Benchmark"):
			status := map[string]string{"SKIP:": "skipped", "FAIL:": "failed"}[fields[1]]
			if status == "" {
				continue
			}
			name, _ := benchSplitProcs(fields[2])
			st := benchStatus{Key: benchKey{pkg, name}, Status: status}
			s.statuses[st.Key] = st
			last = &st
			continue
		}
		name, rest := pending, fields
		if strings.HasPrefix(fields[0], "Benchmark") {
			name, rest = fields[0], fields[1:]
			pending = name
		}
		if name == "" {
			continue
		}
		vals, units, ok := benchFigures(rest)
		if !ok {
			continue
		}
		pending = ""
		base, procs := benchSplitProcs(name)
		s.add(benchKey{pkg, base}, procs, vals, units)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read benchmark output: %w", err)
	}
	return nil
}

func benchFirst(have string, fields []string) string {
	if have != "" || len(fields) == 0 {
		return have
	}
	return fields[0]
}

func (s *benchSet) add(k benchKey, procs int, vals map[string]float64, units []string) {
	r := s.results[k]
	if r == nil {
		r = &benchResult{Key: k, Procs: procs, Samples: map[string][]float64{}}
		s.results[k] = r
		s.order = append(s.order, k)
	}
	for _, u := range units {
		if _, seen := r.Samples[u]; !seen {
			r.Units = append(r.Units, u)
		}
		r.Samples[u] = append(r.Samples[u], vals[u])
	}
	if procs > s.Procs {
		s.Procs = procs
	}
	delete(s.statuses, k)
}
