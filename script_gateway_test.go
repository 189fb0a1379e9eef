package main_test

import (
	"encoding/json"
	"os"
	"strconv"

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
	ts.Setenv(args[0]+"_URL", s.URL())
	ts.Setenv(args[0]+"_TOKEN", token)
	if err := os.WriteFile(ts.MkAbs(args[0]+".token"), []byte(token+"\n"), 0o600); err != nil {
		ts.Fatalf("fakegw: %v", err)
	}
}
