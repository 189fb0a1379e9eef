package ops

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

// oracleToken is a GitHub token planted in a tool result: an agent reads
// it masked (its first 6 and last 4 characters), so a guess of its 7th
// character on must tell it nothing.
const oracleToken = "ghp_Zq7pW3xK9mB2vL5nR8tY4cHj6dF1sA0gE3uI"

// oracleResult is a ~40 KB tool result holding the token, as JSON.
func oracleResult(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := 0; b.Len() < 20<<10; i++ {
		fmt.Fprintf(&b, "step %04d: compiled module ok\n", i)
	}
	b.WriteString("export GH=" + oracleToken + "\n")
	for i := 0; b.Len() < 40<<10; i++ {
		fmt.Fprintf(&b, "step %04d: linked module ok\n", i)
	}
	out, err := json.Marshal(b.String())
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// plantOracle puts the token into a tool result of agent:main:main on a
// copy of the fixture, in either era.
func plantOracle(t *testing.T, fixture, dir string) {
	t.Helper()
	big := oracleResult(t)
	switch fixture {
	case "state-2026.1.30":
		p := filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		old := `"text":"Successfully wrote 18 bytes to notes/todo.md"`
		if !strings.Contains(string(b), old) {
			t.Fatal("fixture text moved")
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, `"text":`+big, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	default:
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		res, err := db.Exec(`UPDATE transcript_events SET event_json = replace(event_json, '"text":"hello-from-exec"', ?)
			WHERE session_id = '8000a7c0-cc69-4a7f-82ba-219f4a789783' AND seq = 9`, `"text":`+big)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatal("fixture event moved")
		}
	}
}

// An agent's search does the same work for a right and a wrong guess of a
// masked secret — the same lines read and parsed, bytes masked and hits —
// so neither the answer nor the time it takes tells them apart (issue 34,
// finding 1: a raw-byte pre-filter made a right guess ~100× slower). The
// operator's search, which reads the stored text, does tell them apart:
// that is what shows the probe reaches the secret.
func TestAdversarialSearchWorkOracle(t *testing.T) {
	right, wrong := oracleToken[:11], oracleToken[:10]+"y"
	// words match whole words: the guess is of the whole token
	rightWord, wrongWord := oracleToken, oracleToken[:len(oracleToken)-1]+"y"
	cases := []struct {
		name         string
		right, wrong SearchPattern
		q            SearchQuery
	}{
		{"prefix", SearchPattern{Pattern: right}, SearchPattern{Pattern: wrong}, SearchQuery{IncludeTools: true}},
		{"prefix without tools", SearchPattern{Pattern: right}, SearchPattern{Pattern: wrong}, SearchQuery{}},
		{"regex", SearchPattern{Pattern: "GH=" + right + "[A-Za-z0-9]+", Regex: true}, SearchPattern{Pattern: "GH=" + wrong + "[A-Za-z0-9]+", Regex: true}, SearchQuery{IncludeTools: true}},
		{"ignore case", SearchPattern{Pattern: strings.ToUpper(right), IgnoreCase: true}, SearchPattern{Pattern: strings.ToUpper(wrong), IgnoreCase: true}, SearchQuery{IncludeTools: true}},
		{"role tool", SearchPattern{Pattern: right}, SearchPattern{Pattern: wrong}, SearchQuery{Role: "tool"}},
		{"archived", SearchPattern{Pattern: right}, SearchPattern{Pattern: wrong}, SearchQuery{IncludeTools: true, IncludeArchived: true}},
		{"key", SearchPattern{Pattern: right}, SearchPattern{Pattern: wrong}, SearchQuery{IncludeTools: true, Key: "main"}},
		{"context", SearchPattern{Pattern: right}, SearchPattern{Pattern: wrong}, SearchQuery{IncludeTools: true, Context: 2, Limit: 5}},
		{"words", SearchPattern{Pattern: rightWord, Words: true}, SearchPattern{Pattern: wrongWord, Words: true}, SearchQuery{IncludeTools: true}},
		{"words ranked", SearchPattern{Pattern: "export " + rightWord, Words: true}, SearchPattern{Pattern: "export " + wrongWord, Words: true}, SearchQuery{IncludeTools: true, Relevance: true, Limit: 3}},
		{"words phrase", SearchPattern{Pattern: `"export GH=` + rightWord + `"`, Words: true}, SearchPattern{Pattern: `"export GH=` + wrongWord + `"`, Words: true}, SearchQuery{IncludeTools: true, Relevance: true}},
		{"words width folded", SearchPattern{Pattern: toFullwidth(rightWord), Words: true}, SearchPattern{Pattern: toFullwidth(wrongWord), Words: true}, SearchQuery{IncludeTools: true}},
	}
	for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
		agent, dir := fixtureOps(t, fixture, nil, Config{As: "agent:main:main"})
		plantOracle(t, fixture, dir)
		operator := New(Config{StateDir: dir, Env: agent.cfg.Env, Getenv: agent.cfg.Getenv, Now: agent.cfg.Now})
		for _, tc := range cases {
			for _, noIndex := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/noIndex=%v", fixture, tc.name, noIndex), func(t *testing.T) {
					run := func(o *Ops, p SearchPattern) *SearchResult {
						t.Helper()
						q := tc.q
						q.Pattern = p
						q.NoIndex = noIndex
						res, err := o.Search(context.Background(), q)
						if err != nil {
							t.Fatal(err)
						}
						return res
					}
					r, w := run(agent, tc.right), run(agent, tc.wrong)
					if r.work != w.work || r.TotalCount != w.TotalCount || r.HasMore != w.HasMore {
						t.Errorf("agent: right guess %+v (total %d), wrong guess %+v (total %d)", r.work, r.TotalCount, w.work, w.TotalCount)
					}
					// the scan parses and masks every line in scope; the index,
					// of masked text, selects alike for either guess
					if noIndex && (r.work.Parsed == 0 || r.work.BytesMasked == 0) {
						t.Errorf("agent: nothing parsed or masked: %+v", r.work)
					}
					if r.TotalCount != 0 {
						t.Errorf("agent: a masked secret found: %d hits", r.TotalCount)
					}
					if tc.q.IncludeTools || tc.q.Role == "tool" {
						or, ow := run(operator, tc.right), run(operator, tc.wrong)
						if or.TotalCount != 1 || ow.TotalCount != 0 {
							t.Errorf("operator: right guess %d hits, wrong %d: the token is not where the probe looks", or.TotalCount, ow.TotalCount)
						}
					}
				})
			}
		}
	}
}

// toFullwidth writes printable ASCII in its fullwidth forms.
func toFullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r <= '~' {
			return r - '!' + 0xff01
		}
		return r
	}, s)
}

// --label matches, for an agent, the label as it reads it (masked): the
// stored label guessed right is answered as a wrong guess is, "No session
// with label" (issue 34, finding 5); the masked label it was shown finds
// the session. The operator matches the label as stored.
func TestAdversarialSearchLabelOracle(t *testing.T) {
	const label = "deploy password=Zq7pW3xK9mB2vL5nR8tY4c"
	agent, dir := fixtureOps(t, "state-2026.1.30", nil, Config{As: "agent:main:main"})
	editMainEntry(t, dir, func(e map[string]any) {
		e["label"] = label
	})
	masked := agent.boundary().Text(label)
	if masked == label {
		t.Fatalf("the label is not masked: %s", masked)
	}
	operator := New(Config{StateDir: dir, Env: agent.cfg.Env, Getenv: agent.cfg.Getenv, Now: agent.cfg.Now})
	search := func(o *Ops, l string) (*SearchResult, error) {
		return o.Search(context.Background(), SearchQuery{Pattern: SearchPattern{Pattern: "e"}, Label: l})
	}
	wrong := label[:len(label)-1] + "x"
	errText := func(err error, l string) string {
		if err == nil {
			return "<nil>"
		}
		// the guess itself is echoed (as the boundary masks it, for an agent)
		msg := strings.ReplaceAll(err.Error(), l, "L")
		msg = strings.ReplaceAll(msg, agent.boundary().Text(l), "L")
		return fmt.Sprintf("%d %s", apperr.CodeOf(err), msg)
	}
	_, rightErr := search(agent, label)
	_, wrongErr := search(agent, wrong)
	if rightErr == nil || errText(rightErr, label) != errText(wrongErr, wrong) {
		t.Errorf("agent: the stored label answers %q, a wrong guess %q", errText(rightErr, label), errText(wrongErr, wrong))
	}
	res, err := search(agent, masked)
	if err != nil || res.TotalCount == 0 {
		t.Fatalf("agent: the masked label %q finds nothing: %v", masked, err)
	}
	res.Fill()
	for _, h := range res.Hits {
		if h.SessionID != "c040fd20-0a1c-4ce0-924c-6e695a32eecb" || h.Label != masked {
			t.Errorf("agent: hit %s labelled %q", h.Key, h.Label)
		}
	}
	if _, err := search(operator, label); err != nil {
		t.Errorf("operator: the stored label: %v", err)
	}
	if _, err := search(operator, masked); err == nil {
		t.Errorf("operator: the masked label %q found a session", masked)
	}
}

// A masked search stops when it has masked searchMaskBudget bytes of text:
// the answer is partial and says so (partial, hasMore), stops at the same
// place every time and for any query, and never runs on. The operator's
// search has no such budget; the demo states finish well within the real
// one.
func TestAdversarialSearchMaskBudget(t *testing.T) {
	for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
		t.Run(fixture, func(t *testing.T) {
			agent, dir := fixtureOps(t, fixture, nil, Config{As: "agent:main:main"})
			plantOracle(t, fixture, dir)
			operator := New(Config{StateDir: dir, Env: agent.cfg.Env, Getenv: agent.cfg.Getenv, Now: agent.cfg.Now})
			search := func(o *Ops, pattern string) *SearchResult {
				t.Helper()
				// the scan's budget: the index's answer is not bounded by it
				res, err := o.Search(context.Background(), SearchQuery{Pattern: SearchPattern{Pattern: pattern}, IncludeTools: true, IncludeArchived: true, NoIndex: true})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			whole := search(agent, "e")
			if whole.Partial || whole.TotalCount == 0 || whole.work.BytesMasked < 40<<10 {
				t.Fatalf("within the default budget: partial %v, %d hits, %+v", whole.Partial, whole.TotalCount, whole.work)
			}
			defer func(b int64) { searchMaskBudget = b }(searchMaskBudget)
			searchMaskBudget = whole.work.BytesMasked / 2
			cut := search(agent, "e")
			if !cut.Partial || !cut.HasMore || cut.work.BytesMasked < searchMaskBudget || cut.work.BytesMasked >= whole.work.BytesMasked ||
				cut.work.Lines >= whole.work.Lines || cut.TotalCount > whole.TotalCount {
				t.Errorf("budget %d: partial %v, hasMore %v, %+v (whole %+v)", searchMaskBudget, cut.Partial, cut.HasMore, cut.work, whole.work)
			}
			cut.Fill()
			doc, _ := json.Marshal(cut)
			if !strings.Contains(string(doc), `"partial":true`) {
				t.Errorf("the document does not say it is partial: %.200s", doc)
			}
			again, other := search(agent, "e"), search(agent, oracleToken[:11])
			if again.work != cut.work || again.TotalCount != cut.TotalCount || other.work.Lines != cut.work.Lines ||
				other.work.Parsed != cut.work.Parsed || other.work.BytesMasked != cut.work.BytesMasked || !other.Partial {
				t.Errorf("the budget ran out elsewhere: %+v, then %+v, another query %+v", cut.work, again.work, other.work)
			}
			if op := search(operator, "e"); op.Partial || op.TotalCount < whole.TotalCount {
				t.Errorf("operator: partial %v, %d hits (agent %d)", op.Partial, op.TotalCount, whole.TotalCount)
			}
		})
	}
}

// An agent's search reads no line longer than SearchMaskMaxLine: masking
// one line is work no budget can cut short, so a line of hostile text
// could hold a core for minutes. The operator still finds it.
func TestAdversarialSearchLongLine(t *testing.T) {
	const needle = "zqxlongline17"
	for _, as := range []string{"agent:main:main", ""} {
		o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{As: as})
		text := strings.Repeat("lorem ipsum ", (SearchMaskMaxLine/12)+1) + needle
		appendMainMessage(t, dir, "longline1", text)
		res, err := o.Search(context.Background(), SearchQuery{Pattern: SearchPattern{Pattern: needle}})
		if err != nil {
			t.Fatal(err)
		}
		if want := as == ""; (res.TotalCount == 1) != want {
			t.Errorf("as %q: %d hits for a text of %d bytes (the agent's limit %d)", as, res.TotalCount, len(text), SearchMaskMaxLine)
		}
	}
}

// A message over MaskMaxMessage reaches an agent as 9.6's placeholder for
// a message too large, unmasked and unread, in every form of history; the
// operator reads it as stored.
func TestAdversarialHistoryLargeMessage(t *testing.T) {
	const needle = "zqxlargemessage17"
	for _, as := range []string{"agent:main:main", ""} {
		for _, raw := range []bool{false, true} {
			o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{As: as})
			appendMainMessage(t, dir, "largemsg1", strings.Repeat("lorem ipsum ", (MaskMaxMessage/12)+1)+needle)
			sess, res, err := o.OpenHistory(context.Background(), "agent:main:main", "", HistoryQuery{Limit: 5, Raw: raw})
			if err != nil {
				t.Fatal(err)
			}
			sess.Close()
			last := string(res.Messages[len(res.Messages)-1])
			omitted := strings.Contains(last, "[sessions_history omitted: message too large]")
			if as != "" && (!omitted || strings.Contains(last, "lorem")) {
				t.Errorf("agent, raw %v: the large message went out: %.200s", raw, last)
			}
			if as == "" && omitted {
				t.Errorf("operator, raw %v: the large message was left out", raw)
			}
		}
	}
}

// editMainEntry changes agent:main:main's entry in a copy of the 1.30
// demo state.
func editMainEntry(t *testing.T, dir string, edit func(e map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, "agents/main/sessions/sessions.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var store map[string]map[string]any
	if err := json.Unmarshal(b, &store); err != nil {
		t.Fatal(err)
	}
	edit(store["agent:main:main"])
	if b, err = json.Marshal(store); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// appendMainMessage appends a user message of one text block to
// agent:main:main's transcript in a copy of the 1.30 demo state.
func appendMainMessage(t *testing.T, dir, id, text string) {
	t.Helper()
	line, err := json.Marshal(map[string]any{"type": "message", "id": id, "timestamp": "2026-11-20T10:00:00.000Z",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}
