// Package version implements `sessions version`.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Version, Commit and Date are stamped into release builds with -ldflags
// "-X github.com/openclaw/sessions/internal/cmd/version.Version=…" (and
// .Commit, .Date; make dist does). A plain `go build` leaves them empty:
// the version then comes from the module, the revision from the VCS info Go
// records, and there is no date.
var (
	Version = ""
	Commit  = "" // the full commit hash; wins over the VCS info
	Date    = "" // the commit's date, RFC 3339
)

// Info is the JSON document of `sessions version`.
type Info struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	Date      string `json:"date,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// Target is the OpenClaw release whose JSON-era write protocol sessions
	// follows (kept for scripts that read it; Reads and Writes say more).
	Target string `json:"openclawTarget"`
	// Reads and Writes are the OpenClaw state this build reads and writes
	// directly, from the constants the readers and writers check.
	Reads  Support `json:"reads"`
	Writes Support `json:"writes"`
}

// Support names the OpenClaw state of both eras that sessions reads or
// writes directly (through a running gateway it reaches whatever store
// that gateway's OpenClaw keeps).
type Support struct {
	// JSONEra: the releases whose sessions.json + JSONL transcripts.
	JSONEra string `json:"jsonEra"`
	// SQLiteSince: the first release of the per-agent SQLite store.
	SQLiteSince string `json:"sqliteSince"`
	// AgentSchema is the SQLite agent schema (PRAGMA user_version): for
	// reads the newest read completely (older ones, and newer ones for what
	// they share, are read too), for writes the only one written.
	AgentSchema int `json:"agentSchema"`
	// AgentSchemaOpenClaw names the releases of AgentSchema.
	AgentSchemaOpenClaw string `json:"agentSchemaOpenClaw"`
}

// jsonTarget is the release whose JSON-era store and transcript writes
// sessions follows.
const jsonTarget = "2026.1.30"

// Compat is what this build reads and writes, as `sessions version` says
// it in one line.
func (i Info) Compat() string {
	return fmt.Sprintf("reads OpenClaw %s state (JSON era) and %s+ SQLite stores up to agent schema %d (%s); writes the JSON era and agent schema %d (%s), newer schemas through a running gateway",
		i.Reads.JSONEra, i.Reads.SQLiteSince, i.Reads.AgentSchema, i.Reads.AgentSchemaOpenClaw,
		i.Writes.AgentSchema, i.Writes.AgentSchemaOpenClaw)
}

// Get returns the build information.
func Get() Info {
	sup := ops.Supported()
	i := Info{Version: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Target: jsonTarget,
		Reads: Support{JSONEra: sup.JSONReleases, SQLiteSince: sup.SQLiteSince,
			AgentSchema: sup.ReadSchema, AgentSchemaOpenClaw: sup.ReadSchemaOpenClaw},
		Writes: Support{JSONEra: sup.JSONReleases, SQLiteSince: sup.SQLiteSince,
			AgentSchema: sup.WriteSchema, AgentSchemaOpenClaw: sup.WriteSchemaOpenClaw}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Revision = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
	}
	if Commit != "" {
		i.Revision = Commit
	}
	i.Date = Date
	if i.Version == "" {
		i.Version = "dev"
	}
	return i
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision, Go version and the OpenClaw state it reads and writes",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			i := Get()
			if f.JSONMode() {
				return f.PrintJSON(i)
			}
			var in []string // "(revision[-dirty], date)"
			if i.Revision != "" {
				rev := i.Revision
				if i.Modified {
					rev += "-dirty"
				}
				in = append(in, rev)
			}
			if i.Date != "" {
				in = append(in, i.Date)
			}
			about := ""
			if len(in) > 0 {
				about = " (" + strings.Join(in, ", ") + ")"
			}
			fmt.Fprintf(f.IO.Out, "sessions %s%s %s %s\n%s\n", i.Version, about, i.GoVersion, i.Platform, i.Compat())
			return nil
		},
	}
}
