package sqlitewrite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitedb"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/proc"
)

// Holder is an OpenClaw process that holds the state dir.
type Holder struct {
	PID    int
	Role   string // gateway, agent-embedded, skill-workshop-apply, sqlite-maintenance, lease
	Source string // the lock file or state-database table that names it
	// Since is when an agent-embedded holder took gateway.state.lock (its
	// createdAt); zero when the lock does not say.
	Since time.Time
	// SessionKey / SessionID are the session an agent-embedded holder was
	// started on (--session-key / --session-id of its command line), when
	// readable.
	SessionKey, SessionID string
}

// RoleEmbedded is the lock role of `openclaw agent --local` (and of
// OpenClaw's state cleanup): one embedded agent turn.
const RoleEmbedded = "agent-embedded"

// Shared reports whether sessions may write beside this holder: only an
// embedded agent turn whose start is known. OpenClaw itself lets its CLI
// open the agent database beside it (agent_database_leases are shared; its
// writes are BEGIN IMMEDIATE with everything re-read inside), and the turn
// fences only its own session. A gateway, a skill-workshop apply, SQLite
// maintenance (doctor) and an OpenClaw process known only by its lease row
// own more than one session's rows: never beside those.
func (h Holder) Shared() bool { return h.Role == RoleEmbedded && !h.Since.IsZero() }

func (h Holder) String() string {
	role := h.Role
	if role == "" {
		role = "gateway"
	}
	if h.PID > 0 {
		return fmt.Sprintf("OpenClaw %s (pid %d, %s)", role, h.PID, h.Source)
	}
	return fmt.Sprintf("OpenClaw %s (%s)", role, h.Source)
}

// LockDir is where OpenClaw 2026.9.6 keeps its gateway locks for stateDir
// (resolveGatewayLockDir: <state>/tmp/openclaw-<uid>, the state dir's real path).
func LockDir(stateDir string) string {
	if real, err := filepath.EvalSymlinks(stateDir); err == nil {
		stateDir = real
	}
	return filepath.Join(stateDir, "tmp", "openclaw-"+strconv.Itoa(os.Getuid()))
}

// lockPayload is the JSON in gateway.state.lock / gateway.<hash>.lock.
type lockPayload struct {
	PID       int      `json:"pid"`
	Role      string   `json:"role"`
	CreatedAt string   `json:"createdAt"`
	StartTime *float64 `json:"startTime"`
}

// Holders lists the live OpenClaw processes that hold stateDir, for the
// agent database at dbPath: gateway lock files naming a live pid (same
// start time when the lock records one, as OpenClaw compares), a live
// maintenance lease, and live agent_database_leases rows for dbPath. It only
// reads. An unreadable state database is an error (we cannot tell).
func Holders(stateDir, dbPath string, now time.Time) ([]Holder, error) {
	var out []Holder
	dir := LockDir(stateDir)
	ents, err := fsutil.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, apperr.Statef("cannot read OpenClaw's lock dir %s: %v", dir, err)
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "gateway") || !strings.HasSuffix(name, ".lock") {
			continue
		}
		p := filepath.Join(dir, name)
		data, err := fsutil.ReadFileRegular(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, apperr.Statef("cannot read OpenClaw lock %s: %v", p, err)
		}
		var pl lockPayload
		if json.Unmarshal(data, &pl) != nil || pl.PID <= 0 {
			continue // OpenClaw reclaims a lock it cannot parse
		}
		var st *uint64
		if pl.StartTime != nil && *pl.StartTime >= 0 {
			v := uint64(*pl.StartTime)
			st = &v
		}
		if processAlive(pl.PID, st) {
			h := Holder{PID: pl.PID, Role: pl.Role, Source: p}
			if h.Role == RoleEmbedded {
				if t, err := time.Parse(time.RFC3339Nano, pl.CreatedAt); err == nil {
					h.Since = t
				}
				h.SessionKey, h.SessionID = embeddedSession(pl.PID)
			}
			out = append(out, h)
		}
	}
	// A live lock holder may be writing the state database: read it as an
	// ordinary reader then, never immutable.
	leases, err := stateLeases(stateDir, dbPath, now, len(out) > 0)
	if err != nil {
		return nil, err
	}
	return mergeHolders(out, leases), nil
}

// Blocking is the holders sessions never writes beside (see Shared).
func Blocking(hs []Holder) []Holder {
	var out []Holder
	for _, h := range hs {
		if !h.Shared() {
			out = append(out, h)
		}
	}
	return out
}

// procCmdline reads /proc/<pid>/cmdline (a variable for tests).
var procCmdline = func(pid int) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// procParent is /proc/<pid>/stat's ppid (field 4), 0 when unknown.
func procParent(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	v, _ := strconv.Atoi(f[1])
	return v
}

// embeddedSession finds the --session-key / --session-id of an embedded
// agent's command line: 2026.9.6 renames its process ("openclaw-agent"),
// so the arguments are read from it or from its parents (the openclaw
// launcher that respawned it), whichever still carries `agent`.
func embeddedSession(pid int) (key, id string) {
	for i, p := 0, pid; i < 4 && p > 1; i, p = i+1, procParent(p) {
		args := procCmdline(p)
		hasAgent := false
		for j, a := range args {
			if a == "agent" {
				hasAgent = true
			}
			next := func() string {
				if j+1 < len(args) {
					return args[j+1]
				}
				return ""
			}
			switch {
			case a == "--session-key":
				key = next()
			case strings.HasPrefix(a, "--session-key="):
				key = strings.TrimPrefix(a, "--session-key=")
			case a == "--session-id":
				id = next()
			case strings.HasPrefix(a, "--session-id="):
				id = strings.TrimPrefix(a, "--session-id=")
			}
		}
		if hasAgent {
			return strings.TrimSpace(key), strings.TrimSpace(id)
		}
		key, id = "", ""
	}
	return "", ""
}

// descendsFrom reports whether pid is ancestor or one of its children
// (OpenClaw's SQLite worker processes claim leases of their own).
func descendsFrom(pid, ancestor int) bool {
	for i := 0; i < 6 && pid > 1; i, pid = i+1, procParent(pid) {
		if pid == ancestor {
			return true
		}
	}
	return false
}

// mergeHolders folds what names the same pid (a process holds the state
// lock, the config lock and a lease row at once) into one holder; a lease
// row of a child of a lock holder (its worker process) folds into the
// holder.
func mergeHolders(locks, leases []Holder) []Holder {
	var out []Holder
	at := map[int]int{}
	for _, h := range append(locks, leases...) {
		if h.Role == "lease" && h.PID > 0 {
			for _, l := range locks {
				if l.PID != h.PID && descendsFrom(h.PID, l.PID) {
					h.PID = l.PID
					break
				}
			}
		}
		if i, ok := at[h.PID]; ok && h.PID > 0 {
			if !strings.Contains(out[i].Source, h.Source) {
				out[i].Source += ", " + h.Source
			}
			if out[i].Role == "lease" {
				out[i].Role = h.Role
			}
			continue
		}
		at[h.PID] = len(out)
		out = append(out, h)
	}
	return out
}

// processAlive reports whether pid runs (and, when startTime is known, is
// the same process: /proc/<pid>/stat field 22, as OpenClaw records it).
func processAlive(pid int, startTime *uint64) bool {
	if !proc.Exists(pid) {
		return false
	}
	if startTime == nil {
		return true
	}
	cur, ok := procStartTime(pid)
	return !ok || cur == *startTime
}

func procStartTime(pid int) (uint64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

// maintenanceScope is OpenClaw's agent-database maintenance lease
// (openclaw-agent-db-lease: AGENT_DATABASE_MAINTENANCE_LEASE).
const maintenanceScope = "core:agent-database-maintenance"

// stateLeases reads <state>/state/openclaw.sqlite strictly read-only
// (never immutable when live is set: an OpenClaw process may write it).
func stateLeases(stateDir, dbPath string, now time.Time, live bool) ([]Holder, error) {
	p := sqlitedb.StatePath(stateDir)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	mode := sqlitedb.ReadOnly
	if immutableOK(p, live) {
		mode = sqlitedb.Immutable
	}
	if err := sqlitedb.CheckFiles(p); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", sqlitedb.DSN(p, sqlitedb.DSNOptions{Mode: mode, BusyTimeout: 2 * time.Second}))
	if err != nil {
		return nil, apperr.Statef("cannot read OpenClaw's state database %s: %v", p, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var out []Holder
	has := func(table string) (bool, error) {
		var n int
		err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&n)
		return n > 0, err
	}
	ok, err := has("state_leases")
	if err != nil {
		return nil, apperr.Statef("cannot read OpenClaw's state database %s: %v", p, err)
	}
	if ok {
		var owner sql.NullString
		err := db.QueryRow("SELECT owner FROM state_leases WHERE scope = ? AND lease_key = 'global' AND expires_at > ?", maintenanceScope, now.UnixMilli()).Scan(&owner)
		switch {
		case err == nil:
			out = append(out, Holder{Role: "sqlite-maintenance", Source: p + " state_leases " + maintenanceScope + " owner " + owner.String})
		case !errors.Is(err, sql.ErrNoRows):
			return nil, apperr.Statef("cannot read OpenClaw's state database %s: %v", p, err)
		}
	}
	ok, err = has("agent_database_leases")
	if err != nil {
		return nil, apperr.Statef("cannot read OpenClaw's state database %s: %v", p, err)
	}
	if ok {
		rows, err := db.Query("SELECT path, owner_pid, owner_start_time FROM agent_database_leases")
		if err != nil {
			return nil, apperr.Statef("cannot read OpenClaw's state database %s: %v", p, err)
		}
		defer rows.Close()
		for rows.Next() {
			var path string
			var pid int
			var st sql.NullInt64
			if err := rows.Scan(&path, &pid, &st); err != nil {
				return nil, apperr.Statef("cannot read OpenClaw's state database %s: %v", p, err)
			}
			if !samePath(path, dbPath) {
				continue
			}
			var stp *uint64
			if st.Valid && st.Int64 >= 0 {
				v := uint64(st.Int64)
				stp = &v
			}
			if pid > 0 && processAlive(pid, stp) {
				out = append(out, Holder{PID: pid, Role: "lease", Source: p + " agent_database_leases"})
			}
		}
		if err := rows.Err(); err != nil {
			return nil, apperr.Statef("cannot read OpenClaw's state database %s: %v", p, err)
		}
	}
	return out, nil
}

// immutableOK: a WAL database may be read immutable (no lock, no -wal/-shm
// created) when it has no -wal — nobody has it open in WAL mode — or an
// empty one while no OpenClaw process runs beside us; else it is read as an
// ordinary mode=ro reader sharing the writer's -wal.
func immutableOK(p string, live bool) bool {
	fi, err := os.Stat(p + "-wal")
	return err != nil || fi.Size() == 0 && !live
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// HeldError is the refusal when an OpenClaw process holds the state dir.
func HeldError(stateDir string, hs []Holder) error {
	names := make([]string, len(hs))
	pids := []int{}
	for i, h := range hs {
		names[i] = h.String()
		if h.PID > 0 {
			pids = append(pids, h.PID)
		}
	}
	return apperr.Statef("%s holds the state dir %s: sessions writes OpenClaw's SQLite store itself only when no OpenClaw gateway or maintenance runs (an `openclaw agent --local` turn on another session is fine); write through the running gateway with --gateway, or stop it and retry",
		strings.Join(names, ", "), stateDir).With("holders", pids)
}
