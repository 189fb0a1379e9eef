package ops

import (
	"context"
	"io"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostmetrics"
	"github.com/openclaw/sessions/internal/metrics"
	prometheus "github.com/openclaw/sessions/internal/promlite"
)

// MetricsQuery is what a scrape of this host's state reads.
type MetricsQuery struct {
	// AllAgents: every agent (the default of sessions metrics); else
	// Config.Agent's, or the requester's.
	AllAgents bool
	// Active is the window of openclaw_sessions_active (0: 60 minutes).
	Active time.Duration
	// PerSessionTop adds the N largest sessions by tokens as
	// openclaw_session_tokens{agent,key} (0: none).
	PerSessionTop int
	// DoctorEvery reuses doctor's findings for this long between scrapes
	// (0: every scrape checks again). Doctor reads every transcript; the
	// rest of a scrape reads only what changed.
	DoctorEvery time.Duration
	// Version and Commit are the build's (sessions_build_info).
	Version, Commit string
}

// Metrics exposes this host's state to Prometheus: each scrape
// (Gatherer, Write) reads the state afresh through the host's own reads
// (backend.MetricsReader: internal/hostmetrics over list, locks, usage,
// runs and doctor), reusing what an earlier scrape read where the files
// did not change (the store cache, the usage cache, and the reading a
// scrape keeps). A part that cannot be read is left out and counted in
// sessions_scrape_errors_total; a scrape never fails for it, never takes
// a lock and never writes to the state dir.
type Metrics struct {
	cfg  Config
	reg  *prometheus.Registry
	warn func(string)
	r    *hostmetrics.Reader
}

// NewMetrics prepares the scrapes of this host's state dir; nothing is
// read yet. Through a gateway it is refused (exit 2), as usage and doctor.
func NewMetrics(c Config, q MetricsQuery) (*Metrics, error) {
	if err := New(c).CanRead(ReadMetrics); err != nil {
		return nil, err
	}
	if c.Cache == nil {
		c.Cache = NewStoreCache()
	}
	if q.Active <= 0 {
		q.Active = time.Hour
	}
	m := &Metrics{cfg: c, r: hostmetrics.NewReader(hostmetrics.Query{AllAgents: q.AllAgents && c.Agent == "", Active: q.Active,
		PerSessionTop: q.PerSessionTop, DoctorEvery: q.DoctorEvery, LockTimeout: c.LockTimeout})}
	if c.Log != nil {
		m.warn = func(s string) { c.Log.Debug("metrics: " + s) }
	} else {
		m.warn = func(string) {}
	}
	m.reg = metrics.Registry(metrics.NewCollector(metrics.Build{Version: q.Version, Commit: q.Commit}, m.Snapshot))
	return m, nil
}

// Gatherer is what a scrape gathers (for an HTTP handler).
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Write gathers once and writes the Prometheus text format (OpenMetrics
// with openMetrics).
func (m *Metrics) Write(w io.Writer, openMetrics bool) error {
	return metrics.Write(w, m.reg, openMetrics)
}

// Snapshot reads the state once (one scrape) with a fresh Ops sharing the
// store cache.
func (m *Metrics) Snapshot() *metrics.Snapshot {
	snap := m.snapshot()
	// a requester's scrape goes out through the agent boundary: the
	// model, provider and channel strings read from transcripts and
	// entries, and the keys of the top sessions, masked
	out, err := deliver(New(m.cfg), snap, nil)
	if err != nil {
		m.warn(err.Error())
		return &metrics.Snapshot{Errors: snap.Errors + 1}
	}
	return out
}

// snapshot is Snapshot before the agent boundary: this host read once,
// its warnings counted as scrape errors.
func (m *Metrics) snapshot() *metrics.Snapshot {
	cw := &hostmetrics.Warnings{}
	c := m.cfg
	c.Log = log.NewWithOptions(cw, log.Options{Level: log.WarnLevel})
	h, err := New(c).readHost(ReadMetrics)
	if err != nil {
		m.warn(err.Error())
		return &metrics.Snapshot{Errors: 1}
	}
	return h.(backend.MetricsReader).ReadMetrics(context.Background(), m.r, cw, m.warn)
}
