// Package promtest gives the tests Prometheus's own tools (promtool, the
// prometheus server) at the version the project pins, built once from the
// Go module by scripts/prometheus_tool.sh into the user cache dir, and
// internal/promlite's families in client_model's form (DTO, Gatherer) for
// the Go tools that read that form.
package promtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw/sessions/internal/promlite"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// Version is the pinned version of github.com/prometheus/prometheus.
const Version = "v0.316.0"

var (
	mu    sync.Mutex
	built = map[string]string{}
)

// Tool returns the path of Prometheus's tool name (promtool, prometheus),
// building it the first time; the test is skipped with one line when it
// cannot be built here (no module proxy, a toolchain too old).
func Tool(tb testing.TB, name string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[name]; ok {
		if p == "" {
			tb.Skipf("%s %s cannot be built here (see the first skip)", name, Version)
		}
		return p
	}
	script := filepath.Join(testutil.Root(tb), "scripts", "prometheus_tool.sh")
	cmd := exec.Command("bash", script, name)
	cmd.Env = append(os.Environ(), "PROMETHEUS_VERSION="+Version)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		built[name] = ""
		tb.Skipf("%s %s cannot be built here: %v %s", name, Version, err, strings.TrimSpace(stderr.String()))
	}
	p := strings.TrimSpace(string(out))
	built[name] = p
	return p
}

// DTO is mf as client_model's MetricFamily, the form Prometheus's own Go
// tools (expfmt, client_golang's testutil) take.
func DTO(mf *promlite.Family) *dto.MetricFamily {
	typ := dto.MetricType_GAUGE
	if mf.Type == promlite.CounterValue {
		typ = dto.MetricType_COUNTER
	}
	out := &dto.MetricFamily{Name: proto.String(mf.Name), Help: proto.String(mf.Help), Type: typ.Enum()}
	for _, s := range mf.Samples {
		m := &dto.Metric{}
		for _, lp := range s.Labels {
			m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(lp.Name), Value: proto.String(lp.Value)})
		}
		if typ == dto.MetricType_COUNTER {
			m.Counter = &dto.Counter{Value: proto.Float64(s.Value)}
		} else {
			m.Gauge = &dto.Gauge{Value: proto.Float64(s.Value)}
		}
		out.Metric = append(out.Metric, m)
	}
	return out
}

// Gatherer is g as a client_golang Gatherer (its families through DTO).
func Gatherer(g promlite.Gatherer) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		mfs, err := g.Gather()
		out := make([]*dto.MetricFamily, 0, len(mfs))
		for _, mf := range mfs {
			out = append(out, DTO(mf))
		}
		return out, err
	})
}
