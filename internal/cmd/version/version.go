// Package version implements `sessions version`.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/openclaw/sessions/internal/cmdutil"
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
	Target    string `json:"openclawTarget"`
}

// Get returns the build information.
func Get() Info {
	i := Info{Version: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Target: "2026.1.30"}
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
		Short: "Print the version, VCS revision and Go version",
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
			fmt.Fprintf(f.IO.Out, "sessions %s%s %s %s, for OpenClaw %s state\n", i.Version, about, i.GoVersion, i.Platform, i.Target)
			return nil
		},
	}
}
