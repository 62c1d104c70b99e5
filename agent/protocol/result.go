package protocol

// Result is what apply and remove print (JSON on stdout).
type Result struct {
	APIVersion string          `json:"apiVersion"`
	Owner      string          `json:"owner"`
	Check      bool            `json:"check"`
	Changed    bool            `json:"changed"`
	Failed     bool            `json:"failed"`
	Items      []ItemResult    `json:"items"`
	Handlers   []HandlerResult `json:"handlers"`
	// Optional extras (never required by readers).
	Command   string   `json:"command,omitempty"` // "apply" or "remove"
	Warnings  []string `json:"warnings,omitempty"`
	ElapsedMS float64  `json:"elapsed_ms,omitempty"`
}

// ItemResult is one item's outcome. ID is stable ("sysctl:vm.dirty_ratio").
type ItemResult struct {
	ID      string `json:"id"`
	Changed bool   `json:"changed"`
	Diff    string `json:"diff"`
	Error   string `json:"error"`
	// Optional extras.
	Warnings []string `json:"warnings,omitempty"`
	Skipped  bool     `json:"skipped,omitempty"` // not run because an earlier failure made it unsafe
	// Output is the stdout of a read-only command item (read_only: true),
	// at most MaxOutput bytes.
	Output string `json:"output,omitempty"`
}

// MaxOutput bounds ItemResult.Output; longer output is cut at the end.
const MaxOutput = 64 << 10

// HandlerResult is a notified service restart. Action is "restarted" (or
// "would restart" in check mode, "failed" with Error set).
type HandlerResult struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Error  string `json:"error,omitempty"`
	// Reason says why: "notified" or "owed" (left over by a killed run).
	Reason string `json:"reason,omitempty"`
}

// Exit codes of the agent.
const (
	ExitOK         = 0
	ExitUsage      = 1 // invalid spec or command misuse
	ExitItemFailed = 2
	// ExitWrongBuild: --expect-sha256 named another build than the running
	// executable. Nothing was read or changed; the caller ships the right
	// agent and runs again.
	ExitWrongBuild = 3
)

// ExitCode is the process exit code for a result.
func (r Result) ExitCode() int {
	if r.Failed {
		return ExitItemFailed
	}
	return ExitOK
}
