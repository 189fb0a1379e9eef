package launch

import (
	"context"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// ResolveEngineDeliver completes the --engine and --deliver flags of send
// and spawn: an empty one takes $SESSIONS_ENGINE / $SESSIONS_DELIVER; then
// both specs' syntax is checked (usage errors).
func ResolveEngineDeliver(getenv func(string) string, engine, deliver *string) error {
	if *engine == "" {
		*engine = getenv("SESSIONS_ENGINE")
	}
	if *deliver == "" {
		*deliver = getenv("SESSIONS_DELIVER")
	}
	if err := ValidateEngine(*engine); err != nil {
		return err
	}
	if *deliver != "" && !strings.HasPrefix(*deliver, "exec:") {
		return apperr.Usagef("invalid --deliver %q (want exec:COMMAND)", *deliver)
	}
	return nil
}

// ValidateEngine checks an engine spec's syntax.
func ValidateEngine(spec string) error {
	switch {
	case spec == "", spec == engine.SpecAuto, spec == engine.SpecProvider, spec == engine.SpecOpenClaw, spec == engine.SpecGateway:
		return nil
	case strings.HasPrefix(spec, "openclaw:") && strings.TrimSpace(strings.TrimPrefix(spec, "openclaw:")) != "":
		return nil
	case strings.HasPrefix(spec, "exec:") && strings.TrimSpace(strings.TrimPrefix(spec, "exec:")) != "":
		return nil
	}
	return apperr.Usagef("invalid --engine %q (want auto, provider, openclaw, gateway or exec:COMMAND)", spec)
}

// ChooseEngine turns the engine asked for into the one the run records:
// "auto" (the default) picks gateway, openclaw or provider (engine.ChooseAuto);
// "openclaw" becomes "openclaw:<path>" of the executable found (--openclaw
// PATH, $SESSIONS_OPENCLAW, $PATH; exit 1 when there is none). The choice
// and its reasons are logged at debug level.
func (l *Launcher) ChooseEngine(spec, openclawFlag string) (string, error) {
	s := l.State
	switch {
	case spec == "" || spec == engine.SpecAuto:
		probe := func() (string, error) {
			if ep := l.Named; ep != nil {
				return ep.String() + " (given)", gateway.Probe(context.Background(), *ep, l.ProbeTimeout)
			}
			return l.ProbeLocalGateway()
		}
		c := engine.ChooseAuto(s.Cfg, engine.Probe{Getenv: l.Getenv, OpenClawFlag: openclawFlag, Gateway: probe, StateDir: s.Dir.Path})
		for _, r := range c.Reasons {
			l.debug("engine auto: " + r)
		}
		l.debug("engine chosen", "engine", c.Spec, "asked", "auto")
		return c.Spec, nil
	case spec == engine.SpecOpenClaw:
		bin, err := engine.FindOpenClaw(openclawFlag, l.Getenv)
		if err != nil {
			return "", apperr.Errorf("--engine openclaw: %v", err)
		}
		l.debug("engine chosen", "engine", "openclaw:"+bin, "asked", spec)
		return engine.SpecOpenClaw + ":" + bin, nil
	case spec == engine.SpecGateway:
		// fail now (exit 10 when none runs), not in the detached runner
		ep, err := l.TurnGateway()
		if err != nil {
			return "", err
		}
		l.debug("engine chosen", "engine", spec, "asked", spec, "gateway", ep.String())
		return spec, nil
	}
	l.debug("engine chosen", "engine", spec, "asked", spec)
	return spec, nil
}

// ChooseEngineFor is ChooseEngine for a run whose sessions are written
// through route: through a gateway, the turn is the gateway's own (the
// gateway engine; auto picks it), and any other engine is a usage error —
// it would write the turn itself, where only the gateway may.
func (l *Launcher) ChooseEngineFor(route sessionwrite.Route, agent, spec, openclawFlag string) (string, error) {
	if !route.ThroughGateway() {
		return l.ChooseEngine(spec, openclawFlag)
	}
	switch spec {
	case "", engine.SpecAuto, engine.SpecGateway:
		asked := spec
		if asked == "" {
			asked = engine.SpecAuto
		}
		l.debug("engine chosen", "engine", engine.SpecGateway, "asked", asked, "why", "the sessions of agent "+agent+" are written through the gateway "+route.Gateway.String())
		return engine.SpecGateway, nil
	}
	return "", apperr.Usagef("--engine %s cannot run a turn on agent %s: its sessions are written through the gateway %s (%s), which runs the turns itself; use --engine gateway (or auto)", spec, agent, route.Gateway.String(), whyShort(route))
}

func whyShort(r sessionwrite.Route) string {
	if r.Named {
		return "the gateway this invocation names"
	}
	return "a 2026.8+ SQLite store whose gateway is live on this host"
}

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
