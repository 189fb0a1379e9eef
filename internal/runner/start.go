package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/proc"
	"github.com/openclaw/sessions/internal/runs"
)

// CommandName is the hidden command that runs a run.
const CommandName = "__runner"

// StartOptions locate the state for the runner process.
type StartOptions struct {
	StateDir   string // absolute
	ConfigPath string // absolute; "" when there is no config file
	Executable string // default os.Executable(), or $SESSIONS_RUNNER_EXE
	Env        []string
	Extra      []string // extra global flags (e.g. --lock-timeout)
}

// Start launches the runner of runID as a detached process (proc.Detach: its
// own session on Unix; no console and its own process group on Windows),
// stdin from the null device, stdout and stderr to the run's log file, so
// it survives the caller's death and a closed terminal. It returns the pid.
func Start(rs *runs.Store, runID string, o StartOptions) (int, error) {
	if err := os.MkdirAll(rs.Dir(), 0o700); err != nil {
		return 0, apperr.Errorf("cannot create %s: %v", rs.Dir(), err)
	}
	logf, err := fsutil.OpenFileRegular(rs.LogPath(runID), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, apperr.Errorf("cannot open the runner log: %v", err)
	}
	defer logf.Close()
	pid, err := StartDetached(o, filepath.Dir(rs.Dir()), logf, CommandName, runID)
	if err != nil {
		return 0, apperr.Errorf("cannot start the runner: %v", err)
	}
	return pid, nil
}

// StartDetached starts `sessions [global flags] args...` for the state of
// o as a detached process (proc.Detach), in dir, stdin from the null
// device, stdout and stderr to out (nil: the null device), with the
// environment of o less what names the caller as requester; it does not
// wait for it. The runner of a run and a search index built in the
// background are started so. It returns the pid.
func StartDetached(o StartOptions, dir string, out *os.File, args ...string) (int, error) {
	exe := o.Executable
	if exe == "" {
		exe = os.Getenv("SESSIONS_RUNNER_EXE")
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return 0, fmt.Errorf("cannot find the sessions executable: %w", err)
		}
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	if out == nil {
		out = devnull
	}
	argv := []string{"sessions", "--state-dir", o.StateDir}
	if o.ConfigPath != "" {
		argv = append(argv, "--config", o.ConfigPath)
	}
	argv = append(argv, o.Extra...)
	argv = append(argv, args...)
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	cmd := &exec.Cmd{
		Path:   exe,
		Args:   argv, // argv[0] "sessions" (also what testscript dispatches on)
		Dir:    dir,
		Env:    runnerEnv(env),
		Stdin:  devnull,
		Stdout: out,
		Stderr: out,
	}
	proc.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	return pid, nil
}

// runnerEnv drops what names the caller as requester: the runner acts for
// the run record, not for whoever started it.
func runnerEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENCLAW_SESSION_KEY=") || strings.HasPrefix(kv, "OPENCLAW_SANDBOXED=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
