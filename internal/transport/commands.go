package transport

import (
	"path"
	"slices"
	"strings"
)

// The remote commands. They are plain POSIX sh, always wrapped in `sh -c`
// (so a csh or fish login shell does not matter) and, for a non-root user,
// in `sudo -n` (never prompt: a prompt would hang the run). The lab nodes
// (internal/labnode) interpret exactly these forms.

// ShellQuote quotes s for POSIX sh.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// AbsentMarker is what the probe prints when the agent file is missing.
const AbsentMarker = "absent"

// ArchCommand prints the node's architecture: the probe after a direct
// run showed the node lacks this agent build, so only what to ship is
// unknown. A single word, so any login shell runs it as it is.
const ArchCommand = "uname -m"

// ProbeCommand prints `uname -m` and then the sha256sum line of the agent,
// or AbsentMarker: one round trip tells both what to ship and whether to.
func ProbeCommand(agentPath string, sudo bool) string {
	return wrap(sudo, "uname -m; sha256sum "+ShellQuote(agentPath)+" 2>/dev/null || echo "+AbsentMarker)
}

// UploadCommand writes stdin to a temp file beside agentPath, makes it
// executable, renames it over agentPath (atomic: a node never runs a half
// written agent) and prints the sha256sum line of the result to verify it.
func UploadCommand(agentPath, tmpSuffix string, sudo bool) string {
	q := ShellQuote(agentPath)
	tmp := ShellQuote(agentPath + ".tmp-" + tmpSuffix)
	return wrap(sudo, "mkdir -p "+ShellQuote(path.Dir(agentPath))+
		" && cat > "+tmp+" && chmod 0755 "+tmp+" && mv -f "+tmp+" "+q+
		" && sha256sum "+q+" || { rm -f "+tmp+"; exit 1; }")
}

// UploadGzipCommand is UploadCommand for a gzip-compressed agent on
// stdin: `gzip -dc` writes the temp file. A node without gzip fails it
// (exit 1, "gzip: not found") and gets the plain upload.
func UploadGzipCommand(agentPath, tmpSuffix string, sudo bool) string {
	q := ShellQuote(agentPath)
	tmp := ShellQuote(agentPath + ".tmp-" + tmpSuffix)
	return wrap(sudo, "mkdir -p "+ShellQuote(path.Dir(agentPath))+
		" && gzip -dc > "+tmp+" && chmod 0755 "+tmp+" && mv -f "+tmp+" "+q+
		" && sha256sum "+q+" || { rm -f "+tmp+"; exit 1; }")
}

// UploadMarker is the line ServeOrUploadCommand prints when agent_path is
// not an executable, asking for the agent. Its first four bytes, read as
// a frame length, exceed protocol.MaxFrame: it cannot be taken for the
// agent's hello frame.
const UploadMarker = "hpcstorage-agent-upload"

// UploadReady is the line the client answers UploadMarker with once the
// agent is in the temp file (over sftp, beside the waiting exec).
const UploadReady = "ready"

// UploadTempSuffix names the session delivery's temp file beside
// agent_path: one per path, so a leftover is overwritten by the next
// delivery (and, once old, removed with the other upload temps by the
// agent's first run of a build).
const UploadTempSuffix = ".tmp-upload"

// ServeOrUploadCommand starts the agent's session in one exec, delivering
// the agent first when the node lacks it (root or an owner of agent_path:
// no sudo). When agent_path is an executable, sh execs it with args
// (serve and --expect-sha256): one process. Otherwise it prints
// UploadMarker and waits (sh's read builtin) while the client writes the
// temp file over sftp; on UploadReady it execs the temp with --install-as
// agent_path, and the agent renames itself into place only once its
// sha256 is the expected one: a cut or corrupted upload is never
// installed. The end of stdin instead (no sftp) ends the command with 1.
func ServeOrUploadCommand(agentPath string, args ...string) string {
	tmp := agentPath + UploadTempSuffix
	return wrap(false, "test -x "+ShellQuote(agentPath)+" && exec "+AgentCommand(agentPath, false, args...)+
		"; echo "+UploadMarker+"; read reply && exec "+AgentCommand(tmp, false, append(slices.Clone(args), "--install-as", agentPath)...)+
		"; exit 1")
}

// AgentCommand runs the agent with args (sudo without a shell: the agent
// is the only thing started). On a connection that has not probed the node
// yet, args end with --expect-sha256 of the expected build: one exec when
// the node already has it (see Pool).
func AgentCommand(agentPath string, sudo bool, args ...string) string {
	words := []string{ShellQuote(agentPath)}
	for _, a := range args {
		words = append(words, ShellQuote(a))
	}
	cmd := strings.Join(words, " ")
	if sudo {
		return "sudo -n " + cmd
	}
	return cmd
}

func wrap(sudo bool, script string) string {
	cmd := "sh -c " + ShellQuote(script)
	if sudo {
		return "sudo -n " + cmd
	}
	return cmd
}

// ApplyArgs are the agent arguments for a request.
func ApplyArgs(r Request) []string {
	args := []string{"apply", "-f", "-", "--output", "json"}
	if r.Check {
		args = append(args, "--check")
	}
	if r.Diff {
		args = append(args, "--diff")
	}
	if r.Root != "" {
		args = append(args, "--root", r.Root)
	}
	return args
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
