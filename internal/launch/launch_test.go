package launch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

func TestResolveEngineDeliver(t *testing.T) {
	env := map[string]string{"SESSIONS_ENGINE": "exec:cat", "SESSIONS_DELIVER": "exec:tee"}
	eng, del := "", ""
	if err := ResolveEngineDeliver(func(k string) string { return env[k] }, &eng, &del); err != nil || eng != "exec:cat" || del != "exec:tee" {
		t.Errorf("from the environment: %q %q %v", eng, del, err)
	}
	for _, c := range []struct{ eng, del string }{{"exec:", ""}, {"bogus", ""}, {"openclaw: ", ""}, {"auto", "mail:x"}} {
		e, d := c.eng, c.del
		if err := ResolveEngineDeliver(func(string) string { return "" }, &e, &d); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%q %q: %v, want a usage error", c.eng, c.del, err)
		}
	}
	for _, ok := range []string{"", "auto", "provider", "openclaw", "gateway", "openclaw:/bin/oc", "exec:cat"} {
		if err := ValidateEngine(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// Through a gateway the turn is the gateway's: auto and gateway choose it,
// anything else is a usage error (nothing else is asked of the launcher).
func TestChooseEngineThroughGateway(t *testing.T) {
	l := &Launcher{}
	r := sessionwrite.GatewayRoute(gateway.Endpoint{URL: "ws://gw:1"})
	for _, spec := range []string{"", "auto", "gateway"} {
		if got, err := l.ChooseEngineFor(r, "main", spec, ""); err != nil || got != "gateway" {
			t.Errorf("%q: %q %v", spec, got, err)
		}
	}
	if _, err := l.ChooseEngineFor(r, "main", "provider", ""); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Errorf("provider through a gateway: %v", err)
	}
}

func TestCheckCreatable(t *testing.T) {
	dir := t.TempDir()
	if err := checkCreatable(filepath.Join(dir, "new.jsonl")); err != nil {
		t.Errorf("a new file: %v", err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(filepath.Join(dir, "elsewhere", "x.jsonl"), link); err != nil {
		t.Fatal(err)
	}
	if err := checkCreatable(link); apperr.CodeOf(err) != apperr.CodeError {
		t.Errorf("a dangling link: %v", err)
	}
}
