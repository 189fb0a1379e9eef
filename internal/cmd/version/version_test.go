package version_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/cmd/version"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/sqlitewrite"
)

// TestUnstamped: without -ldflags there is no date in the JSON document
// (the field is omitted) and the version is never empty.
func TestUnstamped(t *testing.T) {
	if version.Version != "" || version.Commit != "" || version.Date != "" {
		t.Skip("this test binary was stamped")
	}
	i := version.Get()
	if i.Date != "" || i.Version == "" {
		t.Errorf("Get() = %+v; want no date and a version", i)
	}
	b, _ := json.Marshal(i)
	if strings.Contains(string(b), `"date"`) {
		t.Errorf("JSON %s names a date", b)
	}
}

// TestCompat: `version` names the OpenClaw state it reads and writes from
// the constants the readers and writers check, so a bump of either shows.
func TestCompat(t *testing.T) {
	i := version.Get()
	if i.Reads.AgentSchema != sqlitestore.ReadSchemaVersion || i.Writes.AgentSchema != sqlitewrite.SchemaVersion {
		t.Errorf("agent schemas read %d, written %d; want %d and %d", i.Reads.AgentSchema, i.Writes.AgentSchema, sqlitestore.ReadSchemaVersion, sqlitewrite.SchemaVersion)
	}
	if i.Writes.AgentSchema > i.Reads.AgentSchema {
		t.Errorf("writes agent schema %d, newer than the newest read (%d)", i.Writes.AgentSchema, i.Reads.AgentSchema)
	}
	line := i.Compat()
	for _, want := range []string{
		"reads OpenClaw " + era.JSONReleases + " state (JSON era)",
		era.SQLiteSince + "+ SQLite stores up to agent schema " + strconv.Itoa(sqlitestore.ReadSchemaVersion) + " (" + sqlitestore.ReadSchemaOpenClaw + ")",
		"writes the JSON era and agent schema " + strconv.Itoa(sqlitewrite.SchemaVersion) + " (OpenClaw " + sqlitewrite.OpenClawVersion + ")",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("version says %q; want it to contain %q", line, want)
		}
	}
}
