package e2e_test

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil"
)

// modulePrefix names the packages of this module in an inittrace.
const modulePrefix = "github.com/openclaw/sessions/"

// initAllocBudget is the most a package initialiser of this module may
// allocate in `sessions version` (GODEBUG=inittrace=1's bytes, which are
// deterministic where its times are not): 8 KiB, what a table of key
// bindings or a few small maps and error values cost (internal/ui's key
// bindings are the largest, 4 KiB). Regular expressions, tables and
// registries are built on first use (docs/PERFORMANCE.md, "Start-up"), not
// by every process whether its command needs them or not: the masking
// patterns of internal/sanitize were 1.6 MB at start, the session-id
// pattern of internal/sqlitewrite 130 KiB, a plain one 3–16 KiB.
const initAllocBudget = 8 << 10

// initTotalBudget is the most all of this module's initialisers together
// may allocate in `sessions version`: 20 KiB (15 KiB at the time of
// writing), so that a few more small patterns at start do not creep in one
// package at a time.
const initTotalBudget = 20 << 10

// initProcessBudget is the most all initialisers of the process, the
// dependencies' included, may allocate in `sessions version`: 600 KiB,
// about 10% over the 547 KiB they allocate now. It was 1.47 MiB with
// tablewriter's width package (663 KB of it) and 750 KiB with
// client_golang's default registry, procfs and expvar (200 KiB: no longer
// linked, see notLinked). Most of what is left is the work of
// dependencies of commands that need them, paid by every process because
// Go runs the initialisers of every linked package: gojq's builtins (214
// KiB, --jq), the MCP SDK's JSON schemas and gob (105 KiB), the terminal
// UI's (ultraviolet, ansi: 40 KiB), html/template (export, 18 KiB),
// client_model's protobuf registration (13 KiB, the metrics' encoding). A
// new dependency that builds tables at init fails here; one that must be
// linked anyway raises this budget, said why.
const initProcessBudget = 600 << 10

// initLine is one line of GODEBUG=inittrace=1: "init <pkg> @<t> ms, <clock>
// ms clock, <bytes> bytes, <allocs> allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, (\d+) bytes, (\d+) allocs$`)

type initRecord struct {
	pkg     string
	clockMS float64
	bytes   int64
	allocs  int64
}

// inittrace runs exe with args under GODEBUG=inittrace=1 and returns its
// initialisers, in run order.
func inittrace(tb testing.TB, exe string, args ...string) []initRecord {
	tb.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v\n%s", exe, args, err, stderr.Bytes())
	}
	var recs []initRecord
	for _, line := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		clock, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseInt(m[3], 10, 64)
		a, _ := strconv.ParseInt(m[4], 10, 64)
		recs = append(recs, initRecord{pkg: m[1], clockMS: clock, bytes: b, allocs: a})
	}
	if len(recs) == 0 {
		tb.Fatalf("no inittrace lines from %s %v:\n%s", exe, args, stderr.Bytes())
	}
	return recs
}

// TestStartupInitBudget holds issue 38's start-up rule: no package
// initialiser of this module does work a command may not need, so
// `sessions version` runs none that allocates more than initAllocBudget
// (and all of them together no more than initTotalBudget), and the
// process's initialisers, its dependencies' included, no more than
// initProcessBudget.
func TestStartupInitBudget(t *testing.T) {
	exe := buildBinary(t)
	var total, process int64
	for _, r := range inittrace(t, exe, "version") {
		process += r.bytes
		if !strings.HasPrefix(r.pkg, modulePrefix) {
			continue
		}
		total += r.bytes
		if r.bytes > initAllocBudget {
			t.Errorf("init %s allocates %d bytes (%d allocs) in `sessions version`, over the budget of %d: build it on first use",
				r.pkg, r.bytes, r.allocs, initAllocBudget)
		}
	}
	if total > initTotalBudget {
		t.Errorf("this module's initialisers allocate %d bytes in `sessions version`, over the budget of %d", total, initTotalBudget)
	}
	if process > initProcessBudget {
		t.Errorf("the initialisers of all packages allocate %d bytes in `sessions version`, over the budget of %d: "+
			"GODEBUG=inittrace=1 sessions version 2>&1 | sort -k8 -n names the largest", process, initProcessBudget)
	}
}

// notLinked names the packages cmd/sessions must not link, because their
// initialisers do work every process would pay for whether its command
// needs it or not, and why.
var notLinked = map[string]string{
	// the man-page generator and its Markdown renderer (tables at init):
	// linked into cmd/gen-man only
	"github.com/russross/blackfriday/v2": "man pages are generated by cmd/gen-man",
	"github.com/spf13/cobra/doc":         "man pages are generated by cmd/gen-man",
	// tablewriter's width package builds a 660 KB cache and detects the
	// terminal's East Asian width at init; internal/output pads its columns
	// itself (same bytes: FuzzTableMatchesTablewriter)
	"github.com/olekukonko/tablewriter/pkg/twwidth": "internal/output pads table columns itself",
	// its init looks up xclip, xsel, wl-copy, termux-clipboard-… and
	// clip.exe on PATH (~50 stats) at every start, for ctrl+v in the
	// terminal UI's text inputs: internal/ui/textinput pastes through
	// internal/clipboard, which looks them up on the first paste
	"github.com/atotto/clipboard": "internal/clipboard looks up the clipboard tools on first use",
	// the wait spinner: briandowns/spinner builds its character sets and
	// fatih/color checks the terminal and environment at init;
	// internal/cmdutil draws the one spinner it shows itself
	"github.com/briandowns/spinner": "internal/cmdutil draws its wait spinner itself",
	"github.com/fatih/color":        "internal/cmdutil draws its wait spinner itself",
	// client_golang registers the Go and process collectors on its
	// default registry at init (runtime/metrics, procfs, expvar), for
	// sessions metrics alone, which never used that registry:
	// internal/metrics gathers and serves its families itself and encodes
	// them with prometheus/common/expfmt
	"github.com/prometheus/client_golang/prometheus":          "internal/metrics gathers and serves its metric families itself",
	"github.com/prometheus/client_golang/prometheus/promhttp": "internal/metrics gathers and serves its metric families itself",
	"github.com/prometheus/procfs":                            "internal/metrics gathers and serves its metric families itself",
	"expvar":                                                  "internal/metrics gathers and serves its metric families itself",
}

// TestStartupLinksNoManGenerator: the man-page generator (cobra/doc and its
// Markdown renderer, whose initialisers build tables) is linked into
// cmd/gen-man only, and no other package of notLinked is linked into
// cmd/sessions.
func TestStartupLinksNoManGenerator(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no `go` command")
	}
	cmd := exec.Command(goBin, "list", "-deps", "./cmd/sessions")
	cmd.Dir = testutil.Root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if why, ok := notLinked[p]; ok || strings.Contains(p, "blackfriday") {
			t.Errorf("cmd/sessions links %s: it must not (%s)", p, why)
		}
	}
}

// BenchmarkStartupInittrace reports what every process pays before its
// command runs: the sum of GODEBUG=inittrace=1 over all packages for
// `sessions version` (init-ms/op, init-B/op, init-allocs/op), and this
// module's share (module-init-B/op).
func BenchmarkStartupInittrace(b *testing.B) {
	exe := buildBinary(b)
	var ms float64
	var bytes, allocs, mod int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range inittrace(b, exe, "version") {
			ms += r.clockMS
			bytes += r.bytes
			allocs += r.allocs
			if strings.HasPrefix(r.pkg, modulePrefix) {
				mod += r.bytes
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(ms/n, "init-ms/op")
	b.ReportMetric(float64(bytes)/n, "init-B/op")
	b.ReportMetric(float64(allocs)/n, "init-allocs/op")
	b.ReportMetric(float64(mod)/n, "module-init-B/op")
}
