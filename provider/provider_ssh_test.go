package provider

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/transport"
)

// sshObject builds an ssh block value of the provider schema's type from
// the attributes given (the rest null).
func sshObject(t *testing.T, set map[string]attr.Value) types.Object {
	t.Helper()
	ot := sshProviderAttribute().GetType().(basetypes.ObjectType)
	vals := map[string]attr.Value{}
	for name, at := range ot.AttrTypes {
		if v, ok := set[name]; ok {
			vals[name] = v
			continue
		}
		v, err := goToAttr(at, nil, name)
		if err != nil {
			t.Fatal(err)
		}
		vals[name] = v
	}
	obj, d := types.ObjectValue(ot.AttrTypes, vals)
	if d.HasError() {
		t.Fatal(d)
	}
	return obj
}

func TestSSHSettings(t *testing.T) {
	home, _ := os.UserHomeDir()
	list := func(s ...string) attr.Value {
		var el []attr.Value
		for _, x := range s {
			el = append(el, types.StringValue(x))
		}
		return types.ListValueMust(types.StringType, el)
	}
	provider := sshObject(t, map[string]attr.Value{
		"user":              types.StringValue("admin"),
		"sudo":              types.BoolValue(true),
		"private_key_file":  types.StringValue("~/.ssh/id_ed25519"),
		"known_hosts_files": list("/etc/ssh/ssh_known_hosts"),
		"run_timeout":       types.StringValue("2m"),
		"max_parallel":      types.Int64Value(16),
	})
	tests := []struct {
		name string
		host string
		over map[string]attr.Value
		want transport.Options
	}{
		{"provider defaults", "stor01", nil, transport.Options{Host: "stor01", User: "admin", Sudo: true,
			PrivateKeyFile: filepath.Join(home, ".ssh/id_ed25519"), KnownHostsFiles: []string{"/etc/ssh/ssh_known_hosts"}, RunTimeout: 2 * time.Minute}},
		{"port in host, override user and keys", "10.0.0.5:2222", map[string]attr.Value{
			"user": types.StringValue("root"), "host_keys": list("SHA256:abc"), "sudo": types.BoolValue(false),
		}, transport.Options{Host: "10.0.0.5", Port: 2222, User: "root", PrivateKeyFile: filepath.Join(home, ".ssh/id_ed25519"),
			KnownHostsFiles: []string{"/etc/ssh/ssh_known_hosts"}, HostKeys: []string{"SHA256:abc"}, RunTimeout: 2 * time.Minute}},
		{"ipv6", "[fd00::5]:22", nil, transport.Options{Host: "fd00::5", Port: 22, User: "admin", Sudo: true,
			PrivateKeyFile: filepath.Join(home, ".ssh/id_ed25519"), KnownHostsFiles: []string{"/etc/ssh/ssh_known_hosts"}, RunTimeout: 2 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diags diag.Diagnostics
			base := parseSSH(provider, path.Root("ssh"), &diags)
			over := parseSSH(sshObject(t, tt.over), path.Root("ssh"), &diags)
			if diags.HasError() {
				t.Fatal(diags)
			}
			got := base.merge(over).options(tt.host)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if base.ints["max_parallel"] != 16 {
				t.Errorf("max_parallel %d", base.ints["max_parallel"])
			}
		})
	}
}

func TestSSHSecretsAreSensitive(t *testing.T) {
	a := sshProviderAttribute().(pschema.SingleNestedAttribute)
	for _, name := range []string{"private_key", "passphrase", "password"} {
		if !a.Attributes[name].IsSensitive() {
			t.Errorf("provider ssh.%s is not Sensitive", name)
		}
		if !a.Attributes["bastion"].(pschema.SingleNestedAttribute).Attributes[name].IsSensitive() {
			t.Errorf("provider ssh.bastion.%s is not Sensitive", name)
		}
	}
	r := sshResourceAttribute().GetType().(basetypes.ObjectType)
	if _, ok := r.AttrTypes["max_parallel"]; ok {
		t.Error("pool limits are provider-wide, not per resource")
	}
}

func TestClaimRegistry(t *testing.T) {
	r := newClaimRegistry()
	if c := r.claim("n1", "a", []string{"sysctl:vm.x", "thp"}); len(c) != 0 {
		t.Fatal(c)
	}
	if c := r.claim("n1", "a", []string{"sysctl:vm.x"}); len(c) != 0 {
		t.Error("the same owner planned twice clashed with itself")
	}
	if c := r.claim("n2", "b", []string{"thp"}); len(c) != 0 {
		t.Error("another host clashed")
	}
	if d := cmp.Diff(map[string]string{"thp": "a"}, r.claim("n1", "b", []string{"thp", "sysctl:vm.y"})); d != "" {
		t.Error(d)
	}
}
