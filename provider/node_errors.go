package provider

// How a node's failures read: a transport failure becomes one diagnostic
// naming the host, an agent's failed items one line of text.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// errReported stands for a failure a runner adapter (pacemaker.Runner,
// benchmark.Clients, ceph.Runner) already reported as a diagnostic, so the sequence's
// caller does not report it twice.
var errReported = errors.New("already reported")

// addNodeError explains a transport failure, naming the host.
func addNodeError(diags *diag.Diagnostics, host string, err error) {
	summary, advice := "Node Unreachable", "Check that the host is up and reachable over SSH from where Terraform runs, and the ssh settings."
	switch {
	case errors.Is(err, transport.ErrHostKeyMismatch), errors.Is(err, transport.ErrHostKeyRevoked):
		summary = "SSH Host Key Changed"
		advice = "The node presented a different host key than known_hosts (or host_keys) records, so the connection was " +
			"refused: this is what a man-in-the-middle looks like. If the node was reinstalled, verify its new key out of " +
			"band and update known_hosts."
	case errors.Is(err, transport.ErrUnknownHost):
		summary = "SSH Host Key Unknown"
		advice = "Add the node's key to known_hosts (ssh-keyscan, verified out of band) or pin it in ssh.host_keys."
	case errors.Is(err, transport.ErrAuth), errors.Is(err, transport.ErrPassphraseMissing), errors.Is(err, transport.ErrBadPassphrase):
		summary = "SSH Authentication Failed"
		advice = "Check the user, private key, passphrase or ssh-agent in the ssh block."
	case errors.Is(err, transport.ErrSudoPassword), errors.Is(err, transport.ErrSudoDenied):
		summary = "Sudo Refused"
		advice = "Grant the user passwordless sudo for the agent, or connect as root."
	case errors.Is(err, transport.ErrSpecInvalid):
		summary = "Agent Rejected The Spec"
		advice = "The agent on the node refused the items; its message follows."
	case errors.Is(err, transport.ErrConfig):
		summary = "Invalid SSH Settings"
		advice = "Fix the provider's or the resource's ssh block."
	case errors.Is(err, transport.ErrConnectionLost):
		summary = "SSH Connection Lost"
		advice = "The connection to the node dropped while the request was in flight, so it may have run in part. " +
			"Run terraform apply again: every step checks the node first and finishes what is left."
	case errors.Is(err, transport.ErrInterrupted):
		summary = "Node Agent Interrupted"
		advice = "The agent on the node ended while it was applying (killed, out of memory, the node going down), so the " +
			"change may have run in part. Run terraform apply again: every step checks the node first and finishes what is left."
	}
	diags.AddError(summary, fmt.Sprintf("Host %s: %s\n\nOriginal Error: %v", host, advice, err))
}

// failedItems lists the items the agent reported failed, "id: error; ...".
func failedItems(res *protocol.Result) string {
	if res == nil {
		return ""
	}
	var out []string
	for _, ir := range res.Items {
		if ir.Error != "" {
			out = append(out, ir.ID+": "+ir.Error)
		}
	}
	return strings.Join(out, "; ")
}
