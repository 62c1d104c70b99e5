package transport

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// ShellQuote must survive a real POSIX shell, whatever the string.
func TestShellQuote(t *testing.T) {
	sh := testenv.NeedTool(t, "sh", "dash")
	for _, s := range []string{"plain", "", "with space", "it's", `a"b`, "$HOME", "`id`", "a\nb", "semi;colon", "/var/lib/x y/'z'", "*", "back\\slash"} {
		out, err := exec.Command(sh, "-c", "printf %s "+ShellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("ShellQuote(%q) = %s; sh printed %q (%v)", s, ShellQuote(s), out, err)
		}
	}
}

func TestParseProbe(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tests := []struct {
		name     string
		out      string
		arch     string
		sum      string
		wantErr  error
		anyError bool
	}{
		{name: "present", out: "x86_64\n" + sum + "  /p\n", arch: "amd64", sum: sum},
		{name: "absent", out: "aarch64\nabsent\n", arch: "arm64"},
		{name: "login noise first", out: "Welcome!\n\nx86_64\nabsent\n", arch: "amd64"},
		{name: "unknown arch", out: "riscv64\nabsent\n", wantErr: ErrUnsupportedArch},
		{name: "garbage sum", out: "x86_64\nnot-a-sum  /p\n", anyError: true},
		{name: "short", out: "x86_64\n", anyError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arch, s, err := parseProbe([]byte(tt.out))
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			case tt.anyError:
				if err == nil {
					t.Fatalf("parseProbe(%q) accepted", tt.out)
				}
			default:
				if err != nil || arch != tt.arch || s != tt.sum {
					t.Fatalf("parseProbe = %q %q %v, want %q %q", arch, s, err, tt.arch, tt.sum)
				}
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	for _, out := range []string{
		`{"apiVersion":"hpcstorage/v1","owner":"o","changed":true}`,
		"pyenv: warning\nmore noise\n{\"apiVersion\":\"hpcstorage/v1\",\"owner\":\"o\",\"changed\":true}\n",
		"{\n  \"apiVersion\": \"hpcstorage/v1\",\n  \"owner\": \"o\",\n  \"changed\": true\n}\n",
	} {
		var r protocol.Result
		if err := decodeJSON([]byte(out), &r); err != nil || r.Owner != "o" || !r.Changed {
			t.Errorf("decodeJSON(%q) = %+v, %v", out, r, err)
		}
	}
	var r protocol.Result
	if err := decodeJSON([]byte("no json here\n"), &r); err == nil {
		t.Error("decodeJSON accepted text")
	}
}

// The commands the transport sends, as the lab and OpenSSH see them.
func TestCommands(t *testing.T) {
	const p = "/var/lib/hpcstorage-agent/bin/hpcstorage-agent"
	tests := []struct{ got, want string }{
		{ProbeCommand(p, false), `sh -c 'uname -m; sha256sum /var/lib/hpcstorage-agent/bin/hpcstorage-agent 2>/dev/null || echo absent'`},
		{ProbeCommand("/opt/my agent", true), `sudo -n sh -c 'uname -m; sha256sum '\''/opt/my agent'\'' 2>/dev/null || echo absent'`},
		{AgentCommand(p, true, ApplyArgs(Request{Check: true, Root: "/srv/root"})...), "sudo -n " + p + " apply -f - --output json --check --root /srv/root"},
		{UploadCommand("/a/b", "x1", false), `sh -c 'mkdir -p /a && cat > /a/b.tmp-x1 && chmod 0755 /a/b.tmp-x1 && mv -f /a/b.tmp-x1 /a/b && sha256sum /a/b || { rm -f /a/b.tmp-x1; exit 1; }'`},
		{UploadGzipCommand("/a/b", "x1", true), `sudo -n sh -c 'mkdir -p /a && gzip -dc > /a/b.tmp-x1 && chmod 0755 /a/b.tmp-x1 && mv -f /a/b.tmp-x1 /a/b && sha256sum /a/b || { rm -f /a/b.tmp-x1; exit 1; }'`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got  %s\nwant %s", tt.got, tt.want)
		}
	}
}

func TestOptionsNeverPrintSecrets(t *testing.T) {
	o := Options{Host: "n1", PrivateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEY", Passphrase: "SECRETPASS", Password: "SECRETPW",
		Bastion: &Options{Host: "jump", Password: "SECRETJUMP"}}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{o, &o} {
			out := fmt.Sprintf(f, v)
			if strings.Contains(out, "SECRET") || !strings.Contains(out, "n1") || !strings.Contains(out, "jump") {
				t.Errorf("Sprintf(%q) = %s", f, out)
			}
		}
	}
}
