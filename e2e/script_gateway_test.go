package e2e_test

import (
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

// fakeGateway: fakegw NAME PROTOCOL DATA.json starts an in-process OpenClaw
// gateway (internal/gateway/gatewaytest) speaking PROTOCOL (3: 2026.1.30,
// 4: 2026.9.x) and serving DATA ({"sessions":[rows], "history":{key:[msgs]},
// "config":{…}}); $NAME_URL is its ws:// URL, $NAME_TOKEN its token, also
// in the file $WORK/NAME.token. It stops when the script ends.
func fakeGateway(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakegw NAME PROTOCOL DATA.json")
	}
	proto, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("fakegw: protocol %q: %v", args[1], err)
	}
	var d gatewaytest.Data
	if err := json.Unmarshal([]byte(ts.ReadFile(args[2])), &d); err != nil {
		ts.Fatalf("fakegw: %s: %v", args[2], err)
	}
	token := "tok-" + args[0]
	s := gatewaytest.Start(proto, token, d)
	ts.Defer(s.Close)
	fakeGateways.Store(gwKey{ts, args[0]}, s)
	ts.Setenv(args[0]+"_URL", s.URL())
	ts.Setenv(args[0]+"_TOKEN", token)
	if err := os.WriteFile(ts.MkAbs(args[0]+".token"), []byte(token+"\n"), 0o600); err != nil {
		ts.Fatalf("fakegw: %v", err)
	}
}

type gwKey struct {
	ts   *testscript.TestScript
	name string
}

var fakeGateways sync.Map // gwKey → *gatewaytest.Server

// gwEmit: gwemit NAME EVENT PAYLOAD.json waits (up to 30 s) until a client
// is connected to the fake gateway NAME, then broadcasts the event; a chat
// "final" event's message is appended to the session's history too.
func gwEmit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: gwemit NAME EVENT PAYLOAD.json")
	}
	v, ok := fakeGateways.Load(gwKey{ts, args[0]})
	if !ok {
		ts.Fatalf("gwemit: no fake gateway %s", args[0])
	}
	s := v.(*gatewaytest.Server)
	var payload any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[2])), &payload); err != nil {
		ts.Fatalf("gwemit: %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); s.Clients() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			ts.Fatalf("gwemit: no client connected to %s", args[0])
		}
	}
	s.Emit(args[1], payload)
}
