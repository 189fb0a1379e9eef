package e2e_test

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/cmd/version"
)

// TestLdflagsStamp builds sessions the way make dist does (-ldflags -X for
// Version, Commit and Date) and checks that `version --json` and `version`
// name the stamped values.
func TestLdflagsStamp(t *testing.T) {
	const (
		ver    = "1.2.3-test"
		commit = "0123456789abcdef0123456789abcdef01234567"
		date   = "2026-11-26T12:34:56Z"
	)
	pkg := "github.com/openclaw/sessions/internal/cmd/version"
	exe := buildBinary(t, "-ldflags", "-X "+pkg+".Version="+ver+" -X "+pkg+".Commit="+commit+" -X "+pkg+".Date="+date)

	out, err := exec.Command(exe, "version", "--json").Output()
	if err != nil {
		t.Fatalf("version --json: %v", err)
	}
	var got version.Info
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	if got.Version != ver || got.Revision != commit || got.Date != date {
		t.Errorf("version --json = %s; want version %q, revision %q, date %q", out, ver, commit, date)
	}
	if want := runtime.GOOS + "/" + runtime.GOARCH; got.Platform != want {
		t.Errorf("platform %q, want %q", got.Platform, want)
	}

	out, err = exec.Command(exe, "version").Output()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	if want := "sessions " + ver + " (" + commit; !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), date+")") {
		t.Errorf("version = %q; want it to start with %q and name %s", out, want, date)
	}
}
