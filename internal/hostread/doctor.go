package hostread

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/doctor"
	"github.com/openclaw/sessions/internal/hostdoc"
	"github.com/openclaw/sessions/internal/startheap"
	"github.com/openclaw/sessions/internal/state"
)

// DoctorQuery is a check of this host's state dir.
type DoctorQuery struct {
	// Fix repairs what is safe without OpenClaw, each under OpenClaw's own
	// lock (stale locks, orphan transcripts, dead runs, due sub-agents).
	Fix         bool
	Now         time.Time
	LockTimeout time.Duration
	// Debug gets why the scan cache was not used or saved (nil: not said).
	Debug func(string)
}

// DoctorAnswer is what a check found, and what it fixed.
type DoctorAnswer struct {
	StateDir string
	Findings []doctor.Finding // never nil
	Counts   doctor.Counts
	Fixed    int
	// Size says what was checked: agents, session entries, transcripts.
	Size string
	// Outcome is the error the check ends with (nil: nothing left to act
	// on): exit 10 when a store cannot be read, 1 when errors or warnings
	// are left.
	Outcome *apperr.Error
}

// doctorUnreadable are the checks that make the outcome exit 10.
var doctorUnreadable = map[string]bool{"store.unreadable": true, "store.corrupt": true, "sqlite.unreadable": true}

// Doctor checks the state dir of s (every agent's stores, transcripts,
// locks, SQLite stores, and our own runs) and, with q.Fix, repairs what is
// safe. Only the host operator may: it reads every agent's state (exit 3).
func Doctor(ctx context.Context, s *state.State, q DoctorQuery) (*DoctorAnswer, error) {
	if !s.Req.Operator() {
		return nil, apperr.Forbiddenf("sessions doctor is for the host operator: it reads every agent's state (run it without --as and OPENCLAW_SESSION_KEY)")
	}
	debug := func(msg string) {
		if q.Debug != nil {
			q.Debug(msg)
		}
	}
	var cache *doctor.ScanCache
	if dir, err := doctor.ScanCacheDir(); err == nil {
		cache = doctor.OpenScanCache(dir, s.Dir.Path, 0)
		if cache.Ignored != "" {
			debug(fmt.Sprintf("doctor: scan cache %s ignored: %s", cache.Path(), cache.Ignored))
		}
	} else {
		debug("doctor: no cache dir: " + err.Error())
	}
	endBurst := startheap.Burst(int(min(storeBytes(s), math.MaxInt32)))
	snap := doctor.Collect(s, q.Now, doctor.Limits{}, cache)
	endBurst()
	if cache != nil {
		debug(fmt.Sprintf("doctor: %d transcripts read, %d unchanged since the scan cache kept them", snap.Scanned, snap.Cached))
	}
	if err := cache.Save(); err != nil {
		debug("doctor: scan cache not saved: " + err.Error())
	}
	a := &DoctorAnswer{StateDir: s.Dir.Path, Findings: doctor.Check(snap, s.GlobalScope()), Size: doctor.Size(snap)}
	if q.Fix {
		doctor.Fix(ctx, s, a.Findings, q.Now, doctor.FixOptions{LockTimeout: q.LockTimeout})
		for _, x := range a.Findings {
			if x.Fixed != "" {
				a.Fixed++
			}
		}
	}
	if a.Findings == nil {
		a.Findings = []doctor.Finding{}
	}
	a.Counts = doctor.Count(a.Findings)
	for _, x := range a.Findings {
		if x.Fixed == "" && doctorUnreadable[x.Check] {
			a.Outcome = apperr.Statef("%s cannot be read (%s); %s", x.Path, x.Check, doctorSummary(a.Counts))
			break
		}
	}
	if a.Outcome == nil && doctor.Open(a.Findings) {
		a.Outcome = apperr.Errorf("%s", doctorSummary(a.Counts))
	}
	return a, nil
}

// storeBytes is the size of the state dir's session stores, what a doctor's
// heap grows by about as much as (it parses every sessions.json whole; on
// the 10,000-session JSON store, 54 MB, it allocated 61 MB without a
// collection): its heap in huge pages (startheap.Burst) took 16,800 page
// faults to 4,200 and 0.51 s to 0.34 s there (2026-11-30, the scan cache
// warm), and a 221 MB SQLite store's doctor 20,700 to 12,500-13,400.
func storeBytes(s *state.State) int64 {
	var n int64
	seen := map[string]bool{}
	for _, a := range s.AgentIDs() {
		p, _ := s.StorePath(a)
		for _, p := range []string{p, s.SQLitePath(a)} {
			if seen[p] {
				continue
			}
			seen[p] = true
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				n += fi.Size()
			}
		}
	}
	return n
}

func doctorSummary(c doctor.Counts) string {
	s := fmt.Sprintf("%d error(s), %d warning(s) left", c.Errors, c.Warnings)
	if c.Fixable > 0 {
		s += fmt.Sprintf("; %d fixable with %s", c.Fixable, doctor.FixCommand)
	}
	return s
}

// The severities of a finding, and the command that fixes the fixable ones.
const (
	DoctorSevError   = doctor.SevError
	DoctorSevWarning = doctor.SevWarning
	DoctorFixCommand = doctor.FixCommand
)

// Doc is the document of the check (fix: it repaired what it could),
// its findings never nil.
func (a *DoctorAnswer) Doc(fix bool) *hostdoc.DoctorResult {
	res := &hostdoc.DoctorResult{Status: "ok", StateDir: a.StateDir, Fix: fix, Fixed: a.Fixed, Counts: hostdoc.DoctorCounts(a.Counts),
		Findings: make([]hostdoc.DoctorFinding, len(a.Findings)), Size: a.Size}
	for i, f := range a.Findings {
		res.Findings[i] = hostdoc.DoctorFinding{Severity: f.Severity, Check: f.Check, Path: f.Path, AgentID: f.AgentID, SessionKey: f.SessionKey,
			Message: f.Message, Fix: f.Fix, Fixable: f.Fixable, Fixed: f.Fixed, FixError: f.FixError}
	}
	if a.Outcome != nil {
		res.Status, res.Error = "error", a.Outcome.Error()
		res.Outcome = a.Outcome.AfterOutput()
	}
	return res
}
