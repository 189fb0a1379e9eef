// Package gatewaysel holds the one value that says which OpenClaw
// gateway(s) an invocation names: --gateway URL, --gateway-token-file,
// --insecure-gateway, --gateway-fingerprint and --context. It travels
// whole from the flags to the resolver (internal/hostset, gateway.Resolve)
// and, serialised once in a run record, to the detached runner of a
// gateway-engine run. It is a plain value: no I/O, no storage knowledge,
// so front-ends may hold it.
package gatewaysel

import (
	"path/filepath"
	"slices"
)

// Selector is what an invocation says about the gateway(s) it works
// through. The zero value names none: this host's state dir (unless
// $OPENCLAW_GATEWAY_URL or the current context say otherwise). It holds
// no secret: a token stays in its file or the environment.
type Selector struct {
	URL         string   `json:"url,omitempty"`         // --gateway URL
	TokenFile   string   `json:"tokenFile,omitempty"`   // --gateway-token-file
	Insecure    bool     `json:"insecure,omitempty"`    // --insecure-gateway
	Fingerprint string   `json:"fingerprint,omitempty"` // --gateway-fingerprint
	Contexts    []string `json:"contexts,omitempty"`    // --context (repeatable, comma-separated, or all)
}

// IsZero reports whether the selector names nothing.
func (s Selector) IsZero() bool {
	return s.URL == "" && s.TokenFile == "" && !s.Insecure && s.Fingerprint == "" && len(s.Contexts) == 0
}

// Named reports whether the selector names a gateway itself (a URL or a
// context), not only options of one.
func (s Selector) Named() bool { return s.URL != "" || len(s.Contexts) > 0 }

// Portable is s as another process started elsewhere reads it: the token
// file's path made absolute (a runner does not share the caller's working
// directory), the contexts copied.
func (s Selector) Portable() Selector {
	if s.TokenFile != "" {
		if abs, err := filepath.Abs(s.TokenFile); err == nil {
			s.TokenFile = abs
		}
	}
	s.Contexts = slices.Clone(s.Contexts)
	return s
}
