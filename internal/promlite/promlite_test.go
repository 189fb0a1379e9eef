package promlite

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

// sample is one constant metric of a random exposition.
type sample struct {
	desc    int
	counter bool
	value   float64
	labels  []string
}

type spec struct {
	name, help string
	labels     []string
	counter    bool
}

// randomExposition is a few metric families (gauges and counters, some
// named _total, with 0-3 labels) and their samples, the label values
// drawn from a small set so that the sort by them matters, with values
// that need escaping and NaN/±Inf among the values.
func randomExposition(r *rand.Rand) ([]spec, []sample) {
	vals := []string{"", "a", "b", "main", "a\"q", "back\\slash", "new\nline", "ünï", "z", "A"}
	labelNames := []string{"agent", "kind", "channel", "model", "type", "zz", "a_b"}
	var specs []spec
	for i := range 1 + r.IntN(6) {
		s := spec{name: fmt.Sprintf("m%d_%c", i, 'a'+rune(r.IntN(26))), help: fmt.Sprintf("Help \"%d\" with \\ and\nnewline.", i), counter: r.IntN(2) == 0}
		if s.counter && r.IntN(2) == 0 {
			s.name += "_total"
		}
		perm := r.Perm(len(labelNames))
		for _, j := range perm[:r.IntN(4)] {
			s.labels = append(s.labels, labelNames[j])
		}
		specs = append(specs, s)
	}
	var samples []sample
	seen := map[string]bool{}
	for range r.IntN(40) {
		d := r.IntN(len(specs))
		sm := sample{desc: d, counter: specs[d].counter}
		for range specs[d].labels {
			sm.labels = append(sm.labels, vals[r.IntN(len(vals))])
		}
		k := fmt.Sprint(d, sm.labels)
		if seen[k] {
			continue
		}
		seen[k] = true
		switch r.IntN(8) {
		case 0:
			sm.value = math.Inf(1)
		case 1:
			sm.value = math.Inf(-1)
		case 2:
			sm.value = math.NaN()
		case 3:
			sm.value = float64(r.IntN(1000))
		default:
			sm.value = r.NormFloat64() * math.Pow(10, float64(r.IntN(30)-15))
		}
		if sm.counter {
			sm.value = math.Abs(sm.value)
		}
		samples = append(samples, sm)
	}
	return specs, samples
}

type liteCollector struct {
	descs   []*Desc
	samples []sample
}

func (c liteCollector) Describe(ch chan<- *Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c liteCollector) Collect(ch chan<- Metric) {
	for _, s := range c.samples {
		t := GaugeValue
		if s.counter {
			t = CounterValue
		}
		ch <- MustNewConstMetric(c.descs[s.desc], t, s.value, s.labels...)
	}
}

type refCollector struct {
	descs   []*prometheus.Desc
	samples []sample
}

func (c refCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c refCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.samples {
		t := prometheus.GaugeValue
		if s.counter {
			t = prometheus.CounterValue
		}
		ch <- prometheus.MustNewConstMetric(c.descs[s.desc], t, s.value, s.labels...)
	}
}

// both registers one random exposition on a promlite registry and on
// client_golang's (pedantic, as internal/metrics' registry).
func both(r *rand.Rand) (*Registry, *prometheus.Registry) {
	specs, samples := randomExposition(r)
	lite := liteCollector{samples: samples}
	ref := refCollector{samples: samples}
	for _, s := range specs {
		lite.descs = append(lite.descs, NewDesc(s.name, s.help, s.labels, nil))
		ref.descs = append(ref.descs, prometheus.NewDesc(s.name, s.help, s.labels, nil))
	}
	lr := NewPedanticRegistry()
	lr.MustRegister(lite)
	rr := prometheus.NewPedanticRegistry()
	rr.MustRegister(ref)
	return lr, rr
}

func encode(t *testing.T, g interface {
	Gather() ([]*dtoFamily, error)
}, f expfmt.Format) []byte {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, f)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		c.Close()
	}
	return b.Bytes()
}

// TestGatherMatchesClientGolang: promlite's registry gathers what
// client_golang's does, byte for byte in every format expfmt writes (the
// Prometheus text format, OpenMetrics, delimited protobuf), over random
// expositions.
func TestGatherMatchesClientGolang(t *testing.T) {
	formats := []expfmt.Format{expfmt.NewFormat(expfmt.TypeTextPlain), expfmt.NewFormat(expfmt.TypeOpenMetrics), expfmt.NewFormat(expfmt.TypeProtoDelim)}
	for seed := range uint64(300) {
		lr, rr := both(rand.New(rand.NewPCG(seed, 38)))
		for _, f := range formats {
			got, want := encode(t, lr, f), encode(t, rr, f)
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %s: promlite wrote\n%s\nclient_golang\n%s", seed, f, got, want)
			}
		}
	}
}

// TestHandlerMatchesPromhttp: promlite's handler answers what promhttp's
// does with the options sessions metrics sets — status, Content-Type,
// Content-Encoding, Vary and body (gzip's bytes too) — for the Accept and
// Accept-Encoding headers scrapers send.
func TestHandlerMatchesPromhttp(t *testing.T) {
	accepts := []string{"", "text/plain", "*/*",
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1",
		"application/openmetrics-text;version=1.0.0", "application/openmetrics-text; version=0.0.1", "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}
	encodings := []string{"", "gzip", "identity", "gzip;q=0", "*", "br, gzip;q=0.5", "deflate", "gzip;q=0.5, identity;q=0.8"}
	r := rand.New(rand.NewPCG(1, 38))
	for i := range 20 {
		lr, rr := both(r)
		lh := HandlerFor(lr, HandlerOpts{EnableOpenMetrics: true, ErrorHandling: HTTPErrorOnError, MaxRequestsInFlight: 4})
		rh := promhttp.HandlerFor(rr, promhttp.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promhttp.HTTPErrorOnError, MaxRequestsInFlight: 4})
		for _, a := range accepts {
			for _, e := range encodings {
				req := httptest.NewRequest("GET", "/metrics", nil)
				if i%5 == 0 {
					req = httptest.NewRequest("GET", "/metrics?name[]=m0_a&name[]=m1_b", nil)
				}
				if a != "" {
					req.Header.Set("Accept", a)
				}
				if e != "" {
					req.Header.Set("Accept-Encoding", e)
				}
				got, want := httptest.NewRecorder(), httptest.NewRecorder()
				lh.ServeHTTP(got, req)
				rh.ServeHTTP(want, req)
				for _, h := range []string{"Content-Type", "Content-Encoding"} {
					if got.Header().Get(h) != want.Header().Get(h) {
						t.Errorf("Accept %q, Accept-Encoding %q: %s %q, promhttp %q", a, e, h, got.Header().Get(h), want.Header().Get(h))
					}
				}
				if fmt.Sprint(got.Header()["Vary"]) != fmt.Sprint(want.Header()["Vary"]) || got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
					t.Fatalf("Accept %q, Accept-Encoding %q: %d %v %q, promhttp %d %v %q", a, e,
						got.Code, got.Header(), got.Body.Bytes(), want.Code, want.Header(), want.Body.Bytes())
				}
			}
		}
	}
}

// failing gathers an error, as a registry whose collector sent a sample
// twice does.
type failing struct{}

func (failing) Gather() ([]*dtoFamily, error) { return nil, fmt.Errorf("collected twice") }

// TestHandlerErrorsAsPromhttp: a failed gathering answers 500 with the
// error, and a request beyond MaxRequestsInFlight 503, as promhttp does.
func TestHandlerErrorsAsPromhttp(t *testing.T) {
	got := httptest.NewRecorder()
	HandlerFor(failing{}, HandlerOpts{ErrorHandling: HTTPErrorOnError}).ServeHTTP(got, httptest.NewRequest("GET", "/metrics", nil))
	want := httptest.NewRecorder()
	promhttp.HandlerFor(prometheus.GathererFunc(failing{}.Gather), promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).
		ServeHTTP(want, httptest.NewRequest("GET", "/metrics", nil))
	if got.Code != http.StatusInternalServerError || got.Code != want.Code || got.Body.String() != want.Body.String() {
		t.Errorf("failed gathering: %d %q, promhttp %d %q", got.Code, got.Body, want.Code, want.Body)
	}

	block := make(chan struct{})
	entered := make(chan struct{})
	slow := gathererFunc(func() ([]*dtoFamily, error) { entered <- struct{}{}; <-block; return nil, nil })
	h := HandlerFor(slow, HandlerOpts{MaxRequestsInFlight: 1})
	done := make(chan struct{})
	go func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/metrics", nil)); close(done) }()
	<-entered
	over := httptest.NewRecorder()
	h.ServeHTTP(over, httptest.NewRequest("GET", "/metrics", nil))
	close(block)
	<-done
	if over.Code != http.StatusServiceUnavailable || over.Body.String() != "Limit of concurrent requests reached (1), try again later.\n" {
		t.Errorf("request beyond the limit: %d %q", over.Code, over.Body)
	}
}

type gathererFunc func() ([]*dtoFamily, error)

func (f gathererFunc) Gather() ([]*dtoFamily, error) { return f() }
