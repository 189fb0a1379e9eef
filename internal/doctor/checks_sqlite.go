package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/keys"
)

// ImportCommand is OpenClaw's own import of legacy session stores into
// SQLite; its plain `openclaw doctor --fix` has been seen to skip it.
const ImportCommand = "openclaw doctor --session-sqlite import --session-sqlite-all-agents"

// restartGateway is what makes OpenClaw checkpoint a -wal: its gateway
// truncates the -wal when it closes the database.
const restartGateway = "openclaw gateway restart"

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.FileBytes > 0 {
		d.FileBytes = l.FileBytes
	}
	if l.LineBytes > 0 {
		d.LineBytes = l.LineBytes
	}
	if l.WALBytes > 0 {
		d.WALBytes = l.WALBytes
	}
	if l.DBBytes > 0 {
		d.DBBytes = l.DBBytes
	}
	if l.MediaBytes > 0 {
		d.MediaBytes = l.MediaBytes
	}
	return d
}

// procList renders processes as "pid 12 (openclaw-gateway), pid 40".
func procList(ps []ProcFact) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = "pid " + strconv.Itoa(p.PID)
		if p.Name != "" {
			s[i] += " (" + p.Name + ")"
		}
	}
	return strings.Join(s, ", ")
}

func pidList(ps []ProcFact) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p.PID)
	}
	return strings.Join(s, ",")
}

// whoHolds says who has the database open, as far as this system tells.
func whoHolds(ps []ProcFact) string {
	switch {
	case len(ps) > 0:
		return "held open by " + procList(ps)
	case procFDs:
		return "no process found holding it open (another user's processes cannot be seen)"
	}
	return "this system does not say who holds it open"
}

// checkSQLiteUse: how the database is used — its -wal, its size, media
// inlined in its events, a write lock held right now.
func checkSQLiteUse(a AgentFacts, db *SQLiteFact, lim Limits) []Finding {
	lim = lim.withDefaults()
	var out []Finding
	add := func(sev, check, msg, fix string) {
		out = append(out, Finding{Severity: sev, Check: check, Path: db.Path, AgentID: a.ID, Message: msg, Fix: fix})
	}
	if db.WALSize > db.Size && db.WALSize > lim.WALBytes {
		add(SevWarning, "sqlite.wal-size", fmt.Sprintf("the -wal is %s, larger than the database (%s) and over %s: checkpoints have not kept up (a reader holding an old snapshot, or a writer that never pauses), every read walks it and only OpenClaw may checkpoint it (its gateway truncates the -wal when it closes the database); %s. Never delete or move the -wal: a 2026.9.6 gateway that has it open kills itself",
			bytesStr(db.WALSize), bytesStr(db.Size), bytesStr(lim.WALBytes), whoHolds(db.WALOpeners)),
			restartGateway)
	}
	if db.Size > lim.DBBytes {
		tables := "the tables that take the space are unknown"
		if db.TablesErr != "" {
			tables += " (" + db.TablesErr + ")"
		}
		if len(db.Tables) > 0 {
			ts := make([]string, len(db.Tables))
			for i, t := range db.Tables {
				ts[i] = t.Table + " " + bytesStr(t.Bytes)
			}
			tables = "the largest tables: " + strings.Join(ts, ", ")
		}
		add(SevWarning, "sqlite.db-size", fmt.Sprintf("the database is %s, over %s (%s): every full read and check of it is slower; only OpenClaw removes transcripts from it (sessions.delete through its gateway, which sessions prune and delete use while the gateway runs) and reclaims the pages (its incremental vacuum)",
			bytesStr(db.Size), bytesStr(lim.DBBytes), tables),
			"sessions prune --older-than 30d --dry-run")
	}
	if m := db.Media; m.Events > 0 {
		sev := SevInfo
		if m.Bytes >= 1<<20 {
			sev = SevWarning
		}
		fix := "none from outside OpenClaw: no session key holds these events now, only OpenClaw's retention removes them"
		if strings.HasPrefix(m.Largest, "agent:") || !keys.LooksLikeSessionID(m.Largest) {
			fix = "openclaw gateway call sessions.compact --params " + sq(fmt.Sprintf(`{"key":%q}`, m.Largest))
		}
		add(sev, "sqlite.inline-media", fmt.Sprintf("%d transcript event(s) in %d session(s) carry media inline as base64 (data: URIs, image data), %s in all, most in %s (%s): they stay in the database and go to the model again with the session's history until it is compacted",
			m.Events, m.Sessions, bytesStr(m.Bytes), m.Largest, bytesStr(m.LargestBytes)), fix)
	}
	if db.Locked {
		fix := "lsof -- " + sq(db.Path)
		if len(db.LockOpeners) > 0 {
			fix = "ps -o pid,etime,args -p " + pidList(db.LockOpeners)
		}
		add(SevWarning, "sqlite.write-locked", fmt.Sprintf("another connection held the write lock on each of %d tries %s apart (BEGIN IMMEDIATE without waiting, rolled back at once): OpenClaw's writers wait up to 5 s for it, then fail; %s",
			lockProbes, lockProbeGap, whoHolds(db.LockOpeners)), fix)
	}
	return out
}

// checkLegacy: JSON-era files beside the SQLite store.
func checkLegacy(a AgentFacts) []Finding {
	var out []Finding
	if ls := a.LegacyStore; ls != nil {
		out = append(out, legacyStoreFinding(a, ls))
	}
	for _, p := range a.LegacyBeside {
		f := Finding{Severity: SevWarning, Check: "sqlite.legacy-beside", Path: p, AgentID: a.ID}
		switch {
		case a.LegacyImported[p]:
			f.Severity = SevInfo
			f.Message = "a JSONL transcript whose session the 2026.8+ SQLite store holds (an import kept its source): OpenClaw 2026.8+ never reads it; nothing was deleted"
			f.Fix = "rm -- " + sq(p)
		case a.LegacyStore != nil:
			f.Message = "a JSONL transcript beside the 2026.8+ SQLite store that the store does not hold (a half-finished migration): OpenClaw 2026.8+ never reads it; OpenClaw's import takes it in with the sessions.json beside it; sessions never deletes it"
			f.Fix = ImportCommand
		default:
			f.Message = "a JSONL transcript beside the 2026.8+ SQLite store that no session of the store references (a half-finished migration, or a session removed before it): OpenClaw 2026.8+ never reads it and no import takes a transcript no sessions.json lists; sessions never deletes it — keep it as history outside the state dir"
			f.Fix = "mkdir -p ~/openclaw-legacy && mv -n -- " + sq(p) + " ~/openclaw-legacy/"
		}
		out = append(out, f)
	}
	return out
}

func legacyStoreFinding(a AgentFacts, ls *LegacyStoreFact) Finding {
	f := Finding{Severity: SevError, Check: "sqlite.legacy-store", Path: ls.Path, AgentID: a.ID, Fix: ImportCommand}
	// What the real gateways do beside it: 2026.9.6 (run in
	// e2e/legacy_store_interop_test.go) imports what the database lacks and
	// archives the file when it starts; 2026.8.x refuses to start.
	const refuse = `OpenClaw 2026.9.6's gateway imports it itself when it starts (the entries the database lacks, with their transcripts; the file archived under session-sqlite-import-archive/), but 2026.8.x gateways refuse to start beside it ("Legacy session store requires migration") and their plain openclaw doctor --fix has been seen to skip the import`
	switch {
	case ls.Err != "":
		f.Message = "a legacy sessions.json beside the 2026.8+ SQLite store that cannot be read (" + ls.Err + "): no import can take it in and nothing reads what is in it; " + refuse
	case !ls.Compared:
		f.Severity = SevWarning
		f.Message = fmt.Sprintf("a legacy sessions.json (%d entries) beside a 2026.8+ SQLite store that cannot be read, so which entries it already holds is unknown: %s", ls.Entries, refuse)
	case len(ls.Missing) == 0:
		f.Severity, f.Fixable, f.Fix = SevWarning, true, FixCommand
		f.Message = fmt.Sprintf("a legacy sessions.json (%d entries) beside the 2026.8+ SQLite store, which holds every one of its entries (same sessionId, not older): %s; and sessions reads it instead of the database once it is newer than the database's last write. Moving it aside loses nothing",
			ls.Entries, refuse)
		f.action = action{kind: actMoveLegacyStore, storePath: ls.Path, path: a.SQLite.Path}
	default:
		shown, more := ls.Missing, ""
		if len(shown) > 10 {
			shown, more = shown[:10], fmt.Sprintf(" and %d more", len(ls.Missing)-10)
		}
		f.Severity = SevWarning
		f.SessionKey = ls.Missing[0]
		f.Message = fmt.Sprintf("a legacy sessions.json (%d entries) beside the 2026.8+ SQLite store, which lacks %d of them or holds them under another sessionId or older (%s%s): moving the file aside would lose them, so sessions leaves it; %s",
			ls.Entries, len(ls.Missing), strings.Join(shown, ", "), more, refuse)
	}
	return f
}
