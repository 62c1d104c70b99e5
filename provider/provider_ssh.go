package provider

// The `ssh` block: how the provider reaches nodes. It is one schema, built
// from the table below into the provider block and the per-resource
// override blocks, and one parsed form (sshSettings) merged field by field.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// sshField kinds.
const (
	sshString = iota
	sshInt
	sshBool
	sshList
	sshDuration
)

// sshField is one attribute of the ssh block.
type sshField struct {
	name      string
	kind      int
	sensitive bool
	desc      string
	// providerOnly fields set pool-wide limits; bastion fields also exist
	// in the bastion block.
	providerOnly, bastion bool
}

var sshFields = []sshField{
	{name: "user", kind: sshString, bastion: true, desc: fmt.Sprintf("Login user. Default `%s`; a non-root user needs `sudo = true`.", transport.DefaultUser)},
	{name: "port", kind: sshInt, bastion: true, desc: fmt.Sprintf("SSH port. Default %d. A resource's `host` may also say `name:port`.", transport.DefaultPort)},
	{name: "private_key", kind: sshString, sensitive: true, bastion: true, desc: "Private key, PEM text (OpenSSH, PKCS#1/#8; ed25519, ECDSA or RSA). Sensitive."},
	{name: "private_key_file", kind: sshString, bastion: true, desc: "Path of a private key file, read on the machine running Terraform."},
	{name: "passphrase", kind: sshString, sensitive: true, bastion: true, desc: "Passphrase of an encrypted private key. Sensitive."},
	{name: "password", kind: sshString, sensitive: true, bastion: true, desc: "Password, tried after the key and ssh-agent. Sensitive."},
	{name: "use_agent", kind: sshBool, bastion: true, desc: "Ask ssh-agent (`SSH_AUTH_SOCK`) even when a key or password is set. Without key and password the agent is used whenever `SSH_AUTH_SOCK` is set, as ssh(1) does."},
	{name: "agent_socket", kind: sshString, desc: "ssh-agent socket. Default `$SSH_AUTH_SOCK`."},
	{name: "known_hosts_files", kind: sshList, bastion: true, desc: "known_hosts files to verify host keys against (`@cert-authority` lines included). Default `~/.ssh/known_hosts`. Host keys are always verified: an unknown host or a changed key is refused."},
	{name: "host_keys", kind: sshList, bastion: true, desc: "Pinned host keys (`ssh-ed25519 AAAA...`) or fingerprints (`SHA256:...`), used instead of known_hosts."},
	{name: "insecure_ignore_host_key", kind: sshBool, bastion: true, desc: "Accept any host key. For throwaway labs only; every use is logged as a warning. Off unless set."},
	{name: "sudo", kind: sshBool, desc: "Run the agent through `sudo -n` (never prompts: grant NOPASSWD, or log in as root)."},
	{name: "dial_timeout", kind: sshDuration, desc: fmt.Sprintf("TCP connect timeout, a Go duration (`10s`). Default `%s`.", transport.DefaultDialTimeout)},
	{name: "handshake_timeout", kind: sshDuration, desc: fmt.Sprintf("SSH handshake and authentication timeout. Default `%s`.", transport.DefaultHandshakeTimeout)},
	{name: "run_timeout", kind: sshDuration, desc: fmt.Sprintf("Timeout of one agent call (probe, upload, run). Default `%s`.", transport.DefaultRunTimeout)},
	{name: "keepalive_interval", kind: sshDuration, desc: fmt.Sprintf("Keepalive interval; a host missing %d in a row is dropped. Default `%s`.", transport.DefaultKeepaliveCountMax, transport.DefaultKeepaliveInterval)},
	{name: "agent_path", kind: sshString, desc: fmt.Sprintf("Where the hpcstorage agent is installed on nodes. Default `%s`. The provider uploads its own build there when the node's copy is missing or differs: over the node's sftp subsystem when `user` may write there (no `sudo`), through `sh` otherwise; the next run verifies it with `--expect-sha256`.", transport.DefaultAgentPath)},
	{name: "agent_preinstalled", kind: sshBool, desc: "Never upload the agent: use the one at `agent_path` as is (air-gapped sites that install it by package)."},
	{name: "max_parallel", kind: sshInt, providerOnly: true, desc: fmt.Sprintf("Agent calls in flight over all nodes, whatever Terraform's `-parallelism`. Default %d.", transport.DefaultMaxParallel)},
	{name: "max_per_host", kind: sshInt, providerOnly: true, desc: fmt.Sprintf("Agent calls in flight on one node (requests at once over its one agent session). Default %d.", transport.DefaultMaxPerHost)},
}

const sshBlockDesc = "How to reach nodes over SSH: one connection and one agent process (`hpcstorage-agent serve`) per node " +
	"per provider run, shared by every resource and data source on it; host keys are always verified. "

// sshProviderAttribute is the provider's `ssh` block.
func sshProviderAttribute() pschema.Attribute {
	attrs := map[string]pschema.Attribute{}
	for _, f := range sshFields {
		attrs[f.name] = providerSSHField(f)
	}
	battrs := map[string]pschema.Attribute{"host": pschema.StringAttribute{Required: true, MarkdownDescription: "Bastion host name or address (`name:port` accepted)."}}
	for _, f := range sshFields {
		if f.bastion {
			battrs[f.name] = providerSSHField(f)
		}
	}
	attrs["bastion"] = pschema.SingleNestedAttribute{Optional: true, Attributes: battrs,
		MarkdownDescription: "Jump host every node connection goes through, with its own authentication and host key."}
	return pschema.SingleNestedAttribute{
		Optional:            true,
		Attributes:          attrs,
		MarkdownDescription: sshBlockDesc + "Resources and data sources can override any of these in their own `ssh` block.",
	}
}

func providerSSHField(f sshField) pschema.Attribute {
	switch f.kind {
	case sshInt:
		return pschema.Int64Attribute{Optional: true, MarkdownDescription: f.desc, Validators: intValidators(f)}
	case sshBool:
		return pschema.BoolAttribute{Optional: true, MarkdownDescription: f.desc}
	case sshList:
		return pschema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: f.desc,
			Validators: []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))}}
	default:
		return pschema.StringAttribute{Optional: true, Sensitive: f.sensitive, MarkdownDescription: f.desc, Validators: stringValidators(f)}
	}
}

// sshResourceAttribute is the per-resource override block.
func sshResourceAttribute() rschema.Attribute {
	attrs := map[string]rschema.Attribute{}
	for _, f := range sshFields {
		if !f.providerOnly {
			attrs[f.name] = resourceSSHField(f)
		}
	}
	battrs := map[string]rschema.Attribute{"host": rschema.StringAttribute{Required: true, MarkdownDescription: "Bastion host name or address (`name:port` accepted)."}}
	for _, f := range sshFields {
		if f.bastion {
			battrs[f.name] = resourceSSHField(f)
		}
	}
	attrs["bastion"] = rschema.SingleNestedAttribute{Optional: true, Attributes: battrs, MarkdownDescription: "Jump host for this node."}
	return rschema.SingleNestedAttribute{Optional: true, Attributes: attrs,
		MarkdownDescription: "Overrides of the provider's `ssh` block for this node; unset attributes keep the provider's values."}
}

func resourceSSHField(f sshField) rschema.Attribute {
	switch f.kind {
	case sshInt:
		return rschema.Int64Attribute{Optional: true, MarkdownDescription: f.desc, Validators: intValidators(f)}
	case sshBool:
		return rschema.BoolAttribute{Optional: true, MarkdownDescription: f.desc}
	case sshList:
		return rschema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: f.desc}
	default:
		return rschema.StringAttribute{Optional: true, Sensitive: f.sensitive, MarkdownDescription: f.desc, Validators: stringValidators(f)}
	}
}

// sshDataSourceAttribute is the override block of data sources.
func sshDataSourceAttribute() dschema.Attribute {
	attrs := map[string]dschema.Attribute{}
	for _, f := range sshFields {
		if f.providerOnly {
			continue
		}
		switch f.kind {
		case sshInt:
			attrs[f.name] = dschema.Int64Attribute{Optional: true, MarkdownDescription: f.desc, Validators: intValidators(f)}
		case sshBool:
			attrs[f.name] = dschema.BoolAttribute{Optional: true, MarkdownDescription: f.desc}
		case sshList:
			attrs[f.name] = dschema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: f.desc}
		default:
			attrs[f.name] = dschema.StringAttribute{Optional: true, Sensitive: f.sensitive, MarkdownDescription: f.desc, Validators: stringValidators(f)}
		}
	}
	return dschema.SingleNestedAttribute{Optional: true, Attributes: attrs,
		MarkdownDescription: "Overrides of the provider's `ssh` block for this node (no bastion override here: use the provider's)."}
}

func intValidators(f sshField) []validator.Int64 {
	if f.name == "port" {
		return []validator.Int64{int64validator.Between(1, 65535)}
	}
	return []validator.Int64{int64validator.Between(1, 4096)}
}

func stringValidators(f sshField) []validator.String {
	v := []validator.String{stringvalidator.LengthAtLeast(1)}
	if f.kind == sshDuration {
		v = append(v, durationValidator{})
	}
	return v
}

// shortDuration prints d as a user writes it: 2h, 30m, 10s (not 2h0m0s).
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// durationValidator accepts Go durations ("30s", "2m"), within min and max
// where they are set.
type durationValidator struct{ min, max time.Duration }

func (v durationValidator) Description(context.Context) string {
	if v.max > 0 {
		return fmt.Sprintf("a Go duration such as 30s or 2m, from %s to %s", shortDuration(v.min), shortDuration(v.max))
	}
	return "a positive Go duration such as 30s or 2m"
}
func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v durationValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d <= 0 || d < v.min || (v.max > 0 && d > v.max) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration",
			fmt.Sprintf("Attribute %s: %q is not %s.", req.Path, req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}

// sshSettings is a parsed ssh block; nil fields are unset.
type sshSettings struct {
	strs    map[string]string
	ints    map[string]int
	bools   map[string]bool
	lists   map[string][]string
	durs    map[string]time.Duration
	bastion *sshBastion
}

type sshBastion struct {
	host string
	sshSettings
}

// parseSSH reads an ssh block (provider, resource or data source flavour:
// it reads attributes by name). Unknown values are left unset.
func parseSSH(obj types.Object, at path.Path, diags *diag.Diagnostics) sshSettings {
	s := sshSettings{strs: map[string]string{}, ints: map[string]int{}, bools: map[string]bool{},
		lists: map[string][]string{}, durs: map[string]time.Duration{}}
	if obj.IsNull() || obj.IsUnknown() {
		return s
	}
	attrs := obj.Attributes()
	for _, f := range sshFields {
		v, ok := attrs[f.name]
		if !ok || v.IsNull() || v.IsUnknown() {
			continue
		}
		switch f.kind {
		case sshString:
			s.strs[f.name] = v.(basetypes.StringValue).ValueString()
		case sshInt:
			s.ints[f.name] = int(v.(basetypes.Int64Value).ValueInt64())
		case sshBool:
			s.bools[f.name] = v.(basetypes.BoolValue).ValueBool()
		case sshList:
			var l []string
			for _, e := range v.(basetypes.ListValue).Elements() {
				if sv, ok := e.(basetypes.StringValue); ok && !sv.IsNull() && !sv.IsUnknown() {
					l = append(l, sv.ValueString())
				}
			}
			s.lists[f.name] = l
		case sshDuration:
			d, err := time.ParseDuration(v.(basetypes.StringValue).ValueString())
			if err != nil {
				addError(diags, at.AtName(f.name), "Invalid Duration", "Use a Go duration such as 30s or 2m.", err)
				continue
			}
			s.durs[f.name] = d
		}
	}
	if b, ok := attrs["bastion"].(basetypes.ObjectValue); ok && !b.IsNull() && !b.IsUnknown() {
		battrs := b.Attributes()
		bs := &sshBastion{sshSettings: parseSSH(b, at.AtName("bastion"), diags)}
		if h, ok := battrs["host"].(basetypes.StringValue); ok {
			bs.host = h.ValueString()
		}
		s.bastion = bs
	}
	return s
}

// merge returns base with every field set in over replacing it.
func (base sshSettings) merge(over sshSettings) sshSettings {
	out := sshSettings{strs: map[string]string{}, ints: map[string]int{}, bools: map[string]bool{},
		lists: map[string][]string{}, durs: map[string]time.Duration{}, bastion: base.bastion}
	for _, m := range []sshSettings{base, over} {
		for k, v := range m.strs {
			out.strs[k] = v
		}
		for k, v := range m.ints {
			out.ints[k] = v
		}
		for k, v := range m.bools {
			out.bools[k] = v
		}
		for k, v := range m.lists {
			out.lists[k] = v
		}
		for k, v := range m.durs {
			out.durs[k] = v
		}
	}
	if over.bastion != nil {
		out.bastion = over.bastion
	}
	return out
}

// options fills transport options for host ("name", "name:port",
// "[v6addr]:port").
func (s sshSettings) options(host string) transport.Options {
	o := transport.Options{
		User:                  s.strs["user"],
		Port:                  s.ints["port"],
		PrivateKey:            s.strs["private_key"],
		PrivateKeyFile:        s.strs["private_key_file"],
		Passphrase:            s.strs["passphrase"],
		Password:              s.strs["password"],
		UseAgent:              s.bools["use_agent"],
		AgentSocket:           s.strs["agent_socket"],
		KnownHostsFiles:       slices.Clone(s.lists["known_hosts_files"]),
		HostKeys:              s.lists["host_keys"],
		InsecureIgnoreHostKey: s.bools["insecure_ignore_host_key"],
		Sudo:                  s.bools["sudo"],
		DialTimeout:           s.durs["dial_timeout"],
		HandshakeTimeout:      s.durs["handshake_timeout"],
		RunTimeout:            s.durs["run_timeout"],
		KeepaliveInterval:     s.durs["keepalive_interval"],
		AgentPath:             s.strs["agent_path"],
		AgentPreinstalled:     s.bools["agent_preinstalled"],
	}
	o.PrivateKeyFile = expandHome(o.PrivateKeyFile)
	for i, f := range o.KnownHostsFiles {
		o.KnownHostsFiles[i] = expandHome(f)
	}
	o.Host, o.Port = splitHostPort(host, o.Port)
	if s.bastion != nil {
		b := s.bastion.options(s.bastion.host)
		b.DialTimeout, b.HandshakeTimeout = o.DialTimeout, o.HandshakeTimeout
		o.Bastion = &b
	}
	return o
}

// splitHostPort accepts a port in the host ("node01:2222"); a bare name or
// IPv6 address keeps def.
func splitHostPort(host string, def int) (string, int) {
	if h, p, err := net.SplitHostPort(host); err == nil {
		if n, err := strconv.Atoi(p); err == nil && n > 0 && n < 65536 {
			return h, n
		}
	}
	return strings.Trim(host, "[]"), def
}

// nodeAccess is what resources and data sources use to reach nodes: the
// provider's SSH defaults, the process-wide pool, and the keys planned per
// host during this run (to refuse two resources owning one key).
type nodeAccess struct {
	pool     *transport.Pool
	defaults sshSettings
	claims   *claimRegistry
	// deferred: the ssh block holds values not known until apply, so
	// plan-time node checks wait for them.
	deferred bool
	// secretAsks counts, per secret (its sha256), the plans that needed to
	// know whether it changed (node_service.go, sharedSecret).
	secretAsks sync.Map
}

// options are the connection settings for host: the provider's ssh block
// with the resource's own ssh block over it.
func (n *nodeAccess) options(host string, override types.Object, diags *diag.Diagnostics) transport.Options {
	return n.defaults.merge(parseSSH(override, path.Root("ssh"), diags)).options(host)
}

// agentResult unpacks a transport answer. An agent that ran and reported
// failed items (exit 2) still yields its result; any other failure becomes
// a diagnostic naming the host and is returned.
func agentResult(host string, out *transport.Response, err error, diags *diag.Diagnostics) (*protocol.Result, error) {
	var res *protocol.Result
	if out != nil {
		res = out.Result
	}
	if err != nil && !(errors.Is(err, transport.ErrItemFailed) && res != nil) {
		addNodeError(diags, host, err)
		return res, err
	}
	return res, nil
}

// sshAgentSource overrides the agent builds shipped to nodes. Nil means
// the builds embedded in the provider; tests set a fresh build of ./agent.
var sshAgentSource transport.AgentSource

// sshPools holds one pool per provider instance: Terraform configures a
// provider once per operation of a run, and the connections (and what
// they learnt about the agent on each node) should survive that.
var sshPools sync.Map // *hpcstorageProvider -> *transport.Pool

// CloseNodes closes every SSH pool of this process: each node's agent
// session sees the end of its requests and exits. The provider's main
// calls it when the plugin server stops.
func CloseNodes() {
	sshPools.Range(func(k, v any) bool {
		_ = v.(*transport.Pool).Close()
		sshPools.Delete(k)
		return true
	})
}

// KeeperArg, as the only argument, makes the provider binary a session
// keeper (transport.RunKeeper): the process that holds each node's SSH
// connection and agent session for all provider processes of one
// Terraform command.
const KeeperArg = "hpcstorage-session-keeper"

// sessionKeeper is set when this process can start keepers: the provider
// binary (EnableSessionKeepers), not a provider served inside a test.
var sessionKeeper atomic.Pointer[transport.KeeperConfig]

// RunSessionKeeper is the keeper's main; its exit code.
func RunSessionKeeper() int {
	return transport.RunKeeper(os.Stdin, os.Stdout, transport.PoolOptions{Agent: sshAgentSource})
}

// EnableSessionKeepers lets this process share node sessions through
// keepers started from its own binary; HPCSTORAGE_SESSION_KEEPER=off
// keeps every provider process on its own connections.
func EnableSessionKeepers(build string) {
	if strings.EqualFold(os.Getenv("HPCSTORAGE_SESSION_KEEPER"), "off") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return
	}
	sessionKeeper.Store(&transport.KeeperConfig{
		Command: func() *exec.Cmd {
			cmd := exec.Command(exe, KeeperArg)
			// Not the provider's environment (endpoint passwords, Terraform's
			// plugin settings): the keeper gets its settings on stdin.
			cmd.Env = []string{}
			for _, k := range []string{"PATH", "HOME", "TMPDIR", "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK"} {
				if v, ok := os.LookupEnv(k); ok {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
			}
			return cmd
		},
		// Another build of the provider (an upgrade, a rebuilt binary)
		// never talks to this one's keepers.
		Build: fmt.Sprintf("%s %s %d %d", build, exe, fi.Size(), fi.ModTime().UnixNano()),
	})
}

// configureNodes parses the provider's ssh block into the access bundle.
func (p *hpcstorageProvider) configureNodes(_ context.Context, cfg types.Object, diags *diag.Diagnostics) *nodeAccess {
	s := parseSSH(cfg, path.Root("ssh"), diags)
	opts := transport.PoolOptions{MaxParallel: s.ints["max_parallel"], MaxPerHost: s.ints["max_per_host"], Agent: sshAgentSource,
		Keeper: sessionKeeper.Load()}
	pool, _ := sshPools.LoadOrStore(p, transport.NewPool(opts))
	_, known := attrToGo(cfg)
	return &nodeAccess{pool: pool.(*transport.Pool), defaults: s, claims: newClaimRegistry(), deferred: !known}
}

// claimRegistry maps host -> item id -> owner for the resources planned
// in one run.
type claimRegistry struct {
	mu     sync.Mutex
	keys   map[string]map[string]string
	owners map[string]string // host/owner -> spec planned for it
}

func newClaimRegistry() *claimRegistry {
	return &claimRegistry{keys: map[string]map[string]string{}, owners: map[string]string{}}
}

// owner records the spec planned for host/owner and reports whether
// another, different spec was planned for it in this run: two resources
// sharing an owner would revert each other's items on every apply.
func (r *claimRegistry) owner(host, owner, spec string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := host + "/" + owner
	if prev, ok := r.owners[k]; ok && prev != spec {
		return true
	}
	r.owners[k] = spec
	return false
}

// claim records owner's ids on host; it returns, per id, the other owner
// that already planned it.
func (r *claimRegistry) claim(host, owner string, ids []string) map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.keys[host]
	if h == nil {
		h = map[string]string{}
		r.keys[host] = h
	}
	clash := map[string]string{}
	for _, id := range ids {
		if other, ok := h[id]; ok && other != owner {
			clash[id] = other
			continue
		}
		h[id] = owner
	}
	return clash
}

// expandHome resolves a leading ~/ as ssh(1) does.
func expandHome(p string) string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, rest)
}
