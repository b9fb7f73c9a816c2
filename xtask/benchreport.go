package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Verdicts of a row.
const (
	verdictPass        = "pass"
	verdictFail        = "FAIL"
	verdictInfo        = "—"
	verdictNotMeasured = "not measured"
)

// benchOutcome is one row evaluated against the input.
type benchOutcome struct {
	Row     benchRow
	Value   float64
	Verdict string
	// Detail shows the figures behind Value, or why there is none.
	Detail string
}

// keys lists the benchmarks a row reads.
func (r benchRow) keys() []benchKey {
	switch r.Kind {
	case benchRatio, benchOverhead:
		return []benchKey{r.Num, r.Base}
	case benchOverheadRatio:
		return []benchKey{r.Num, r.Base, r.Num2, r.Base2}
	default:
		return []benchKey{r.Num}
	}
}

func (r benchRow) unit() string {
	if r.Unit == "" {
		return "ns/op"
	}
	return r.Unit
}

// benchEvaluate computes a row's figure and verdict from the set.
func benchEvaluate(row benchRow, set *benchSet) benchOutcome {
	out := benchOutcome{Row: row, Verdict: verdictNotMeasured}
	unit := row.unit()
	if row.CPU && set.allReport(row.keys(), "cpu-ns/op") {
		unit = "cpu-ns/op"
	}
	vals := make([]float64, 0, 4)
	var missing, notes []string
	for _, k := range row.keys() {
		r := set.Result(k)
		v, ok := 0.0, false
		if r != nil {
			v, ok = r.Value(unit)
		}
		switch st, found := set.status(k); {
		case ok:
			vals = append(vals, v)
		case found && st.Reason != "":
			notes = append(notes, st.Key.String()+" "+st.Status+": "+st.Reason)
		case found:
			notes = append(notes, st.Key.String()+" "+st.Status)
		case r != nil:
			notes = append(notes, k.String()+" reports no "+unit)
		case set.failedPkgs[k.Pkg] != "":
			notes = append(notes, k.Pkg+" "+set.failedPkgs[k.Pkg])
		default:
			missing = append(missing, k.String())
		}
	}
	notes = slices.Compact(notes) // sub-benchmarks of one skipped benchmark
	if len(missing) > 0 {
		notes = append(notes, "missing: "+strings.Join(missing, ", "))
	}
	if len(notes) > 0 {
		out.Detail = strings.Join(notes, "; ")
		return out
	}
	show := func(i int) string { return row.keys()[i].String() + " " + benchFormatUnit(vals[i], unit) }
	switch row.Kind {
	case benchRatio:
		if vals[1] <= 0 {
			out.Detail = "baseline is zero"
			return out
		}
		out.Value = vals[0] / vals[1]
		out.Detail = show(0) + " ÷ " + show(1)
	case benchOverhead:
		out.Value = vals[0] - vals[1]
		out.Detail = show(0) + " − " + show(1)
	case benchOverheadRatio:
		mine, theirs := vals[0]-vals[1], vals[2]-vals[3]
		if theirs <= 0 {
			out.Detail = "the compared host has no overhead above its raw call (" + show(2) + " − " + show(3) + ")"
			return out
		}
		out.Value = mine / theirs
		out.Detail = fmt.Sprintf("(%s − %s = %s) ÷ (%s − %s = %s)",
			show(0), show(1), benchFormatUnit(mine, unit), show(2), show(3), benchFormatUnit(theirs, unit))
		if mine < 0 {
			out.Detail = "the call measured faster than its raw baseline, which is noise: rerun with BENCHCOUNT=5; " + out.Detail
		}
	default:
		out.Value = vals[0]
		out.Detail = show(0)
		// A benchmark that repeats its measurement reports the spread as
		// <unit>-min and <unit>-max.
		if r := set.Result(row.Num); r != nil {
			lo, okLo := r.Value(unit + "-min")
			hi, okHi := r.Value(unit + "-max")
			if okLo && okHi {
				out.Detail += " (range " + row.format(lo) + " – " + row.format(hi) + ")"
			}
		}
	}
	switch {
	case row.Max == 0 && row.Min == 0:
		out.Verdict = verdictInfo
	case (row.Max != 0 && out.Value > row.Max) || (row.Min != 0 && out.Value < row.Min):
		out.Verdict = verdictFail
	default:
		out.Verdict = verdictPass
	}
	return out
}

// format shows a figure of the row: ratios with ×, times in a readable
// unit, other metrics with their unit.
func (r benchRow) format(v float64) string {
	switch r.Kind {
	case benchRatio, benchReported, benchOverheadRatio:
		if math.Abs(v) >= 100 {
			return benchFormatNumber(math.Round(v)) + "×"
		}
		return strconv.FormatFloat(v, 'f', 2, 64) + "×"
	case benchOverhead, benchAbsolute:
	}
	return benchFormatUnit(v, r.unit())
}

// benchIsTime says whether unit measures nanoseconds: ns/op itself and
// figures such as cpu-ns/op or talon-ns/call.
func benchIsTime(unit string) bool {
	return strings.HasSuffix(unit, "ns/op") || strings.HasSuffix(unit, "ns/call")
}

// target shows the row's bound, or "—".
func (r benchRow) target() string {
	switch {
	case r.Max != 0:
		return "≤ " + r.format(r.Max)
	case r.Min != 0:
		return "≥ " + r.format(r.Min)
	}
	return "—"
}

// benchFormatUnit shows v measured in unit: times as a duration with three
// significant digits ("CPU" after CPU time), anything else as a number and
// its unit.
func benchFormatUnit(v float64, unit string) string {
	if !benchIsTime(unit) {
		return benchFormatNumber(v) + " " + unit
	}
	if unit != "ns/op" && unit != "ns/call" {
		return benchFormatUnit(v, "ns/op") + " " + strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(unit, "ns/op"), "ns/call"), "-")
	}
	neg := ""
	if v < 0 {
		neg, v = "-", -v
	}
	scales := []struct {
		div  float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, s := range scales {
		if v >= s.div || s.div == 1 {
			return neg + benchSig3(v/s.div) + " " + s.name
		}
	}
	return ""
}

// benchSig3 shows v (not negative) with three significant digits, no
// exponent and no trailing zeros.
func benchSig3(v float64) string {
	var s string
	switch {
	case v >= 100 || v == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	default:
		s = strconv.FormatFloat(v, 'f', min(9, 2+int(math.Ceil(-math.Log10(v)))), 64)
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// benchFormatNumber shows large values as grouped integers (12,345) and small
// ones with three significant digits.
func benchFormatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	neg := ""
	if v < 0 {
		neg, v = "-", -v
	}
	if v < 1000 && v != math.Trunc(v) {
		return neg + benchSig3(v)
	}
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	var b strings.Builder
	b.WriteString(neg)
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// benchEnv is what the report says about where and when it was made.
type benchEnv struct {
	Now       time.Time
	GoVersion string
	NumCPU    int
	Inputs    []string
}

// benchWriteReport renders the Markdown report of set against benchRows and
// returns the outcomes.
func benchWriteReport(w io.Writer, set *benchSet, env benchEnv) ([]benchOutcome, error) {
	outcomes := make([]benchOutcome, len(benchRows))
	counts := map[string]int{}
	for i, row := range benchRows {
		outcomes[i] = benchEvaluate(row, set)
		counts[outcomes[i].Verdict]++
	}
	var b strings.Builder
	b.WriteString("# Benchmark report\n\n")
	b.WriteString("Generated by `make bench` (`go run ./xtask bench report`); regenerate it rather than editing it.\n")
	b.WriteString("Each figure is a ratio against a baseline measured in the same run, except for the absolute budgets.\n\n")
	fmt.Fprintf(&b, "- date: %s\n", env.Now.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- machine: %s/%s, %d CPUs, GOMAXPROCS %d\n", benchOrUnknown(set.GOOS), benchOrUnknown(set.GOARCH), env.NumCPU, set.Procs)
	fmt.Fprintf(&b, "- cpu: %s\n", benchOrUnknown(set.CPU))
	fmt.Fprintf(&b, "- go: %s\n", env.GoVersion)
	fmt.Fprintf(&b, "- inputs: %s\n\n", strings.Join(env.Inputs, ", "))
	fmt.Fprintf(&b, "%d pass, %d fail, %d informational, %d not measured.\n\n",
		counts[verdictPass], counts[verdictFail], counts[verdictInfo], counts[verdictNotMeasured])

	b.WriteString("## Budgets and ratios\n\n")
	b.WriteString("| what | figure | target | result | measured | target from |\n|---|---|---|---|---|---|\n")
	for _, o := range outcomes {
		figure := "—"
		if o.Verdict != verdictNotMeasured {
			figure = o.Row.format(o.Value)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCell(o.Row.Title), figure, o.Row.target(),
			o.Verdict, mdCell(o.Detail), mdCell(benchOrDash(o.Row.Source)))
	}

	b.WriteString("\n## Every benchmark\n\n")
	b.WriteString("Medians when a benchmark ran more than once.\n\n")
	b.WriteString("| package | benchmark | time/op | B/op | allocs/op | other metrics |\n|---|---|---|---|---|---|\n")
	for _, r := range set.Results() {
		var other []string
		for _, u := range r.Units {
			switch u {
			case "ns/op", "B/op", "allocs/op":
				continue
			}
			v, _ := r.Value(u)
			other = append(other, benchFormatUnit(v, u))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCell(r.Key.Pkg), mdCell(r.Key.Name),
			benchMetric(r, "ns/op"), benchMetric(r, "B/op"), benchMetric(r, "allocs/op"), mdCell(benchOrDash(strings.Join(other, ", "))))
	}
	if len(set.statuses) > 0 || len(set.failedPkgs) > 0 {
		b.WriteString("\n## Benchmarks without figures\n\n")
		pkgs := slices.Sorted(maps.Keys(set.failedPkgs))
		for _, p := range pkgs {
			b.WriteString("- package " + p + ": " + set.failedPkgs[p] + "\n")
		}
		for _, k := range benchStatusKeys(set) {
			st := set.statuses[k]
			line := "- " + k.String() + ": " + st.Status
			if st.Reason != "" {
				line += " (" + st.Reason + ")"
			}
			b.WriteString(line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return outcomes, err
}

func benchMetric(r *benchResult, unit string) string {
	v, ok := r.Value(unit)
	if !ok {
		return "—"
	}
	if unit == "ns/op" {
		return benchFormatUnit(v, unit)
	}
	return benchFormatNumber(v)
}

func benchOrUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func benchOrDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// allReport says whether every benchmark of keys reports a non-zero unit.
func (s *benchSet) allReport(keys []benchKey, unit string) bool {
	for _, k := range keys {
		r := s.Result(k)
		if r == nil {
			return false
		}
		if v, ok := r.Value(unit); !ok || v == 0 {
			return false
		}
	}
	return true
}

// status is why k has no figures: its own skip or failure, or that of the
// benchmark it runs under.
func (s *benchSet) status(k benchKey) (benchStatus, bool) {
	for name := k.Name; ; {
		if st, ok := s.statuses[benchKey{k.Pkg, name}]; ok {
			return st, true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return benchStatus{}, false
		}
		name = name[:i]
	}
}

// benchStatusKeys lists the benchmarks without figures by package and name.
func benchStatusKeys(set *benchSet) []benchKey {
	keys := make([]benchKey, 0, len(set.statuses))
	for k := range set.statuses {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b benchKey) int {
		return cmp.Or(strings.Compare(a.Pkg, b.Pkg), strings.Compare(a.Name, b.Name))
	})
	return keys
}

// mdCell makes s safe inside a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
