package gatewayhost

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

// Access over both protocols: the requester resolved against the
// gateway's config; the scope config.get needs named when the credentials
// lack it; a requester that is no session there is exit 4.
func TestGatewayAccess(t *testing.T) {
	sessions := rows(t, `{"key":"agent:main:main","updatedAt":2}`, `{"key":"agent:ops:chat","agentId":"ops","updatedAt":1}`)
	cfg := map[string]any{"tools": map[string]any{"agentToAgent": map[string]any{"enabled": true, "allow": []any{"ops", "main"}}},
		"gateway": map[string]any{"auth": map[string]any{"token": "s3cret"}}}
	for _, proto := range []int{3, 4} {
		g := startGW(t, proto, gatewaytest.Data{Sessions: sessions, Config: cfg})
		ctx := context.Background()
		c, err := g.Client(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if acc, err := Access(ctx, c, "gw", AsInput{}); acc != nil || err != nil {
			t.Fatalf("no --as: %+v %v", acc, err)
		}
		acc, err := Access(ctx, c, "gw", AsInput{As: "agent:ops:chat"})
		if err != nil || acc.Req.Agent != "ops" || !acc.A2A.Enabled || acc.CanSeeAgent("main", 0) != "" {
			t.Fatalf("proto %d: %+v %v", proto, acc, err)
		}
		if _, err := Access(ctx, c, "gw", AsInput{As: "agent:ops:nope", From: "$OPENCLAW_SESSION_KEY"}); apperr.CodeOf(err) != apperr.CodeNotFound || !strings.Contains(err.Error(), "$OPENCLAW_SESSION_KEY agent:ops:nope") {
			t.Fatalf("proto %d: unknown requester: %v", proto, err)
		}
		// an agent's main session is a requester before it exists
		if _, err := Access(ctx, c, "gw", AsInput{As: "agent:ops:main"}); err != nil {
			t.Fatalf("proto %d: agent:ops:main: %v", proto, err)
		}

		bare := startGW(t, proto, gatewaytest.Data{Sessions: sessions})
		bc, err := bare.Client(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Access(ctx, bc, "gw", AsInput{As: "agent:main:main"})
		var ae *apperr.Error
		if apperr.CodeOf(err) != apperr.CodeForbidden || !errors.As(err, &ae) || !strings.Contains(err.Error(), "lack the "+ConfigScope(bc.Protocol())+" scope") {
			t.Fatalf("proto %d: no scope: %v", proto, err)
		}
		if _, ok := gateway.AsRPCError(err); !ok {
			t.Fatalf("proto %d: the gateway's refusal is not wrapped: %v", proto, err)
		}
	}
}
