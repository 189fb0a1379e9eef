package send

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/state"
)

// CheckEngine refuses, before a run is recorded, a turn the provider engine
// could not even start: the target's model (the entry's override, else the
// agent's, else agents.defaults.model — as the runner resolves it) must be a
// configured provider model with no unset ${VAR} in its apiKey, baseUrl or
// headers (exit 1, the engine's message). Exec engines are not checked.
func CheckEngine(s *state.State, t *state.Target, spec string, getenv func(string) string) error {
	if sp := strings.TrimSpace(spec); sp != "" && sp != "provider" {
		return nil
	}
	provider, model := t.Entry.ProviderOverride, t.Entry.ModelOverride
	if model == "" {
		provider, model = s.Cfg.ModelFor(t.Agent)
	} else if provider == "" {
		provider, model = s.Cfg.ResolveModel(model)
	}
	return engine.CheckProvider(s.Cfg, provider, model, getenv)
}

// checkCreatable refuses to let a run create a transcript at path when path
// is a symbolic link (dangling, since the transcript does not exist): the
// file would be created wherever the link points, possibly outside the
// state dir. We never write through a symbolic link.
func checkCreatable(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return apperr.Statef("cannot read transcript %s: %v", path, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return apperr.Errorf("transcript %s is a symbolic link to %s, which does not exist; refusing to create a file through it", path, target)
	}
	return nil
}
