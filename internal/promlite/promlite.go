// Package promlite is the part of Prometheus' client_golang that sessions
// metrics uses — constant metrics described once, a registry gathering
// them into metric families, and promhttp's handler serving them — with
// the same API, so that client_golang is not linked: its initialiser
// registers the Go and process collectors on its default registry
// (runtime/metrics, procfs, expvar) in every process, whatever its
// command, and sessions metrics never used that registry. The families
// are client_model's and are encoded by prometheus/common/expfmt, as
// client_golang's are: the same bytes (promlite_test.go holds both to it).
package promlite

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// Desc describes a metric: its name, help and variable labels.
type Desc struct {
	fqName, help   string
	variableLabels []string
	err            error
}

// NewDesc returns the description of a metric. constLabels must be nil
// (sessions metrics has none). An invalid name or label makes every
// metric of the description panic in MustNewConstMetric, as in
// client_golang.
func NewDesc(fqName, help string, variableLabels []string, constLabels map[string]string) *Desc {
	d := &Desc{fqName: fqName, help: help, variableLabels: variableLabels}
	switch {
	case len(constLabels) > 0:
		d.err = errors.New("promlite: constant labels are not supported")
	case !validMetricName(fqName):
		d.err = fmt.Errorf("%q is not a valid metric name", fqName)
	}
	seen := map[string]bool{}
	for _, l := range variableLabels {
		if d.err == nil && (!validLabelName(l) || seen[l]) {
			d.err = fmt.Errorf("%q is not a valid label name for metric %q", l, fqName)
		}
		seen[l] = true
	}
	return d
}

func (d *Desc) String() string {
	return fmt.Sprintf("Desc{fqName: %q, help: %q, variableLabels: %v}", d.fqName, d.help, d.variableLabels)
}

func validMetricName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= '0' && c <= '9' && i > 0) {
			return false
		}
	}
	return true
}

func validLabelName(s string) bool {
	if s == "" || strings.HasPrefix(s, "__") {
		return false
	}
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9' && i > 0) {
			return false
		}
	}
	return true
}

// ValueType is a metric's type: a gauge or a counter.
type ValueType int

// The value types of constant metrics.
const (
	_ ValueType = iota
	CounterValue
	GaugeValue
)

// Metric is one sample of a described metric.
type Metric interface {
	Desc() *Desc
	Write(*dto.Metric) error
}

type constMetric struct {
	desc  *Desc
	typ   ValueType
	value float64
	pairs []*dto.LabelPair
}

func (m *constMetric) Desc() *Desc { return m.desc }

func (m *constMetric) Write(out *dto.Metric) error {
	out.Label = m.pairs
	switch m.typ {
	case CounterValue:
		out.Counter = &dto.Counter{Value: proto.Float64(m.value)}
	case GaugeValue:
		out.Gauge = &dto.Gauge{Value: proto.Float64(m.value)}
	default:
		return fmt.Errorf("encountered unknown type %v", m.typ)
	}
	return nil
}

// NewConstMetric returns a sample of d with one value for each of its
// variable labels, in their order.
func NewConstMetric(d *Desc, t ValueType, v float64, labelValues ...string) (Metric, error) {
	if d.err != nil {
		return nil, d.err
	}
	if len(labelValues) != len(d.variableLabels) {
		return nil, fmt.Errorf("inconsistent label cardinality: expected %d label values but got %d in %#v",
			len(d.variableLabels), len(labelValues), labelValues)
	}
	pairs := make([]*dto.LabelPair, 0, len(labelValues))
	for i, v := range labelValues {
		if !utf8.ValidString(v) {
			return nil, fmt.Errorf("label value %q is not valid UTF-8", v)
		}
		pairs = append(pairs, &dto.LabelPair{Name: proto.String(d.variableLabels[i]), Value: proto.String(v)})
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].GetName() < pairs[j].GetName() })
	return &constMetric{desc: d, typ: t, value: v, pairs: pairs}, nil
}

// MustNewConstMetric is NewConstMetric, panicking on its error.
func MustNewConstMetric(d *Desc, t ValueType, v float64, labelValues ...string) Metric {
	m, err := NewConstMetric(d, t, v, labelValues...)
	if err != nil {
		panic(err)
	}
	return m
}

// Collector describes its metrics and sends their samples.
type Collector interface {
	Describe(chan<- *Desc)
	Collect(chan<- Metric)
}

// Gatherer gathers metric families (the registry).
type Gatherer interface {
	Gather() ([]*dto.MetricFamily, error)
}

// Registry gathers its collectors' samples into metric families, sorted
// by name, each family's metrics by their label values.
type Registry struct {
	mu         sync.Mutex
	collectors []Collector
	pedantic   bool
	described  map[*Desc]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{described: map[*Desc]bool{}} }

// NewPedanticRegistry returns an empty registry that also refuses a
// sample whose description its collector did not describe.
func NewPedanticRegistry() *Registry {
	r := NewRegistry()
	r.pedantic = true
	return r
}

// MustRegister registers collectors, panicking on a description that is
// not valid or on the same metric name described twice.
func (r *Registry) MustRegister(cs ...Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		ch := make(chan *Desc)
		go func() { c.Describe(ch); close(ch) }()
		var err error
		for d := range ch {
			if err == nil && d.err != nil {
				err = d.err
			}
			r.described[d] = true
		}
		if err != nil {
			panic(err)
		}
		r.collectors = append(r.collectors, c)
	}
}

// Gather collects every registered collector and returns the metric
// families, as client_golang's registry does: families sorted by name
// (the empty left out), a family's metrics sorted by their label values.
func (r *Registry) Gather() ([]*dto.MetricFamily, error) {
	r.mu.Lock()
	collectors := append([]Collector(nil), r.collectors...)
	r.mu.Unlock()
	families := map[string]*dto.MetricFamily{}
	seen := map[string]bool{}
	var errs []error
	for _, c := range collectors {
		ch := make(chan Metric)
		go func() { c.Collect(ch); close(ch) }()
		for m := range ch {
			if err := r.add(m, families, seen); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, mf := range families {
		sort.Sort(metricSorter(mf.Metric))
	}
	names := make([]string, 0, len(families))
	for name, mf := range families {
		if len(mf.Metric) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]*dto.MetricFamily, 0, len(names))
	for _, name := range names {
		out = append(out, families[name])
	}
	return out, errors.Join(errs...)
}

func (r *Registry) add(m Metric, families map[string]*dto.MetricFamily, seen map[string]bool) error {
	d := m.Desc()
	if d.err != nil {
		return d.err
	}
	if r.pedantic && !r.described[d] {
		return fmt.Errorf("collected metric %s was not described: %s", d.fqName, d)
	}
	var dm dto.Metric
	if err := m.Write(&dm); err != nil {
		return fmt.Errorf("error collecting metric %v: %w", d, err)
	}
	mf, ok := families[d.fqName]
	typ := dto.MetricType_GAUGE
	if dm.Counter != nil {
		typ = dto.MetricType_COUNTER
	}
	if !ok {
		mf = &dto.MetricFamily{Name: proto.String(d.fqName), Help: proto.String(d.help), Type: typ.Enum()}
		families[d.fqName] = mf
	} else if mf.GetHelp() != d.help || mf.GetType() != typ {
		return fmt.Errorf("collected metric %s has help %q and type %s but should have %q and %s",
			d.fqName, d.help, typ, mf.GetHelp(), mf.GetType())
	}
	var key strings.Builder
	key.WriteString(d.fqName)
	for _, lp := range dm.Label {
		key.WriteString("\xff" + lp.GetName() + "\xff" + lp.GetValue())
	}
	if seen[key.String()] {
		return fmt.Errorf("collected metric %q { %s} was collected before with the same name and label values", d.fqName, &dm)
	}
	seen[key.String()] = true
	mf.Metric = append(mf.Metric, &dm)
	return nil
}

// metricSorter orders a family's metrics by their label values (the label
// pairs are sorted by name), as client_golang's does.
type metricSorter []*dto.Metric

func (s metricSorter) Len() int      { return len(s) }
func (s metricSorter) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s metricSorter) Less(i, j int) bool {
	if len(s[i].Label) != len(s[j].Label) {
		return len(s[i].Label) < len(s[j].Label)
	}
	for n, lp := range s[i].Label {
		if vi, vj := lp.GetValue(), s[j].Label[n].GetValue(); vi != vj {
			return vi < vj
		}
	}
	return false
}
