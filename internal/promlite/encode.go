package promlite

// The formats of an exposition and their negotiation, as
// prometheus/common/expfmt has them (encode.go, expfmt.go, text_create.go,
// openmetrics_create.go; Apache 2.0, The Prometheus Authors), for families
// of gauges and counters whose names and label names are valid legacy
// names (NewDesc refuses others), which no escaping scheme changes. The
// protobuf format is client_model's MetricFamily written out by hand: it
// is the one message sessions writes, and the protobuf runtime would be
// linked, and its descriptors registered, for it alone.
//
// Not offered: protobuf's text and compact text forms (debug formats whose
// spacing the protobuf runtime varies on purpose from build to build). A
// scraper asking for only those gets the Prometheus text format, which
// every scraper reads.

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/munnerz/goautoneg"
)

// Format is an exposition's Content-Type.
type Format string

// The formats an exposition is written in (expfmt's Fmt… constants).
const (
	FmtText              Format = `text/plain; version=0.0.4; charset=utf-8`
	FmtProtoDelim        Format = `application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited`
	FmtOpenMetrics_1_0_0 Format = `application/openmetrics-text; version=1.0.0; charset=utf-8` //nolint:revive // expfmt's name
	FmtOpenMetrics_0_0_1 Format = `application/openmetrics-text; version=0.0.1; charset=utf-8` //nolint:revive // expfmt's name
)

// escaping is the escaping parameter of the formats a scraper gets when
// it asks for no other (expfmt's model.NameEscapingScheme).
const escaping = "underscores"

// accepted are the formats offered, in order of preference, with and
// without OpenMetrics.
var (
	acceptedText        = []Format{FmtProtoDelim, FmtText}
	acceptedOpenMetrics = []Format{FmtOpenMetrics_1_0_0, FmtOpenMetrics_0_0_1, FmtProtoDelim, FmtText}
)

// Negotiate is the format to answer a request with: the first of the
// offered formats (OpenMetrics among them when openMetrics) that the
// first clause of its Accept header able to take one matches, else the
// text format; with the escaping the clause asked for, else
// "underscores" (expfmt.NegotiateAccept).
func Negotiate(h http.Header, openMetrics bool) Format {
	accepted := acceptedText
	if openMetrics {
		accepted = acceptedOpenMetrics
	}
	for _, ac := range goautoneg.ParseAccept(h.Get("Accept")) {
		for _, f := range accepted {
			if matchFormat(ac, f) {
				return f + escapingFor(ac)
			}
		}
	}
	return FmtText + "; escaping=" + escaping
}

// escapingFor is the escaping term of the format that a clause matched:
// the clause's own when it names one expfmt knows.
func escapingFor(ac goautoneg.Accept) Format {
	switch p := ac.Params["escaping"]; p {
	case "allow-utf-8", "underscores", "dots", "values":
		return Format("; escaping=" + p)
	}
	return "; escaping=" + escaping
}

// matchFormat says whether an Accept clause takes f: its type and subtype
// (or a wildcard), and each of f's parameters but the charset, a missing
// version being OpenMetrics' 0.0.1 or the text format's 0.0.4.
func matchFormat(ac goautoneg.Accept, f Format) bool {
	target := goautoneg.ParseAccept(string(f))[0]
	if ac.Type != "*" && ac.Type != target.Type || ac.SubType != "*" && ac.SubType != target.SubType {
		return false
	}
	version := ac.Params["version"]
	if version == "" && ac.Type == "application" && ac.SubType == "openmetrics-text" {
		version = "0.0.1"
	}
	if version == "" && ac.Type == "text" && ac.SubType == "plain" {
		version = "0.0.4"
	}
	for k, v := range target.Params {
		if k == "charset" {
			continue
		}
		got := ac.Params[k]
		if k == "version" {
			got = version
		}
		if got != v {
			return false
		}
	}
	return true
}

// Encoder writes families in one format; Close ends the exposition
// (OpenMetrics' "# EOF").
type Encoder struct {
	w    io.Writer
	kind int
	buf  []byte
}

const (
	kindText = iota
	kindOpenMetrics
	kindProtoDelim
)

// NewEncoder returns an encoder of f, one of the formats Negotiate
// answers (its parameters after the media type are not read but for
// recognising it); an unknown format is written as text.
func NewEncoder(w io.Writer, f Format) *Encoder {
	e := &Encoder{w: w}
	mt, _, _ := mime.ParseMediaType(string(f))
	switch mt {
	case "application/openmetrics-text":
		e.kind = kindOpenMetrics
	case "application/vnd.google.protobuf":
		e.kind = kindProtoDelim
	}
	return e
}

// Encode writes one family. A family without samples is an error in the
// text format, as in expfmt, and written as it is in the others.
func (e *Encoder) Encode(mf *Family) error {
	if mf.Name == "" {
		return errNoName
	}
	switch e.kind {
	case kindOpenMetrics:
		e.buf = appendOpenMetrics(e.buf[:0], mf)
	case kindProtoDelim:
		e.buf = appendProtoDelim(e.buf[:0], mf)
	default:
		if len(mf.Samples) == 0 {
			return errNoSamples
		}
		e.buf = appendText(e.buf[:0], mf)
	}
	_, err := e.w.Write(e.buf)
	return err
}

// Close ends the exposition.
func (e *Encoder) Close() error {
	if e.kind == kindOpenMetrics {
		_, err := io.WriteString(e.w, "# EOF\n")
		return err
	}
	return nil
}

type encodeError string

func (e encodeError) Error() string { return string(e) }

const (
	errNoName    = encodeError("promlite: a metric family has no name")
	errNoSamples = encodeError("promlite: a metric family has no samples")
)

var (
	escaper       = strings.NewReplacer("\\", `\\`, "\n", `\n`)
	quotedEscaper = strings.NewReplacer("\\", `\\`, "\n", `\n`, "\"", `\"`)
)

// appendEscaped is s with '\' and newline escaped, and '"' too when
// quoted.
func appendEscaped(b []byte, s string, quoted bool) []byte {
	if !strings.ContainsAny(s, "\\\n\"") {
		return append(b, s...)
	}
	r := escaper
	if quoted {
		r = quotedEscaper
	}
	return append(b, r.Replace(s)...)
}

// appendLabels is a sample's labels in braces (nothing without labels).
func appendLabels(b []byte, labels []LabelPair) []byte {
	for i, lp := range labels {
		if i == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = append(b, lp.Name...)
		b = append(b, `="`...)
		b = appendEscaped(b, lp.Value, true)
		b = append(b, '"')
	}
	if len(labels) > 0 {
		b = append(b, '}')
	}
	return b
}

// appendFloat is a value as the text format writes it (-0 as 0).
func appendFloat(b []byte, f float64) []byte {
	switch {
	case f == 0:
		return append(b, '0')
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendText is a family in the Prometheus text format (0.0.4).
func appendText(b []byte, mf *Family) []byte {
	b = append(b, "# HELP "...)
	b = append(b, mf.Name...)
	b = append(b, ' ')
	b = appendEscaped(b, mf.Help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, mf.Name...)
	if mf.Type == CounterValue {
		b = append(b, " counter\n"...)
	} else {
		b = append(b, " gauge\n"...)
	}
	for _, s := range mf.Samples {
		b = append(b, mf.Name...)
		b = appendLabels(b, s.Labels)
		b = append(b, ' ')
		b = appendFloat(b, s.Value)
		b = append(b, '\n')
	}
	return b
}

// appendOpenMetrics is a family in OpenMetrics (1.0.0 and 0.0.1 alike): a
// counter is described without its _total, which its samples keep, and
// one named otherwise is of unknown type; a value has a decimal point.
func appendOpenMetrics(b []byte, mf *Family) []byte {
	name, sample := mf.Name, mf.Name
	typ := " gauge\n"
	if mf.Type == CounterValue {
		typ = " unknown\n"
		if base, ok := strings.CutSuffix(mf.Name, "_total"); ok {
			name, typ = base, " counter\n"
		}
	}
	b = append(b, "# HELP "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = appendEscaped(b, mf.Help, true)
	b = append(b, "\n# TYPE "...)
	b = append(b, name...)
	b = append(b, typ...)
	for _, s := range mf.Samples {
		b = append(b, sample...)
		b = appendLabels(b, s.Labels)
		b = append(b, ' ')
		n := len(b)
		b = appendFloat(b, s.Value)
		if v := b[n:]; !math.IsNaN(s.Value) && !math.IsInf(s.Value, 0) && !bytes.ContainsAny(v, "e.") {
			b = append(b, ".0"...)
		}
		b = append(b, '\n')
	}
	return b
}

// The protobuf wire format of client_model's MetricFamily (metrics.proto):
// the fields sessions sets, in field-number order as the Go protobuf
// runtime writes them.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2

	fieldFamilyName   = 1 // string
	fieldFamilyHelp   = 2 // string
	fieldFamilyType   = 3 // MetricType: COUNTER 0, GAUGE 1
	fieldFamilyMetric = 4 // repeated Metric
	fieldMetricLabel  = 1 // repeated LabelPair {name 1, value 2}
	fieldMetricGauge  = 2 // Gauge {value 1: double}
	fieldMetricCount  = 3 // Counter {value 1: double}
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field<<3|wire))
}

func appendString(b []byte, field int, s string) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendProtoDelim is a family as one length-delimited MetricFamily.
func appendProtoDelim(b []byte, mf *Family) []byte {
	msg := appendString(nil, fieldFamilyName, mf.Name)
	msg = appendString(msg, fieldFamilyHelp, mf.Help)
	msg = appendTag(msg, fieldFamilyType, wireVarint)
	if mf.Type == CounterValue {
		msg = append(msg, 0)
	} else {
		msg = append(msg, 1)
	}
	var m, v []byte
	for _, s := range mf.Samples {
		m = m[:0]
		for _, lp := range s.Labels {
			v = appendString(v[:0], 1, lp.Name)
			v = appendString(v, 2, lp.Value)
			m = appendTag(m, fieldMetricLabel, wireBytes)
			m = binary.AppendUvarint(m, uint64(len(v)))
			m = append(m, v...)
		}
		field := fieldMetricGauge
		if mf.Type == CounterValue {
			field = fieldMetricCount
		}
		m = appendTag(m, field, wireBytes)
		m = append(m, 9) // value's length: the tag (1, fixed64) and 8 bytes
		m = appendTag(m, 1, wireFixed64)
		m = binary.LittleEndian.AppendUint64(m, math.Float64bits(s.Value))
		msg = appendTag(msg, fieldFamilyMetric, wireBytes)
		msg = binary.AppendUvarint(msg, uint64(len(m)))
		msg = append(msg, m...)
	}
	b = binary.AppendUvarint(b, uint64(len(msg)))
	return append(b, msg...)
}
