package e2e_test

// The leaf planter of adversarial_leaf_test.go: it copies a bundled state
// (the 2026.1.30 JSON era, the 2026.9.6 SQLite era) and plants a distinct
// secret into every string leaf an agent could be handed — every session
// entry at any depth, every transcript event, our run records and
// OpenClaw's sub-agent registry, the config — found by walking the JSON,
// not from a list of fields, so a field added later is planted without
// touching the test.

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite"
)

// A planted secret is a GitHub token, a shape the masker masks whole
// (`ghp_[A-Za-z0-9]{10,}`): ghp_Q7 + LfA<n>mm + LfB<n>nn + pqrstu + Zk9w, 40
// characters. Masked it keeps its first 6 and last 4 characters
// (ghp_Q7…Zk9w), so its middle, and the markers LfA<n>/LfB<n> in it, never
// appear in anything an agent is handed. Split across two content blocks,
// the first half (ghp_Q7LfA<n>mm) carries LfA<n> and the second
// (LfB<n>nnpqrstuZk9w) LfB<n>: either marker seen in an output is a leak,
// and n names the place it was planted.
const (
	plantHead = "ghp_Q7"
	plantTail = "Zk9w"
)

// plantMarker finds the markers in an output.
var plantMarker = regexp.MustCompile(`Lf([AB])(\d{7})`)

// plantSite is where one secret was planted.
type plantSite struct {
	Where string // the file or row: "agents/main/sessions/sessions.json[agent:main:main]"
	Field string // the JSON path in it: ".deliveryContext.to"
	Split bool   // the secret was split across two content blocks
	Chunk bool   // the secret straddles a 16,384-character chunk edge
}

func (s plantSite) String() string {
	form := ""
	switch {
	case s.Split:
		form = " (split across two content blocks)"
	case s.Chunk:
		form = " (across a 16384-character chunk edge)"
	}
	return s.Where + " " + s.Field + form
}

// planter numbers the secrets it plants.
type planter struct {
	sites []plantSite
	// chunkEdge: the next text leaf of a message gets the chunk-edge form
	// (once per state).
	chunkEdge bool
}

func (p *planter) add(s plantSite) int {
	p.sites = append(p.sites, s)
	return len(p.sites) - 1
}

func plantSecret(n int) string {
	return fmt.Sprintf("%sLfA%07dmmLfB%07dnnpqrstu%s", plantHead, n, n, plantTail)
}

// whole plants one secret for where/field and returns it.
func (p *planter) whole(where, field string) string {
	return plantSecret(p.add(plantSite{Where: where, Field: field}))
}

// split returns the two halves of a secret planted for where/field.
func (p *planter) split(where, field string) (string, string) {
	s := plantSecret(p.add(plantSite{Where: where, Field: field, Split: true}))
	cut := strings.Index(s, "LfB")
	return s[:cut], s[cut:]
}

// chunk returns a 40,000-character text whose secret straddles the
// 16,384-character edge of a chunked masker.
func (p *planter) chunk(where, field string) string {
	s := plantSecret(p.add(plantSite{Where: where, Field: field, Chunk: true}))
	const edge = 16384
	head := strings.Repeat("lorem ipsum ", edge/12+1)[:edge-len(s)/2-1] + " "
	text := head + s + " "
	return text + strings.Repeat("dolor sit amet ", 2000)[:40000-len(text)]
}

// structuralNames are the members whose strings stay as they are: the
// session's key and ids, the links between events (parentId, toolCallId),
// the enums that say what an event or a block is (type, role) or what state a
// run is in (kind, status), the times, the agent a record belongs to and the
// transcript file an entry points at. Changing them would make the state
// unreadable or move the secret out of the requester's reach (another
// agent, no session), which tests nothing; every other string is planted.
var structuralNames = map[string]bool{
	"key": true, "sessionId": true, "id": true, "parentId": true, "type": true, "role": true,
	"timestamp": true, "updatedAt": true, "createdAt": true,
	"toolCallId": true, "runId": true, "agentId": true, "kind": true, "status": true,
	"sessionFile": true,
}

// structuralValue: a string that reads as a number, a UUID, a timestamp or
// a session key (agent:…) is a reference or a time, never free text: it
// stays.
func structuralValue(s string) bool {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return true
	}
	if _, err := uuid.Parse(s); err == nil {
		return true
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return true
	}
	return strings.HasPrefix(s, "agent:")
}

// walk plants a whole secret into every string leaf of v (not structural)
// and returns the result. where names the document, field is v's path in
// it, name the member v is the value of.
func (p *planter) walk(v any, where, field, name string, keep map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			x[k] = p.walk(x[k], where, field+"."+k, k, keep)
		}
		return x
	case []any:
		for i := range x {
			x[i] = p.walk(x[i], where, fmt.Sprintf("%s[%d]", field, i), name, keep)
		}
		return x
	case string:
		if structuralNames[name] || keep[name] || structuralValue(x) {
			return x
		}
		if p.chunkEdge && name == "text" {
			p.chunkEdge = false
			return p.chunk(where, field)
		}
		return p.whole(where, field)
	}
	return v
}

// decodeJSON decodes keeping numbers as written (json.Number), so that a
// planted document differs from the original in its strings only.
func leafDecodeJSON(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// plantEvent plants into one transcript event (a JSONL line or an
// event_json row): every string leaf whole, and for a message a second
// secret split across two text blocks appended to its content.
func (p *planter) plantEvent(line []byte, where string) ([]byte, error) {
	var ev map[string]any
	if err := leafDecodeJSON(line, &ev); err != nil {
		return nil, err
	}
	p.walk(ev, where, "", "", nil)
	if msg, ok := ev["message"].(map[string]any); ok {
		a, b := p.split(where, ".message.content[+2 text blocks]")
		blocks := []any{map[string]any{"type": "text", "text": a}, map[string]any{"type": "text", "text": b}}
		switch c := msg["content"].(type) {
		case []any:
			msg["content"] = append(c, blocks...)
		case string:
			msg["content"] = append([]any{map[string]any{"type": "text", "text": c}}, blocks...)
		}
	}
	return json.Marshal(ev)
}

// plantJSONFile plants every string leaf of a JSON document file.
func (p *planter) plantJSONFile(t *testing.T, path, where string, keep map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	var doc any
	must(t, leafDecodeJSON(data, &doc))
	if m, ok := doc.(map[string]any); ok && strings.HasSuffix(path, "sessions.json") {
		// one document per entry, so that a leak names its session
		for k, e := range m {
			m[k] = p.walk(e, fmt.Sprintf("%s[%s]", where, k), "", "", keep)
		}
	} else {
		doc = p.walk(doc, where, "", "", keep)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	must(t, err)
	must(t, os.WriteFile(path, out, 0o600))
}

// plantJSONL plants every event of a JSONL transcript.
func (p *planter) plantJSONL(t *testing.T, path, where string) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	var out []string
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		b, err := p.plantEvent([]byte(line), fmt.Sprintf("%s:%d", where, i+1))
		if err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, string(b))
	}
	must(t, os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o600))
}

// configKeep are the config members an agent's reading depends on (ids,
// modes, scopes, the agent-to-agent patterns): planting them would change
// what the requester may see, not what it is handed.
var configKeep = map[string]bool{
	"mode": true, "bind": true, "api": true, "dmScope": true, "scope": true, "level": true,
	"allow": true, "allowAgents": true, "allowFrom": true, "dmPolicy": true, "groupPolicy": true,
	"baseUrl": true, "httpUrl": true, "primary": true, "model": true, "store": true,
}

// plantConfig plants the config's strings and turns agent-to-agent on, so
// that agent ops may read main's sessions.
func (p *planter) plantConfig(t *testing.T, state, era string) {
	t.Helper()
	path := filepath.Join(state, "openclaw.json")
	data, err := os.ReadFile(path)
	must(t, err)
	var cfg map[string]any
	must(t, leafDecodeJSON(data, &cfg))
	p.walk(cfg, era+" openclaw.json", "", "", configKeep)
	cfg["tools"] = map[string]any{"agentToAgent": map[string]any{"enabled": true, "allow": []any{"*"}}}
	out, err := json.MarshalIndent(cfg, "", "  ")
	must(t, err)
	must(t, os.WriteFile(path, out, 0o600))
}

// plantRuns writes a send run and a spawn run of agent main under
// sessions-cli/runs/, every string of theirs planted.
func (p *planter) plantRuns(t *testing.T, state, era, child string) {
	t.Helper()
	dir := filepath.Join(state, "sessions-cli", "runs")
	must(t, os.MkdirAll(dir, 0o700))
	now := time.Now().Add(-time.Hour).UnixMilli()
	main := map[string]any{"key": "agent:main:main", "displayKey": "agent:main:main", "agentId": "main", "sessionId": "", "channel": "webchat"}
	step := func(name string) map[string]any {
		return map[string]any{"name": name, "session": "agent:main:main", "status": "ok", "reply": "r", "error": "e",
			"startedAt": now, "endedAt": now + 1, "model": "mock/mock-1", "usage": map[string]any{"input": 1, "output": 2, "total": 3}}
	}
	send := map[string]any{
		"runId": "7e1f0000-0000-4000-8000-000000000001", "kind": "send", "status": "ok", "createdAt": now, "startedAt": now, "endedAt": now + 2,
		"target": main, "requester": main, "message": "m", "timeoutSeconds": 30,
		"engine": "exec:deploy --token t", "deliver": "announce", "replyDone": true, "reply": "r", "error": "e",
		"steps":    []any{step("turn"), step("announce")},
		"delivery": map[string]any{"status": "delivered", "mode": "announce", "channel": "signal", "to": "t", "accountId": "a", "threadId": "th", "message": "m", "error": "e", "at": now},
	}
	childS := map[string]any{"key": child, "displayKey": child, "agentId": "main", "channel": "webchat"}
	spawn := map[string]any{
		"runId": "7e1f0000-0000-4000-8000-000000000002", "kind": "spawn", "status": "ok", "createdAt": now + 5, "startedAt": now + 5, "endedAt": now + 9,
		"target": childS, "requester": main, "message": "m", "timeoutSeconds": 0,
		"engine": "exec:OPENAI_KEY=x run-agent", "replyDone": true, "reply": "r",
		"steps": []any{step("task"), step("announce")},
		"spawn": map[string]any{"task": "t", "label": "l", "model": "mock/mock-2", "thinking": "low", "cleanup": "keep",
			"outcome": "ok", "outcomeError": "e", "notes": "n", "announce": "a", "requesterTranscript": "rt", "requesterError": "re",
			"warning": "w", "gatewayRoute": "g", "announcedVia": "v"},
	}
	for _, r := range []map[string]any{send, spawn} {
		id := r["runId"].(string)
		p.walk(r, era+" sessions-cli/runs/"+id+".json", "", "", nil)
		b, err := json.MarshalIndent(r, "", "  ")
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, id+".json"), b, 0o600))
	}
}

// plantJSONEra plants a copy of the 2026.1.30 state: every sessions.json
// entry, every transcript, the sub-agent registry, runs and config.
func (p *planter) plantJSONEra(t *testing.T, state string) {
	t.Helper()
	const era = "1.30"
	for _, agent := range []string{"main", "ops"} {
		dir := filepath.Join(state, "agents", agent, "sessions")
		p.plantJSONFile(t, filepath.Join(dir, "sessions.json"), era+" agents/"+agent+"/sessions/sessions.json", nil)
		names, err := filepath.Glob(filepath.Join(dir, "*.jsonl*"))
		must(t, err)
		sort.Strings(names)
		// the main session's transcript first: it gets the chunk-edge text
		for i, n := range names {
			if strings.HasPrefix(filepath.Base(n), "c040fd20-") {
				names[0], names[i] = names[i], names[0]
			}
		}
		p.chunkEdge = agent == "main"
		for _, n := range names {
			p.plantJSONL(t, n, era+" agents/"+agent+"/sessions/"+filepath.Base(n))
		}
	}
	p.plantJSONFile(t, filepath.Join(state, "subagents", "runs.json"), era+" subagents/runs.json", nil)
	p.plantRuns(t, state, era, "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2")
	p.plantConfig(t, state, era)
}

// plantSQLiteEra plants a copy of the 2026.9.6 state: every session_nodes
// entry_json and every transcript_events row (zstd ones decoded, planted
// and compressed again), written with database/sql as OpenClaw writes its
// store; OpenClaw's search index is marked for a rebuild, so that search
// reads the planted events rather than the text indexed before.
func (p *planter) plantSQLiteEra(t *testing.T, state string) {
	t.Helper()
	const era = "9.6"
	for _, agent := range []string{"main", "ops"} {
		path := filepath.Join(state, "agents", agent, "agent", "openclaw-agent.sqlite")
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
		must(t, err)
		tx, err := db.Begin()
		must(t, err)
		where := era + " agents/" + agent + " "
		type row struct {
			key  string
			data []byte
		}
		var entries []row
		rows, err := tx.Query("SELECT session_key, entry_json FROM session_nodes ORDER BY session_key")
		must(t, err)
		for rows.Next() {
			var r row
			must(t, rows.Scan(&r.key, &r.data))
			entries = append(entries, r)
		}
		must(t, rows.Err())
		rows.Close()
		for _, e := range entries {
			var entry any
			must(t, leafDecodeJSON(e.data, &entry))
			entry = p.walk(entry, where+"session_nodes["+e.key+"].entry_json", "", "", nil)
			b, err := json.Marshal(entry)
			must(t, err)
			_, err = tx.Exec("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", string(b), e.key)
			must(t, err)
		}
		type ev struct {
			sid      string
			seq      int64
			js, zs   []byte
			isMainSe bool
		}
		var evs []ev
		rows, err = tx.Query(`SELECT e.session_id, e.seq, e.event_json, e.event_zstd,
			coalesce((SELECT 1 FROM session_nodes n WHERE n.current_session_id = e.session_id AND n.session_key = 'agent:main:main'), 0)
			FROM transcript_events e ORDER BY 5 DESC, e.session_id, e.seq`)
		must(t, err)
		for rows.Next() {
			var e ev
			must(t, rows.Scan(&e.sid, &e.seq, &e.js, &e.zs, &e.isMainSe))
			evs = append(evs, e)
		}
		must(t, rows.Err())
		rows.Close()
		p.chunkEdge = agent == "main"
		enc, err := zstd.NewWriter(nil)
		must(t, err)
		dec, err := zstd.NewReader(nil)
		must(t, err)
		for _, e := range evs {
			at := fmt.Sprintf("%stranscript_events[%s#%d]", where, e.sid, e.seq)
			if e.js != nil {
				b, err := p.plantEvent(e.js, at)
				must(t, err)
				_, err = tx.Exec("UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?", string(b), e.sid, e.seq)
				must(t, err)
				continue
			}
			raw, err := dec.DecodeAll(e.zs, nil)
			must(t, err)
			b, err := p.plantEvent(raw, at+"(zstd)")
			must(t, err)
			_, err = tx.Exec("UPDATE transcript_events SET event_zstd = ?, event_utf8_bytes = ? WHERE session_id = ? AND seq = ?",
				enc.EncodeAll(b, nil), len(b), e.sid, e.seq)
			must(t, err)
		}
		dec.Close()
		_, err = tx.Exec("UPDATE session_transcript_index_state SET needs_rebuild = 1")
		must(t, err)
		must(t, tx.Commit())
		must(t, db.Close())
	}
	p.plantRuns(t, state, era, "agent:main:subagent:7e1f0000-0000-4000-8000-0000000000c1")
	p.plantConfig(t, state, era)
}
