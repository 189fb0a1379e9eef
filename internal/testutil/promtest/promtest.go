// Package promtest gives the tests Prometheus's own tools (promtool, the
// prometheus server) at the version the project pins, built once from the
// Go module by scripts/prometheus_tool.sh into the user cache dir.
package promtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw/sessions/internal/testutil"
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
