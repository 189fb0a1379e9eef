//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

// A transcript file with a second name (a hard link from outside the state
// dir) resolves for the operator and is refused, as one outside the state
// dir is, where the Resolver is SingleLink (a requester's reads).
func TestTranscriptHardLinked(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	sess := filepath.Join(state, "agents", "main", "sessions")
	out := filepath.Join(root, "outside")
	for _, d := range []string{sess, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"linked", "single"} {
		if err := os.WriteFile(filepath.Join(sess, id+".jsonl"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(sess, "linked.jsonl"), filepath.Join(out, "secret.jsonl")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	st := &Store{Path: filepath.Join(sess, FileName), Dir: sess}
	entry := func(id string) *Entry { return &Entry{Key: "agent:main:" + id, Meta: Meta{SessionID: id}} }

	op := NewResolver(state)
	if got, err := op.Transcript(st, entry("linked"), sess); err != nil || !got.Exists {
		t.Fatalf("operator: %+v %v", got, err)
	}
	if n := Linked(filepath.Join(sess, "linked.jsonl")); n != 2 {
		t.Fatalf("Linked = %d, want 2", n)
	}

	req := NewResolver(state)
	req.SingleLink = true
	_, err := req.Transcript(st, entry("linked"), sess)
	if !errors.Is(err, ErrLinked) || !errors.Is(err, ErrOutside) || apperr.CodeOf(err) != apperr.CodeError ||
		!strings.Contains(err.Error(), "has 2 links") {
		t.Fatalf("requester, linked: %v (code %d)", err, apperr.CodeOf(err))
	}
	if got, err := req.Transcript(st, entry("single"), sess); err != nil || !got.Exists {
		t.Fatalf("requester, one name: %+v %v", got, err)
	}
	// a session with no transcript yet is no refusal
	if got, err := req.Transcript(st, entry("fresh"), sess); err != nil || got.Exists {
		t.Fatalf("requester, none yet: %+v %v", got, err)
	}
}
