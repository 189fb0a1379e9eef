package hostdoc

// DoctorFinding is one problem doctor found (and maybe fixed).
type DoctorFinding struct {
	Severity   string `json:"severity"`
	Check      string `json:"check"` // stable identifier, e.g. "lock.dead"
	Path       string `json:"path"`
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	// Message says what it is and what it means.
	Message string `json:"message"`
	// Fix is the exact command that repairs it: ours (`sessions doctor
	// --fix`) when Fixable, else OpenClaw's own or a shell command.
	Fix string `json:"fix"`
	// Fixable: `sessions doctor --fix` repairs it.
	Fixable bool `json:"fixable"`
	// Fixed is set by Fix: what was done.
	Fixed string `json:"fixed,omitempty"`
	// FixError is set by Fix when the repair failed or was deferred.
	FixError string `json:"fixError,omitempty"`
}

// DoctorCounts are the findings by severity, and how many --fix can repair.
type DoctorCounts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Fixable  int `json:"fixable"`
}

// DoctorResult is the document of `sessions doctor --json`.
type DoctorResult struct {
	Status   string          `json:"status"` // "ok" (nothing left to act on) | "error"
	Error    string          `json:"error,omitempty"`
	StateDir string          `json:"stateDir"`
	Fix      bool            `json:"fix"`
	Fixed    int             `json:"fixed"`
	Counts   DoctorCounts    `json:"counts"`
	Findings []DoctorFinding `json:"findings"`

	// Size says what was checked: agents, session entries, transcripts.
	Size string `json:"-"`
	// Outcome is the error the check ends with once the document is shown
	// (nil: nothing left to act on): exit 10 when a store cannot be read,
	// 1 when errors or warnings are left. Error is its message.
	Outcome error `json:"-"`
}
