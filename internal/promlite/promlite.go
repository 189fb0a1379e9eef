// Package promlite is the part of Prometheus' client_golang that sessions
// metrics uses — constant metrics described once, a registry gathering
// them into metric families, and promhttp's handler serving them — with
// the same API, so that client_golang is not linked: its initialiser
// registers the Go and process collectors on its default registry
// (runtime/metrics, procfs, expvar) in every process, whatever its
// command, and sessions metrics never used that registry. The families
// are its own (Family) and so is their encoding (encode.go): the
// Prometheus text format, OpenMetrics and delimited protobuf, written as
// prometheus/common/expfmt writes client_model's families, byte for byte
// (promlite_test.go holds both to it), so that neither client_model nor
// the protobuf runtime is linked either: their initialisers (descriptor
// registration) cost every process of every command ~2.4 ms at start.
package promlite

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
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

func (t ValueType) String() string {
	switch t {
	case CounterValue:
		return "COUNTER"
	case GaugeValue:
		return "GAUGE"
	}
	return fmt.Sprintf("ValueType(%d)", int(t))
}

// LabelPair is one label of a sample.
type LabelPair struct{ Name, Value string }

// Sample is one sample of a family: its labels, sorted by name, and its
// value.
type Sample struct {
	Labels []LabelPair
	Value  float64
}

// Family is a metric family: every sample of one metric name, of one type
// (CounterValue or GaugeValue).
type Family struct {
	Name, Help string
	Type       ValueType
	Samples    []*Sample
}

// Metric is one sample of a described metric.
type Metric interface {
	Desc() *Desc
	// Write fills in the sample and says its type.
	Write(*Sample) (ValueType, error)
}

type constMetric struct {
	desc  *Desc
	typ   ValueType
	value float64
	pairs []LabelPair
}

func (m *constMetric) Desc() *Desc { return m.desc }

func (m *constMetric) Write(out *Sample) (ValueType, error) {
	if m.typ != CounterValue && m.typ != GaugeValue {
		return 0, fmt.Errorf("encountered unknown type %v", m.typ)
	}
	out.Labels, out.Value = m.pairs, m.value
	return m.typ, nil
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
	pairs := make([]LabelPair, 0, len(labelValues))
	for i, v := range labelValues {
		if !utf8.ValidString(v) {
			return nil, fmt.Errorf("label value %q is not valid UTF-8", v)
		}
		pairs = append(pairs, LabelPair{Name: d.variableLabels[i], Value: v})
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].Name < pairs[j].Name })
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
	Gather() ([]*Family, error)
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
func (r *Registry) Gather() ([]*Family, error) {
	r.mu.Lock()
	collectors := append([]Collector(nil), r.collectors...)
	r.mu.Unlock()
	families := map[string]*Family{}
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
		sort.Sort(metricSorter(mf.Samples))
	}
	names := make([]string, 0, len(families))
	for name, mf := range families {
		if len(mf.Samples) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]*Family, 0, len(names))
	for _, name := range names {
		out = append(out, families[name])
	}
	return out, errors.Join(errs...)
}

func (r *Registry) add(m Metric, families map[string]*Family, seen map[string]bool) error {
	d := m.Desc()
	if d.err != nil {
		return d.err
	}
	if r.pedantic && !r.described[d] {
		return fmt.Errorf("collected metric %s was not described: %s", d.fqName, d)
	}
	sm := new(Sample)
	typ, err := m.Write(sm)
	if err != nil {
		return fmt.Errorf("error collecting metric %v: %w", d, err)
	}
	mf, ok := families[d.fqName]
	if !ok {
		mf = &Family{Name: d.fqName, Help: d.help, Type: typ}
		families[d.fqName] = mf
	} else if mf.Help != d.help || mf.Type != typ {
		return fmt.Errorf("collected metric %s has help %q and type %s but should have %q and %s",
			d.fqName, d.help, typ, mf.Help, mf.Type)
	}
	var key strings.Builder
	key.WriteString(d.fqName)
	for _, lp := range sm.Labels {
		key.WriteString("\xff" + lp.Name + "\xff" + lp.Value)
	}
	if seen[key.String()] {
		return fmt.Errorf("collected metric %q { %s} was collected before with the same name and label values", d.fqName, sm)
	}
	seen[key.String()] = true
	mf.Samples = append(mf.Samples, sm)
	return nil
}

// String is the sample as client_model's text form shows it, spaced
// one way (label:{name:"agent" value:"main"} gauge:{value:1}).
func (s *Sample) String() string {
	var b strings.Builder
	for _, lp := range s.Labels {
		fmt.Fprintf(&b, "label:{name:%q value:%q} ", lp.Name, lp.Value)
	}
	fmt.Fprintf(&b, "value:%v", s.Value)
	return b.String()
}

// metricSorter orders a family's metrics by their label values (the label
// pairs are sorted by name), as client_golang's does.
type metricSorter []*Sample

func (s metricSorter) Len() int      { return len(s) }
func (s metricSorter) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s metricSorter) Less(i, j int) bool {
	if len(s[i].Labels) != len(s[j].Labels) {
		return len(s[i].Labels) < len(s[j].Labels)
	}
	for n, lp := range s[i].Labels {
		if vi, vj := lp.Value, s[j].Labels[n].Value; vi != vj {
			return vi < vj
		}
	}
	return false
}
