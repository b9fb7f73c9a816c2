package main

import (
	"strings"
	"testing"
)

// A row whose benchmark reports <unit>-min and <unit>-max shows the
// range beside its figure; one that does not shows none.
func TestBenchRowShowsRange(t *testing.T) {
	set := parseBenchString(t, "pkg: github.com/talonhq/talon/bench/mcp\n"+
		"BenchmarkMCP/http/c=64/ratio-2 1 0 ns/op 0.95 talon/mcpgo 0.91 talon/mcpgo-min 1.02 talon/mcpgo-max 1.3 cpu-talon/mcpgo\n"+
		"pkg: github.com/talonhq/talon/bench/start\n"+
		"BenchmarkStart/help-2 1 7500000 ns/op 7000000 ns/op-min 9100000 ns/op-max\n")
	tests := []struct {
		row  benchRow
		want string // substring of the detail; "" for no range
	}{
		{benchRow{Kind: benchReported, Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/ratio"), Unit: "talon/mcpgo", Min: 1}, "(range 0.91× – 1.02×)"},
		{benchRow{Kind: benchAbsolute, Num: bref("bench/start", "BenchmarkStart/help"), Max: 8e6}, "(range 7 ms – 9.1 ms)"},
		{benchRow{Kind: benchReported, Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/ratio"), Unit: "cpu-talon/mcpgo"}, ""},
	}
	for _, tt := range tests {
		o := benchEvaluate(tt.row, set)
		if tt.want == "" {
			if strings.Contains(o.Detail, "range") {
				t.Errorf("%s: detail %q shows a range", tt.row.Unit, o.Detail)
			}
			continue
		}
		if !strings.Contains(o.Detail, tt.want) {
			t.Errorf("%s: detail %q lacks %q", tt.row.Unit, o.Detail, tt.want)
		}
	}
}
