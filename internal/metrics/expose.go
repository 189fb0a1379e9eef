package metrics

import (
	"bytes"
	"io"
	"net/http"

	prometheus "github.com/openclaw/sessions/internal/promlite"
)

// Registry is a registry holding only c (no Go runtime or process
// metrics: the scrape is about OpenClaw's state).
func Registry(c *Collector) *prometheus.Registry {
	r := prometheus.NewPedanticRegistry()
	r.MustRegister(c)
	return r
}

// Write gathers g once and writes it in the Prometheus text format
// (OpenMetrics when openMetrics is set, with its # EOF).
func Write(w io.Writer, g prometheus.Gatherer, openMetrics bool) error {
	mfs, err := g.Gather()
	if err != nil {
		return err
	}
	f := prometheus.FmtText
	if openMetrics {
		f = prometheus.FmtOpenMetrics_1_0_0
	}
	var b bytes.Buffer
	enc := prometheus.NewEncoder(&b, f)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// Handler serves g at one path, in the format the scraper asks for
// (Accept: OpenMetrics or the Prometheus text format), gzip when asked.
// A scrape that fails to gather answers 500 (a Snapshot's Errors never
// make it fail).
func Handler(g prometheus.Gatherer) http.Handler {
	return prometheus.HandlerFor(g, prometheus.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: prometheus.HTTPErrorOnError, MaxRequestsInFlight: 4})
}
