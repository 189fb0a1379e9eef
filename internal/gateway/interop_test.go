//go:build interop

package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// Against REAL gateways from the peer, both versions: connect, the calls
// the commands need, and what OpenClaw's own CLI sees afterwards.
func TestInteropGateway(t *testing.T) {
	p := peertest.Peer(t)
	for _, tc := range []struct {
		version  string
		protocol int
	}{{"2026.1.30", 3}, {"2026.9.6", 4}} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			g := peertest.StartGateway(t, p, tc.version)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()

			c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token, Log: func(s string) { t.Log(s) }})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Protocol() != tc.protocol || c.UsedDevice() {
				t.Fatalf("protocol %d device %v", c.Protocol(), c.UsedDevice())
			}

			// A wrong token is refused: exit 3, and the token is not echoed.
			_, err = gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: "wrong-" + g.Token})
			if apperr.CodeOf(err) != apperr.CodeForbidden || strings.Contains(err.Error(), g.Token) {
				t.Fatalf("wrong token: %d %v", apperr.CodeOf(err), err)
			}

			const key = "agent:main:main"
			chats := c.ChatEvents(key)

			// agent with the final answer (the second res frame).
			var ack gateway.AgentAck
			fin, err := c.RunAgent(ctx, gateway.AgentParams{Message: "interop hello", SessionKey: key}, func(a gateway.AgentAck) { ack = a })
			if err != nil {
				t.Fatal(err)
			}
			if ack.Status != "accepted" || fin.Status != "ok" || !strings.Contains(fin.Text(), "MOCK reply") || !strings.Contains(fin.Text(), "interop hello") {
				t.Fatalf("ack %+v final %+v (%q)", ack, fin, fin.Text())
			}
			// The chat events of that run end with a final one carrying the reply.
			for {
				e, err := chats.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				ce, _ := gateway.DecodeChat(e)
				if ce.RunID == fin.RunID && ce.State == "final" {
					if !strings.Contains(string(ce.Message), "interop hello") {
						t.Fatalf("final chat event %s", e.Payload)
					}
					break
				}
			}
			chats.Close()

			// agent + agent.wait with an idempotency key; a retry of the same
			// key runs nothing twice.
			idem := gateway.NewIdempotencyKey()
			ack2, err := c.StartAgent(ctx, gateway.AgentParams{Message: "interop second", SessionKey: key, IdempotencyKey: idem})
			if err != nil || ack2.RunID != idem {
				t.Fatalf("start: %+v %v", ack2, err)
			}
			w, err := c.WaitAgent(ctx, idem, time.Minute)
			if err != nil || w.Status != "ok" {
				t.Fatalf("wait: %+v %v", w, err)
			}
			h1, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: key, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			// agent.wait answers at the run's lifecycle end, before the agent
			// call itself has finished (its final answer, and on 1.30 its own
			// last session-store write, come later): a sessions.patch in that
			// window can be overwritten. A retry of the key answers with the
			// cached final once the call is done, and never runs it again;
			// until then it answers that the call is still going — 1.30 its
			// cached ack ("accepted"), 9.6 "in_flight" — for as long as a
			// loaded machine makes the call take (until ctx's deadline).
			var statuses []string
			for {
				r, err := c.StartAgent(ctx, gateway.AgentParams{Message: "interop second", SessionKey: key, IdempotencyKey: idem})
				if err != nil {
					t.Fatalf("retry: %v (answers so far: %v)", err, compactStatuses(statuses))
				}
				statuses = append(statuses, r.Status)
				if r.Status != "accepted" && r.Status != "in_flight" {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if statuses[len(statuses)-1] != "ok" {
				t.Fatalf("retries of a finished key: %v", compactStatuses(statuses))
			}
			t.Logf("retries of the key until its cached final: %v", compactStatuses(statuses))

			// chat.history: both turns, in order, the mock's replies.
			h, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: key, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Messages) != len(h1.Messages) {
				t.Fatalf("the retried idempotency key ran again: %d messages, then %d", len(h1.Messages), len(h.Messages))
			}
			var texts []string
			for _, m := range h.Messages {
				texts = append(texts, messageText(m))
			}
			all := strings.Join(texts, "\n")
			if i, j := strings.Index(all, "MOCK reply #1: interop hello"), strings.Index(all, "interop second"); i < 0 || j < i {
				t.Fatalf("history %q", texts)
			}
			if h.SessionID == "" {
				t.Fatal("chat.history without sessionId")
			}
			if tc.protocol >= 4 {
				// 9.x cursors: nothing new since the cursor → a delta without messages.
				if len(h.DeltaCursor) == 0 {
					t.Fatal("9.x chat.history without a deltaCursor")
				}
				d, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: key, Cursor: h.DeltaCursor})
				if err != nil {
					t.Fatal(err)
				}
				if d.Kind != "delta" || len(d.Messages) != 0 {
					t.Fatalf("delta since the cursor: kind %q, %d messages", d.Kind, len(d.Messages))
				}
			} else if _, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: key, Cursor: json.RawMessage(`"x"`)}); apperr.CodeOf(err) != apperr.CodeState {
				t.Fatalf("1.30 cursor refused before sending: %v", err)
			}

			// sessions.list (all pages): the session, with the same sessionId.
			page, err := c.ListAllSessions(ctx, gateway.ListParams{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			var row *gateway.SessionRow
			for i := range page.Sessions {
				if page.Sessions[i].Key == key {
					row = &page.Sessions[i]
				}
			}
			if row == nil || row.SessionID != h.SessionID {
				t.Fatalf("sessions.list: %+v (history sessionId %s)", page.Sessions, h.SessionID)
			}

			// sessions.patch, then OpenClaw's own CLI sees the label.
			label := "interop-" + strings.ReplaceAll(tc.version, ".", "-")
			pr, err := c.PatchSession(ctx, key, map[string]any{"label": label})
			if err != nil || !pr.OK {
				t.Fatalf("patch: %+v %v", pr, err)
			}
			var listed struct {
				Path     string `json:"path"`
				Sessions []struct {
					Key   string `json:"key"`
					Label string `json:"label"`
				} `json:"sessions"`
			}
			out := g.OpenClaw(t, p, "sessions", "--json")
			if err := json.Unmarshal(out, &listed); err != nil {
				t.Fatalf("openclaw sessions --json: %v\n%s", err, out)
			}
			found := false
			for _, s := range listed.Sessions {
				found = found || (s.Key == key && s.Label == label)
			}
			if tc.protocol == 3 {
				// 1.30's `sessions --json` rows carry no label at all: read the
				// store it names (OpenClaw's own file) instead.
				data, err := os.ReadFile(listed.Path)
				if err != nil {
					t.Fatal(err)
				}
				var store map[string]struct {
					Label string `json:"label"`
				}
				if err := json.Unmarshal(data, &store); err != nil {
					t.Fatal(err)
				}
				found = store[key].Label == label
			}
			if !found {
				t.Fatalf("openclaw sessions --json does not show label %q on %s:\n%s", label, key, out)
			}
			// A field the version does not know is refused before sending.
			if _, err := c.PatchSession(ctx, key, map[string]any{map[int]string{3: "archived", 4: "spawnedBy"}[tc.protocol]: true}); apperr.CodeOf(err) != apperr.CodeState {
				t.Fatalf("unknown patch field: %v", err)
			}

			// health, status, config.get (secrets removed).
			if hl, err := c.Health(ctx); err != nil || len(hl) == 0 {
				t.Fatalf("health: %v", err)
			}
			if st, err := c.Status(ctx); err != nil || len(st) == 0 {
				t.Fatalf("status: %v", err)
			}
			rc, err := c.ConfigGet(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(rc.Config); strings.Contains(string(b), g.Token) || rc.Config["gateway"] == nil {
				t.Fatalf("config.get: the gateway token leaked, or no gateway section")
			}

			// A device identity of our own: silent pairing on loopback, the
			// issued device token kept and then enough on its own.
			dir := t.TempDir()
			id, err := gateway.LoadOrCreateIdentity(filepath.Join(dir, gateway.IdentityFile), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			store := &gateway.TokenStore{Path: filepath.Join(dir, gateway.TokensFile)}
			o := gateway.Options{URL: g.URL, Token: g.Token, Device: gateway.DeviceAlways, Identity: id, Tokens: store,
				Scopes: []string{"operator.read", "operator.write"}}
			dc, err := gateway.Dial(ctx, o)
			if err != nil {
				t.Fatalf("device connect: %v", err)
			}
			dc.Close()
			dt, ok := store.Get(gateway.TokenKey(g.URL, "operator"))
			if !ok || dt.Protocol != tc.protocol {
				t.Fatalf("no device token kept: %+v", dt)
			}
			o.Token = ""
			dc, err = gateway.Dial(ctx, o)
			if err != nil {
				t.Fatalf("device-token connect: %v", err)
			}
			if _, err := dc.ListSessions(ctx, gateway.ListParams{Limit: 1}); err != nil {
				t.Fatalf("sessions.list with the device token: %v", err)
			}
			// Without operator.admin, 1.30's sessions.patch is forbidden (exit 3).
			if tc.protocol == 3 {
				_, err := dc.PatchSession(ctx, key, map[string]any{"label": "x"})
				if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "operator.admin") {
					t.Fatalf("patch without admin: %d %v", apperr.CodeOf(err), err)
				}
			}
			dc.Close()

			checkLocal(t, ctx, g)
			checkRemote(t, ctx, p, g, tc.protocol)
			checkChallenge(t, ctx, g.URL, tc.protocol)
		})
	}
}

// checkLocal: the gateway's own config resolves to its URL and token (as
// OpenClaw's CLI finds them), and the running gateway is detected for its
// state dir by its lock file, or by its port alone.
func checkLocal(t *testing.T, ctx context.Context, g *peertest.Gateway) {
	cfg, err := config.Load(g.ConfigPath, config.Env{Getenv: func(string) string { return "" }, Home: g.Home})
	if err != nil {
		t.Fatal(err)
	}
	e, err := gateway.LocalEndpoint(gateway.Inputs{Config: cfg.Raw})
	if err != nil {
		t.Fatal(err)
	}
	if e.URL != g.URL || e.Token != g.Token || e.AuthSource != "config gateway.auth.token" {
		t.Fatalf("local endpoint %+v (token from config: %v)", e, e.Token == g.Token)
	}
	c, err := gateway.Dial(ctx, e.Options())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	live := gateway.DetectLocal(gateway.DetectInput{StateDir: g.StateDir, ConfigPath: g.ConfigPath, TmpDir: filepath.Join(g.Home, "tmp"), Port: g.Port})
	if live == nil || live.Via != "lock" || live.PID != g.GatewayPID {
		t.Fatalf("live gateway by lock: %+v (gateway pid %d)", live, g.GatewayPID)
	}
	t.Logf("detected: %+v", *live)
	live = gateway.DetectLocal(gateway.DetectInput{StateDir: t.TempDir(), Port: g.Port})
	if live == nil || live.Via != "port" {
		t.Fatalf("live gateway by port: %+v", live)
	}
}

// checkRemote: a connection the gateway does not consider local. 1.30 takes
// a non-loopback Host header as remote: our device then needs pairing, the
// error names the approve command, and after OpenClaw's own `openclaw
// devices approve <id>` the device connects (and its token alone suffices).
// 9.6 cannot be made to see a loopback peer as remote: a Host header does not
// change its verdict, and forwarding headers from an untrusted address get
// the upgrade refused (HTTP 403, exit 10).
func checkRemote(t *testing.T, ctx context.Context, p string, g *peertest.Gateway, protocol int) {
	dir := t.TempDir()
	id, err := gateway.LoadOrCreateIdentity(filepath.Join(dir, gateway.IdentityFile), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	store := &gateway.TokenStore{Path: filepath.Join(dir, gateway.TokensFile)}
	if protocol >= 4 {
		_, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token, Header: http.Header{"X-Forwarded-For": {"203.0.113.9"}}})
		if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "HTTP 403") {
			t.Fatalf("9.6 with forwarding headers: %d %v", apperr.CodeOf(err), err)
		}
		return
	}
	o := gateway.Options{URL: g.URL, Token: g.Token, Header: http.Header{"Host": {"gw.example.com"}},
		Device: gateway.DeviceAlways, Identity: id, Tokens: store, Scopes: []string{"operator.read", "operator.write"}}
	_, err = gateway.Dial(ctx, o)
	e, ok := gateway.AsRPCError(err)
	if apperr.CodeOf(err) != apperr.CodeForbidden || !ok || e.RequestID() == "" {
		t.Fatalf("remote device: %d %v", apperr.CodeOf(err), err)
	}
	cmd := gateway.ApproveCommand(e.RequestID())
	if !strings.Contains(err.Error(), "`"+cmd+"`") {
		t.Fatalf("the error does not name %q: %v", cmd, err)
	}
	args := strings.Fields(cmd)
	if args[0] != "openclaw" {
		t.Fatalf("approve command %q", cmd)
	}
	t.Logf("%s: %s", cmd, strings.TrimSpace(string(g.OpenClaw(t, p, args[1:]...))))
	c, err := gateway.Dial(ctx, o)
	if err != nil {
		t.Fatalf("after approval: %v", err)
	}
	c.Close()
	o.Token = ""
	c, err = gateway.Dial(ctx, o)
	if err != nil {
		t.Fatalf("remote, device token only: %v", err)
	}
	if _, err := c.ListSessions(ctx, gateway.ListParams{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// checkChallenge: DeviceAuto tells the versions apart by the challenge — a
// 2026.9 challenge carries "capabilities", a 2026.1.30 one does not.
func checkChallenge(t *testing.T, ctx context.Context, url string, protocol int) {
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	_, data, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Event   string
		Payload map[string]json.RawMessage
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Event != "connect.challenge" {
		t.Fatalf("first frame %s", data)
	}
	if _, has := f.Payload["capabilities"]; has != (protocol >= 4) {
		t.Fatalf("protocol %d challenge %s", protocol, data)
	}
}

// messageText is the text of a chat.history message (content is a string on
// 9.x user messages, an array of parts otherwise).
func messageText(raw json.RawMessage) string {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type, Text string
	}
	_ = json.Unmarshal(m.Content, &parts)
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, " ")
}

// Connect + handshake (challenge, connect, hello-ok) on loopback against the
// real gateway: one Dial and Close per op.
func BenchmarkInteropHandshake(b *testing.B) {
	p := peertest.Peer(b)
	for _, v := range []string{"2026.1.30", "2026.9.6"} {
		b.Run(v, func(b *testing.B) {
			g := peertest.StartGateway(b, p, v)
			ctx := context.Background()
			o := gateway.Options{URL: g.URL, Token: g.Token}
			// One warm-up connection (the first pays the gateway's lazy setup).
			c, err := gateway.Dial(ctx, o)
			if err != nil {
				b.Fatal(err)
			}
			c.Close()
			b.ResetTimer()
			for b.Loop() {
				c, err := gateway.Dial(ctx, o)
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}

// compactStatuses shows a run of equal answers once, with its count.
func compactStatuses(s []string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s×%d", s[i], j-i)
		i = j
	}
	return "[" + b.String() + "]"
}
