package telemetry

import (
	"bufio"
	"context"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// ContentType is what /metrics answers with: the Prometheus text
// exposition format, version 0.0.4.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the metrics in the Prometheus text format (GET and
// HEAD). It does no access control: mount it behind the rules of the
// endpoint it sits next to.
func (t *Telemetry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		var rm metricdata.ResourceMetrics
		if err := t.reader.Collect(r.Context(), &rm); err != nil {
			http.Error(w, "collect metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		if r.Method == http.MethodHead {
			return
		}
		bw := bufio.NewWriter(w)
		WritePrometheus(bw, &rm)
		_ = bw.Flush()
	})
}

// Collect gathers the current metrics, as /metrics reports them.
func (t *Telemetry) Collect(ctx context.Context) (metricdata.ResourceMetrics, error) {
	var rm metricdata.ResourceMetrics
	err := t.reader.Collect(ctx, &rm)
	return rm, err
}

// WritePrometheus renders metrics in the Prometheus text format: a
// metric's name is its OpenTelemetry name with every character outside
// [a-zA-Z0-9_:] made '_', then _seconds for unit s, and _total for a
// counter.
func WritePrometheus(w *bufio.Writer, rm *metricdata.ResourceMetrics) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			writeMetric(w, m)
		}
	}
}

func promName(m metricdata.Metrics, counter bool) string {
	var b strings.Builder
	for i, c := range m.Name {
		ok := c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9' && i > 0)
		if ok {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if m.Unit == "s" && !strings.HasSuffix(name, "_seconds") {
		name += "_seconds"
	}
	if counter && !strings.HasSuffix(name, "_total") {
		name += "_total"
	}
	return name
}

func header(w *bufio.Writer, name, typ, help string) {
	if help != "" {
		w.WriteString("# HELP " + name + " " + escapeHelp(help) + "\n")
	}
	w.WriteString("# TYPE " + name + " " + typ + "\n")
}

func writeMetric(w *bufio.Writer, m metricdata.Metrics) {
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		name := promName(m, d.IsMonotonic)
		header(w, name, typeOf(d.IsMonotonic), m.Description)
		for _, p := range d.DataPoints {
			sample(w, name, p.Attributes, "", float64(p.Value))
		}
	case metricdata.Sum[float64]:
		name := promName(m, d.IsMonotonic)
		header(w, name, typeOf(d.IsMonotonic), m.Description)
		for _, p := range d.DataPoints {
			sample(w, name, p.Attributes, "", p.Value)
		}
	case metricdata.Gauge[int64]:
		name := promName(m, false)
		header(w, name, "gauge", m.Description)
		for _, p := range d.DataPoints {
			sample(w, name, p.Attributes, "", float64(p.Value))
		}
	case metricdata.Gauge[float64]:
		name := promName(m, false)
		header(w, name, "gauge", m.Description)
		for _, p := range d.DataPoints {
			sample(w, name, p.Attributes, "", p.Value)
		}
	case metricdata.Histogram[float64]:
		name := promName(m, false)
		header(w, name, "histogram", m.Description)
		for _, p := range d.DataPoints {
			var cum uint64
			for i, b := range p.Bounds {
				cum += p.BucketCounts[i]
				sample(w, name+"_bucket", p.Attributes, formatFloat(b), float64(cum))
			}
			sample(w, name+"_bucket", p.Attributes, "+Inf", float64(p.Count))
			sample(w, name+"_sum", p.Attributes, "", p.Sum)
			sample(w, name+"_count", p.Attributes, "", float64(p.Count))
		}
	}
}

func typeOf(monotonic bool) string {
	if monotonic {
		return "counter"
	}
	return "gauge"
}

// sample writes one line; le, when not empty, is the bucket label.
func sample(w *bufio.Writer, name string, attrs attribute.Set, le string, v float64) {
	w.WriteString(name)
	kvs := attrs.ToSlice()
	slices.SortFunc(kvs, func(a, b attribute.KeyValue) int { return strings.Compare(string(a.Key), string(b.Key)) })
	if len(kvs) > 0 || le != "" {
		w.WriteByte('{')
		for i, kv := range kvs {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(labelName(string(kv.Key)))
			w.WriteString(`="`)
			w.WriteString(escapeLabel(kv.Value.Emit()))
			w.WriteByte('"')
		}
		if le != "" {
			if len(kvs) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(`le="` + le + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

func labelName(k string) string {
	var b strings.Builder
	for i, c := range k {
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9' && i > 0) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
