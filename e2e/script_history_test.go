package e2e_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"
)

// genMsgs is the `genmsgs` program of the scripts (an executable, so that a
// shell loop in a script can append between two pages too):
//
//	genmsgs jsonl FILE FROM TO EXPECT [PAD]
//	genmsgs sqlite DB SESSION_ID FROM TO EXPECT [PAD]
//
// appends messages FROM..TO to a JSONL transcript (one pi message entry per
// line) or, as transcript events with the next seqs, to a 2026.8+ SQLite
// store; every tenth is a toolResult, the others alternate user/assistant,
// each text is "msg N" plus PAD filler characters. Each message object,
// compact with its keys in sorted order (what gojq's tojson prints), is
// appended to the file EXPECT.
func genMsgs(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "genmsgs: "+format+"\n", a...)
		return 2
	}
	if len(args) < 1 {
		return fail("usage: genmsgs jsonl|sqlite ...")
	}
	mode, args := args[0], args[1:]
	var sessionID string
	switch {
	case mode == "jsonl" && (len(args) == 4 || len(args) == 5):
	case mode == "sqlite" && (len(args) == 5 || len(args) == 6):
		sessionID, args = args[1], append([]string{args[0]}, args[2:]...)
	default:
		return fail("usage: genmsgs jsonl FILE FROM TO EXPECT [PAD] | genmsgs sqlite DB SESSION_ID FROM TO EXPECT [PAD]")
	}
	target, expect := args[0], args[3]
	from, err1 := strconv.Atoi(args[1])
	to, err2 := strconv.Atoi(args[2])
	pad := 0
	var err3 error
	if len(args) == 5 {
		pad, err3 = strconv.Atoi(args[4])
	}
	if err1 != nil || err2 != nil || err3 != nil || from < 1 || to < from || pad < 0 {
		return fail("bad numbers in %q", args)
	}
	var lines, msgs []string
	base := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).UnixMilli()
	for i := from; i <= to; i++ {
		role := []string{"user", "assistant"}[i%2]
		if i%10 == 0 {
			role = "toolResult"
		}
		text := "msg " + strconv.Itoa(i) + strings.Repeat(".", pad)
		ts := base + int64(i)*1000
		msg := fmt.Sprintf(`{"content":[{"text":%q,"type":"text"}],"role":%q,"timestamp":%d}`, text, role, ts)
		msgs = append(msgs, msg)
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":"g%07d","parentId":"g%07d","timestamp":%q,"message":%s}`,
			i, i-1, time.UnixMilli(ts).UTC().Format("2006-01-02T15:04:05.000Z"), msg))
	}
	switch mode {
	case "jsonl":
		if err := appendText(target, strings.Join(lines, "\n")+"\n"); err != nil {
			return fail("%v", err)
		}
	case "sqlite":
		if err := insertEvents(target, sessionID, lines); err != nil {
			return fail("%v", err)
		}
	}
	if err := appendText(expect, strings.Join(msgs, "\n")+"\n"); err != nil {
		return fail("%v", err)
	}
	return 0
}

func appendText(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// insertEvents appends lines as the next transcript events of a session, in
// one transaction, as OpenClaw 2026.9 writes uncompressed events.
func insertEvents(dbPath, sessionID string, lines []string) error {
	u := url.URL{Scheme: "file", Path: dbPath}
	db, err := sql.Open("sqlite", u.String()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var next int64
	if err := tx.QueryRow("SELECT coalesce(max(seq), -1) + 1 FROM transcript_events WHERE session_id = ?", sessionID).Scan(&next); err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	for i, l := range lines {
		if _, err := tx.Exec("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
			sessionID, next+int64(i), l, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// envfile VAR FILE: set VAR to FILE's content without its final newline (a
// value a command printed, such as a history cursor).
func envFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	ts.Setenv(args[0], strings.TrimSuffix(ts.ReadFile(args[1]), "\n"))
}
