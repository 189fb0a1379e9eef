package e2e_test

import (
	"encoding/json"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

// gwWrite: gwfake NAME PROTOCOL DATA.json [noadmin] [delay=D] [reply=TEXT]
// starts an in-process OpenClaw gateway (internal/gateway/gatewaytest)
// speaking PROTOCOL (3: 2026.1.30, 4: 2026.9.x) with the write methods
// (sessions.patch, agent, agent.wait) over DATA ({"sessions":[rows],
// "history":{…}}). $NAME_URL is its ws:// URL, $NAME_PORT its port,
// $NAME_TOKEN its token (also in $WORK/NAME.token); every write call is a
// JSON line {"method","params"} in $WORK/NAME.log. noadmin: the token lacks
// operator.admin; reply=TEXT answers every turn with TEXT (an announce
// step with ANNOUNCE_SKIP). It stops when the script ends.
func gwWrite(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: gwfake NAME PROTOCOL DATA.json [noadmin] [delay=D] [reply=TEXT]")
	}
	proto, err := strconv.Atoi(args[1])
	ts.Check(err)
	var d gatewaytest.Data
	if err := json.Unmarshal([]byte(ts.ReadFile(args[2])), &d); err != nil {
		ts.Fatalf("gwfake: %s: %v", args[2], err)
	}
	logf, err := os.OpenFile(ts.MkAbs(args[0]+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	ts.Check(err)
	ts.Defer(func() { logf.Close() })
	w := &gatewaytest.Writes{Log: logf}
	for _, a := range args[3:] {
		switch {
		case a == "noadmin":
			w.NoAdmin = true
		case strings.HasPrefix(a, "delay="):
			w.TurnDelay, err = time.ParseDuration(strings.TrimPrefix(a, "delay="))
			ts.Check(err)
		case strings.HasPrefix(a, "reply="):
			text := strings.TrimPrefix(a, "reply=")
			w.Reply = func(msg string) string {
				if strings.HasSuffix(msg, "announce step.") { // the runner's announce step
					return "ANNOUNCE_SKIP"
				}
				return text
			}
		default:
			ts.Fatalf("gwfake: unknown option %q", a)
		}
	}
	token := "tok-" + args[0]
	s := gatewaytest.Start(proto, token, d)
	s.W = w
	ts.Defer(s.Close)
	u, _ := url.Parse(s.URL())
	ts.Setenv(args[0]+"_URL", s.URL())
	ts.Setenv(args[0]+"_PORT", u.Port())
	ts.Setenv(args[0]+"_TOKEN", token)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]+".token"), []byte(token+"\n"), 0o600))
}
