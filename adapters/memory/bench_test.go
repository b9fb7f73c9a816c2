package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchVocabulary is a fixed word list; memories are drawn from it with a
// skewed distribution, so a few words are common and most are rare, as in
// real notes.
func benchVocabulary() []string {
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	return words
}

func benchContent(r *rand.Rand, words []string) string {
	n := 20 + r.IntN(40)
	parts := make([]string, n)
	for i := range parts {
		// Squaring a uniform draw favours the start of the list.
		f := r.Float64()
		parts[i] = words[int(f*f*float64(len(words)))]
	}
	return strings.Join(parts, " ")
}

// filledStore returns a store holding n memories in the default namespace
// and n/10 in another.
func filledStore(b *testing.B, n int) *Store {
	b.Helper()
	s := NewStore(filepath.Join(b.TempDir(), FileName), StoreOptions{})
	b.Cleanup(func() { _ = s.Close() })
	r := rand.New(rand.NewPCG(1, 2))
	words := benchVocabulary()
	categories := []string{"", "prefs", "ops", "people", "projects"}
	var mine, other []Memory
	for i := range n + n/10 {
		m := Memory{Key: fmt.Sprintf("k%d", i), Content: benchContent(r, words), Category: categories[i%len(categories)]}
		if i < n {
			mine = append(mine, m)
		} else {
			other = append(other, m)
		}
	}
	bulkPut(b, s, DefaultNamespace, mine)
	bulkPut(b, s, "other", other)
	return s
}

// BenchmarkRecall measures memory_recall calls over 10,000 memories (and
// 1,000 of another profile), from JSON arguments to the rendered result.
// The budget is 5 ms per call.
func BenchmarkRecall(b *testing.B) {
	s := filledStore(b, 10000)
	recall := NewRecallTool(s, ToolOptions{})
	ctx := context.Background()
	words := benchVocabulary()
	cases := []struct {
		name string
		args string
	}{
		// Two words found in about 80 memories each.
		{name: "keyword rare", args: fmt.Sprintf(`{"query":%q}`, words[2500]+" "+words[2900])},
		// One word in about 20% of memories, two rarer.
		{name: "keyword mixed", args: fmt.Sprintf(`{"query":%q}`, words[3]+" "+words[700]+" "+words[2200])},
		// Two words found in about half of all memories: the budget applies.
		{name: "keyword common", args: fmt.Sprintf(`{"query":%q}`, words[0]+" "+words[1])},
		{name: "keyword common limit 100", args: fmt.Sprintf(`{"query":%q,"limit":100}`, words[0]+" "+words[1])},
		{name: "keyword in category", args: fmt.Sprintf(`{"query":%q,"category":"ops"}`, words[10]+" "+words[900])},
		{name: "recent", args: `{}`},
		{name: "recent in category since", args: `{"category":"people","since":"2024-01-01T01:00:00Z"}`},
		{name: "recent with query", args: fmt.Sprintf(`{"query":%q,"mode":"recent"}`, words[40])},
		{name: "by key", args: `{"key":"k5000"}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			args := json.RawMessage(c.args)
			cpu := cpuTime()
			for b.Loop() {
				res, err := recall.Execute(ctx, args)
				if err != nil || !res.Success {
					b.Fatalf("%+v, %v", res, err)
				}
			}
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPut measures storing a new memory into a store of 10,000.
func BenchmarkPut(b *testing.B) {
	s := filledStore(b, 10000)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	words := benchVocabulary()
	i := 0
	for b.Loop() {
		i++
		if _, _, err := s.Put(ctx, DefaultNamespace, Memory{Key: fmt.Sprintf("new%d", i), Content: benchContent(r, words)}); err != nil {
			b.Fatal(err)
		}
	}
}
