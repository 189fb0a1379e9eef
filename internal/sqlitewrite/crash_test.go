package sqlitewrite

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
)

// crashOps is how many logical steps one pass makes: per i a child session,
// a turn appended to agent:main:main, a label patch.
const crashOps = 40

func crashChildKey(i int) string {
	return "agent:main:subagent:" + uuid.NewSHA1(uuid.NameSpaceOID, []byte("crash-"+strconv.Itoa(i))).String()
}

// TestCrashChild is the child process of TestCrashInjection: it runs every
// step from 0, treating a step already committed as done (the retry of a
// killed run), and prints "ok i" after each commit.
func TestCrashChild(t *testing.T) {
	state := os.Getenv("SQLITEWRITE_CRASH_STATE")
	if state == "" {
		t.Skip("helper process of TestCrashInjection")
	}
	w, err := Open(state, "main", Options{LockTimeout: 5 * time.Second})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	for i := 0; i < crashOps; i++ {
		_, err := w.CreateChild(Child{Key: crashChildKey(i), SessionID: uuid.NewSHA1(uuid.NameSpaceOID, []byte("sid-"+strconv.Itoa(i))).String(),
			ParentKey: mainKey, RequesterAgent: "main"})
		if err != nil && !(apperr.CodeOf(err) == apperr.CodeState && strings.Contains(err.Error(), "already exists")) {
			fmt.Println("child:", err)
			os.Exit(3)
		}
		text := fmt.Sprintf("crash turn %d %s", i, strings.Repeat("y", i*50)) // some over 1 KiB
		if _, err := w.AppendTurn(Turn{SessionKey: mainKey, IdempotencyKey: "sessions:crash-" + strconv.Itoa(i),
			Messages: []json.RawMessage{userMsg(text), assistantMsg("reply " + strconv.Itoa(i))}, Interaction: true}); err != nil {
			fmt.Println("append:", err)
			os.Exit(3)
		}
		lbl := "crash-" + strconv.Itoa(i)
		if _, err := w.PatchEntry(crashChildKey(i), Patch{Label: &lbl}); err != nil {
			fmt.Println("patch:", err)
			os.Exit(3)
		}
		fmt.Println("ok", i)
	}
	w.Close()
}

// TestCrashInjection SIGKILLs a writer at random moments of many appends,
// child creations and patches, then runs it again from the start (every
// step retried), many times over one database. After every kill:
// integrity_check and foreign_key_check are clean, every row valid, no
// partial turn (every appended user event is followed by its assistant),
// and after the retries every turn is there exactly once, chained
// user → previous assistant, seq contiguous.
//
// SQLITEWRITE_CRASH_ITERS=N for a long run (default 12; -short 4).
func TestCrashInjection(t *testing.T) {
	iters := 12
	if testing.Short() {
		iters = 4
	}
	if v, err := strconv.Atoi(os.Getenv("SQLITEWRITE_CRASH_ITERS")); err == nil && v > 0 {
		iters = v
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("SQLITEWRITE_CRASH_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (SQLITEWRITE_CRASH_SEED reproduces the kill delays)", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0xc0ffee))
	state := copyState(t)
	p := Path(state, "main")
	db := rawDB(t, p)
	sid := queryString(t, db, "SELECT current_session_id FROM session_nodes WHERE session_key = ?", mainKey)
	firstLeaf := queryString(t, db, "SELECT event_id FROM transcript_event_identities WHERE session_id = ? ORDER BY seq DESC LIMIT 1", sid)
	firstSeq := queryInt(t, db, "SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?", sid)
	db.Close()

	run := func(kill time.Duration) (acked int, finished bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SQLITEWRITE_CRASH_STATE="+state)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var timer *time.Timer
		if kill > 0 {
			timer = time.AfterFunc(kill, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		}
		acked = -1
		sc := bufio.NewScanner(out)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "ok" {
				acked, _ = strconv.Atoi(f[1])
			}
		}
		err = cmd.Wait()
		if timer != nil {
			timer.Stop()
		}
		if err == nil {
			return acked, true
		}
		if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
			return acked, false
		}
		t.Fatalf("writer failed: %v\n%s", err, strings.Join(lines, "\n"))
		return 0, false
	}

	check := func(final bool) {
		db := rawDB(t, p)
		defer db.Close()
		checkClean(t, db)
		rows, err := db.Query(`SELECT seq, event_json FROM transcript_events WHERE session_id = ? AND seq >= ? ORDER BY seq`, sid, firstSeq)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		prev := firstLeaf
		wantSeq := firstSeq
		seen := map[string]bool{}
		n := 0
		var lastRole string
		for rows.Next() {
			var seq int64
			var ev string
			if err := rows.Scan(&seq, &ev); err != nil {
				t.Fatal(err)
			}
			if seq != wantSeq {
				t.Fatalf("seq %d, want %d (gap)", seq, wantSeq)
			}
			wantSeq++
			if got := gjson.Get(ev, "parentId").String(); got != prev {
				t.Fatalf("seq %d parent %s, want %s", seq, got, prev)
			}
			prev = gjson.Get(ev, "id").String()
			lastRole = gjson.Get(ev, "message.role").String()
			if k := gjson.Get(ev, "message.idempotencyKey").String(); k != "" {
				if seen[k] {
					t.Fatalf("turn %s appended twice", k)
				}
				seen[k] = true
				n++
			}
		}
		if lastRole == "user" {
			t.Fatal("a partial turn: a user event without its assistant")
		}
		if final {
			if n != crashOps {
				t.Fatalf("%d turns, want %d", n, crashOps)
			}
			if c := queryInt(t, db, "SELECT count(*) FROM session_nodes WHERE session_key LIKE 'agent:main:subagent:%' AND label LIKE 'crash-%'"); c != crashOps {
				t.Fatalf("%d labelled children, want %d", c, crashOps)
			}
			if c := queryInt(t, db, "SELECT indexed_seq FROM session_transcript_index_state WHERE session_id = ? AND needs_rebuild = 0", sid); c != wantSeq-1 {
				t.Fatalf("projection at %d, transcript at %d", c, wantSeq-1)
			}
		}
	}

	kills := 0
	for i := 0; i < iters; i++ {
		d := time.Duration(2+rng.IntN(150)) * time.Millisecond
		_, finished := run(d)
		if !finished {
			kills++
		}
		check(false)
	}
	if _, finished := run(0); !finished {
		t.Fatal("the final run did not finish")
	}
	check(true)
	t.Logf("%d of %d runs killed mid-way", kills, iters)
}
