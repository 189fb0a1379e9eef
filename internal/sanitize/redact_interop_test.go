//go:build interop

package sanitize

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestRedactCorpusInterop runs OpenClaw 2026.9.6's own redactToolPayloadText
// (testdata/redact/openclaw.mjs, on the peer's node and dist) on the corpus
// and checks that expected.json is what it returns, so TestRedactCorpus
// compares us with the real thing. Skips with one line without the peer.
func TestRedactCorpusInterop(t *testing.T) {
	p := peertest.Peer(t)
	peertest.InstallVersion(t, p, "2026.9.6")
	out, err := exec.Command(p, "env", "--version", "2026.9.6").Output()
	if err != nil {
		t.Fatalf("openclaw-peer env: %v", err)
	}
	var node, ocDir string
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		switch v = strings.Trim(v, `"`); k {
		case "OPENCLAW_PEER_NODE":
			node = v
		case "OPENCLAW_PEER_OC_DIR":
			ocDir = v
		}
	}
	if node == "" || ocDir == "" {
		t.Fatalf("openclaw-peer env: no node/OpenClaw dir in\n%s", out)
	}
	cmd := exec.Command(node, filepath.Join("testdata", "redact", "openclaw.mjs"), filepath.Join(ocDir, "dist"),
		filepath.Join("testdata", "redact", "corpus.json"))
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("node openclaw.mjs: %v\n%s", err, stderr.String())
	}
	var theirs []string
	if err := json.Unmarshal(got, &theirs); err != nil {
		t.Fatalf("openclaw.mjs output: %v\n%s", err, got)
	}
	cases, want := readRedactCorpus(t)
	if len(theirs) != len(cases) {
		t.Fatalf("OpenClaw answered %d cases of %d", len(theirs), len(cases))
	}
	for i := range cases {
		if theirs[i] != want[i] {
			t.Errorf("case %d (%q): expected.json says %q, OpenClaw %q", i, cases[i].In, want[i], theirs[i])
		}
		// as 9.6 masks (no edge pass): where 9.6 leaves a token across a
		// chunk edge we mask it too (beyondEdges, TestRedactCorpus)
		as96 := *NewRedactor(cases[i].Patterns, nil)
		as96.as96 = true
		if ours, _ := as96.Redact(cases[i].In); ours != theirs[i] {
			t.Errorf("case %d (%q): ours %q, OpenClaw %q", i, cases[i].In, ours, theirs[i])
		}
	}
}
