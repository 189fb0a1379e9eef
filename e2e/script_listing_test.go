package e2e_test

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite"
)

// growstore STORE N: add N sessions to the sessions.json STORE (an agent's
// store in a copied state dir), older than every entry already there, so a
// listing has more rows than its default limit. Each is a minimal valid
// entry (sessionId, updatedAt) under agent:<id>:cron:grown-NNNN, dated 37 s
// apart; every other entry is kept as it was.
func growStore(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: growstore STORE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	var members []string
	oldest, agent := int64(0), "main"
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		members = append(members, k.Raw+": "+v.Raw)
		if u := v.Get("updatedAt").Int(); oldest == 0 || u < oldest {
			oldest = u
		}
		if parts := strings.SplitN(k.String(), ":", 3); len(parts) == 3 && parts[0] == "agent" {
			agent = parts[1]
		}
		return true
	})
	for i := 1; i <= n; i++ {
		members = append(members, fmt.Sprintf(`"agent:%s:cron:grown-%04d": {
    "sessionId": "00000000-0000-4000-8000-%012d",
    "updatedAt": %d
  }`, agent, i, i, oldest-int64(i)*37_000))
	}
	ts.Check(os.WriteFile(path, []byte("{\n  "+strings.Join(members, ",\n  ")+"\n}"), 0o600))
}

// sqlexec DB SQL: run SQL on the SQLite database DB (creating rows a test
// needs in a copy of a real OpenClaw database, as OpenClaw would write them).
func sqlExec(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: sqlexec DB SQL")
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?_busy_timeout=5000")
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(args[1])
	ts.Check(err)
}
