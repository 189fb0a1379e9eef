package promlite_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/promlite"
	"github.com/openclaw/sessions/internal/testutil/promtest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
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
	descs   []*promlite.Desc
	samples []sample
}

func (c liteCollector) Describe(ch chan<- *promlite.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c liteCollector) Collect(ch chan<- promlite.Metric) {
	for _, s := range c.samples {
		t := promlite.GaugeValue
		if s.counter {
			t = promlite.CounterValue
		}
		ch <- promlite.MustNewConstMetric(c.descs[s.desc], t, s.value, s.labels...)
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
func both(r *rand.Rand) (*promlite.Registry, *prometheus.Registry) {
	specs, samples := randomExposition(r)
	lite := liteCollector{samples: samples}
	ref := refCollector{samples: samples}
	for _, s := range specs {
		lite.descs = append(lite.descs, promlite.NewDesc(s.name, s.help, s.labels, nil))
		ref.descs = append(ref.descs, prometheus.NewDesc(s.name, s.help, s.labels, nil))
	}
	lr := promlite.NewPedanticRegistry()
	lr.MustRegister(lite)
	rr := prometheus.NewPedanticRegistry()
	rr.MustRegister(ref)
	return lr, rr
}

// encode is an exposition of families in f, written by expfmt.
func encode(t *testing.T, mfs []*dto.MetricFamily, f expfmt.Format) []byte {
	t.Helper()
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

// encodeLite is an exposition of families in f, written by promlite.
func encodeLite(t *testing.T, mfs []*promlite.Family, f promlite.Format) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := promlite.NewEncoder(&b, f)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gather[F any](t *testing.T, g interface{ Gather() ([]F, error) }) []F {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// TestGatherMatchesClientGolang: promlite's registry gathers what
// client_golang's does, and writes it as expfmt writes client_golang's
// families, byte for byte in every format promlite offers (the
// Prometheus text format, OpenMetrics 1.0.0 and 0.0.1, delimited
// protobuf), over random expositions: promlite's families through expfmt
// (the gathering) and through promlite's encoder (the encoding).
func TestGatherMatchesClientGolang(t *testing.T) {
	formats := []struct {
		lite promlite.Format
		ref  expfmt.Format
	}{
		{promlite.FmtText, expfmt.FmtText}, {promlite.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_1_0_0},
		{promlite.FmtOpenMetrics_0_0_1, expfmt.FmtOpenMetrics_0_0_1}, {promlite.FmtProtoDelim, expfmt.FmtProtoDelim},
	}
	for seed := range uint64(300) {
		lr, rr := both(rand.New(rand.NewPCG(seed, 38)))
		lite, ref := gather(t, lr), gather(t, rr)
		asDTO := make([]*dto.MetricFamily, 0, len(lite))
		for _, mf := range lite {
			asDTO = append(asDTO, promtest.DTO(mf))
		}
		for _, f := range formats {
			want := encode(t, ref, f.ref)
			if got := encode(t, asDTO, f.ref); !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %s: promlite gathered\n%s\nclient_golang\n%s", seed, f.ref, got, want)
			}
			if got := encodeLite(t, lite, f.lite); !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %s: promlite wrote\n%q\nexpfmt\n%q", seed, f.ref, got, want)
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
		lh := promlite.HandlerFor(lr, promlite.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promlite.HTTPErrorOnError, MaxRequestsInFlight: 4})
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

func (failing) Gather() ([]*promlite.Family, error) { return nil, fmt.Errorf("collected twice") }

// TestHandlerErrorsAsPromhttp: a failed gathering answers 500 with the
// error, and a request beyond MaxRequestsInFlight 503, as promhttp does.
func TestHandlerErrorsAsPromhttp(t *testing.T) {
	got := httptest.NewRecorder()
	promlite.HandlerFor(failing{}, promlite.HandlerOpts{ErrorHandling: promlite.HTTPErrorOnError}).ServeHTTP(got, httptest.NewRequest("GET", "/metrics", nil))
	want := httptest.NewRecorder()
	promhttp.HandlerFor(promtest.Gatherer(failing{}), promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).
		ServeHTTP(want, httptest.NewRequest("GET", "/metrics", nil))
	if got.Code != http.StatusInternalServerError || got.Code != want.Code || got.Body.String() != want.Body.String() {
		t.Errorf("failed gathering: %d %q, promhttp %d %q", got.Code, got.Body, want.Code, want.Body)
	}

	block := make(chan struct{})
	entered := make(chan struct{})
	slow := gathererFunc(func() ([]*promlite.Family, error) { entered <- struct{}{}; <-block; return nil, nil })
	h := promlite.HandlerFor(slow, promlite.HandlerOpts{MaxRequestsInFlight: 1})
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

type gathererFunc func() ([]*promlite.Family, error)

func (f gathererFunc) Gather() ([]*promlite.Family, error) { return f() }

// acceptHeader is a random Accept header of the clauses scrapers send,
// with parameters, wildcards, q-values and escaping schemes mixed in.
func acceptHeader(r *rand.Rand) string {
	types := []string{"text/plain", "application/openmetrics-text", "application/vnd.google.protobuf", "*/*", "text/*",
		"application/*", "application/json", "text/html", "*/plain"}
	params := []string{"version=0.0.4", "version=1.0.0", "version=0.0.1", "version=2.0.0", "charset=utf-8", "charset=latin1",
		"proto=io.prometheus.client.MetricFamily", "encoding=delimited", "encoding=text", "encoding=compact-text",
		"escaping=allow-utf-8", "escaping=underscores", "escaping=dots", "escaping=values", "escaping=bogus",
		"q=0.5", "q=0", "q=1", "q=0.25", "level=1"}
	var clauses []string
	for range r.IntN(5) {
		c := types[r.IntN(len(types))]
		for range r.IntN(5) {
			sep := ";"
			if r.IntN(3) == 0 {
				sep = "; "
			}
			c += sep + params[r.IntN(len(params))]
		}
		clauses = append(clauses, c)
	}
	sep := ","
	if r.IntN(2) == 0 {
		sep = ", "
	}
	return strings.Join(clauses, sep)
}

// negotiateRef is expfmt's negotiation over the formats promlite offers.
func negotiateRef(h http.Header, openMetrics bool) expfmt.Format {
	if openMetrics {
		return expfmt.NegotiateAccept(h, expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_0_0_1, expfmt.FmtProtoDelim, expfmt.FmtText)
	}
	return expfmt.NegotiateAccept(h, expfmt.FmtProtoDelim, expfmt.FmtText)
}

func checkNegotiate(t *testing.T, accept string) {
	t.Helper()
	h := http.Header{}
	if accept != "" {
		h.Set("Accept", accept)
	}
	for _, om := range []bool{false, true} {
		got, want := promlite.Negotiate(h, om), negotiateRef(h, om)
		if string(got) != string(want) {
			t.Fatalf("Accept %q, OpenMetrics %v: promlite %q, expfmt %q", accept, om, got, want)
		}
		// and promhttp's default offers differ only by protobuf's text forms
		def := expfmt.NegotiateAccept(h, expfmt.DefaultAcceptedFormats()...)
		if om {
			def = expfmt.NegotiateAccept(h, expfmt.DefaultOpenMetricsAcceptedFormats()...)
		}
		if tt := def.FormatType(); tt != expfmt.TypeProtoText && tt != expfmt.TypeProtoCompact && string(def) != string(got) {
			t.Fatalf("Accept %q, OpenMetrics %v: promlite %q, promhttp %q", accept, om, got, def)
		}
	}
}

// TestNegotiateMatchesExpfmt: the format answered for an Accept header is
// expfmt's choice among the formats promlite offers, escaping included,
// over random headers; and promhttp's, unless promhttp would answer in
// protobuf's text forms, which promlite does not offer.
func TestNegotiateMatchesExpfmt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 38))
	for range 5000 {
		checkNegotiate(t, acceptHeader(r))
	}
	h := http.Header{"Accept": {"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text"}}
	if got := promlite.Negotiate(h, true); got != promlite.FmtText+"; escaping=underscores" {
		t.Errorf("protobuf's text form asked for: %q, want the text format", got)
	}
}

// FuzzNegotiate: any Accept header, the same oracle.
func FuzzNegotiate(f *testing.F) {
	r := rand.New(rand.NewPCG(8, 38))
	for range 20 {
		f.Add(acceptHeader(r))
	}
	f.Fuzz(func(t *testing.T, accept string) {
		checkNegotiate(t, accept)
	})
}

// TestEncodeValues: the values whose spelling the formats special-case
// (zero of either sign, ±1, integers, exponents, NaN, ±Inf), in every
// format, as expfmt writes them.
func TestEncodeValues(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 2, 1e21, 1e-7, 123456789, 0.1, -2.5e-300, math.MaxFloat64,
		math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, counter := range []bool{false, true} {
		for _, name := range []string{"m", "m_total", "total"} {
			mf := &promlite.Family{Name: name, Help: `h "q" \ ` + "\n", Type: promlite.GaugeValue}
			if counter {
				mf.Type = promlite.CounterValue
			}
			for i, v := range vals {
				mf.Samples = append(mf.Samples, &promlite.Sample{Labels: []promlite.LabelPair{{Name: "i", Value: fmt.Sprint(i)}}, Value: v})
			}
			mf.Samples = append(mf.Samples, &promlite.Sample{Value: 3})
			for _, f := range []struct {
				lite promlite.Format
				ref  expfmt.Format
			}{{promlite.FmtText, expfmt.FmtText}, {promlite.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_1_0_0}, {promlite.FmtProtoDelim, expfmt.FmtProtoDelim}} {
				got, want := encodeLite(t, []*promlite.Family{mf}, f.lite), encode(t, []*dto.MetricFamily{promtest.DTO(mf)}, f.ref)
				if !bytes.Equal(got, want) {
					t.Errorf("%s, %s: promlite wrote\n%q\nexpfmt\n%q", name, f.ref, got, want)
				}
			}
		}
	}
}
