package metrics

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil/promtest"
)

// Prometheus's own linter (promtool check metrics) accepts a scrape of
// both fixture eras. It reads the Prometheus text format only (an
// OpenMetrics counter's family is named without _total, which it takes
// for a family without help): the Prometheus interop test has the real
// server scrape OpenMetrics.
func TestPromtoolCheckMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds promtool")
	}
	promtool := promtest.Tool(t, "promtool")
	for _, fx := range []string{"state-2026.1.30", "state-2026.9.6"} {
		f := testFactory(t, fx)
		m, err := newMetrics(f, &Options{Active: time.Hour, PerSessionTop: 3})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.Write(&b, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "openclaw_sessions{") {
			t.Fatalf("%s: no sessions in\n%s", fx, b.String())
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = &b
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: promtool check metrics: %v\n%s", fx, err, out)
		}
	}
}
