package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
)

// labSecrets starts an R1 lab with the hpcstorage-lab command and returns
// its folder, the endpoints' passwords by name and every other secret it
// handed out (BeeGFS connection secret, SSH private key).
func labSecrets(t *testing.T, env []string) (dir string, passwords map[string]string, secrets []string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "lab")
	cmd := exec.Command(labBinary(t), "up", "--design", "r1", "--dir", dir, "--clients", "1", "--detach")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hpcstorage-lab up: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(labBinary(t), "down", "--dir", dir).Run() })
	st, err := lab.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	envFile, err := os.ReadFile(filepath.Join(dir, lab.EnvFile))
	if err != nil {
		t.Fatal(err)
	}
	byEnv := map[string]string{}
	for _, l := range strings.Fields(string(envFile)) {
		k, v, _ := strings.Cut(l, "=")
		byEnv[k] = v
	}
	passwords = map[string]string{}
	for _, ep := range st.Endpoints {
		pw := byEnv[lab.PasswordEnv(ep.Name)]
		if len(pw) < 8 {
			t.Fatalf("%s: password %q", ep.Name, pw)
		}
		passwords[ep.Name] = pw
		secrets = append(secrets, pw)
	}
	conn, _ := os.ReadFile(filepath.Join(dir, lab.SecretFile))
	key, _ := os.ReadFile(filepath.Join(dir, lab.KeyFile))
	keyLines := strings.Split(strings.TrimSpace(string(key)), "\n")
	if len(strings.TrimSpace(string(conn))) < 16 || len(keyLines) < 3 {
		t.Fatalf("secret file %q, key %d lines", conn, len(keyLines))
	}
	// The key's first body line is specific to it.
	return dir, passwords, append(secrets, strings.TrimSpace(string(conn)), keyLines[1])
}

// tfCapture runs init, plan -out, show -json of the plan, apply of the plan
// and show -json of the state with TF_LOG=trace, and returns each artefact
// a secret could leak into: name -> content.
func tfCapture(t *testing.T, dir string, env []string) map[string]string {
	t.Helper()
	logPath := filepath.Join(dir, "trace.log")
	env = append(append([]string{}, env...), "TF_LOG=trace", "TF_LOG_PATH="+logPath)
	got := map[string]string{}
	for _, step := range [][]string{{"init", "-no-color"}, {"plan", "-no-color", "-out=tf.plan"}, {"show", "-json", "tf.plan"},
		{"apply", "-no-color", "tf.plan"}, {"show", "-json"}} {
		out, err := tfRun(t, dir, env, step...)
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(step, " "), err, tail(out, 60))
		}
		got["terraform "+strings.Join(step, " ")] = out
	}
	state, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	got["terraform.tfstate"] = string(state)
	log, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(log), "[TRACE]") {
		t.Fatalf("no trace log (%v)", err)
	}
	got["TF_LOG=trace log"] = string(log)
	var plan struct {
		ResourceChanges []json.RawMessage `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(got["terraform show -json tf.plan"]), &plan); err != nil || len(plan.ResourceChanges) == 0 {
		t.Fatalf("plan JSON without resource changes (%v)", err)
	}
	return got
}

func tail(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

func leaks(got map[string]string, secrets []string) []string {
	var found []string
	for where, content := range got {
		for _, s := range secrets {
			if strings.Contains(content, s) {
				found = append(found, where+" holds "+s[:4]+"...")
			}
		}
	}
	return found
}

// No lab secret (BMC and array passwords, the BeeGFS connection secret, the
// SSH key) is in the plan JSON, the state or a TF_LOG=trace log: for
// examples/r1 (passwords from the environment, any Terraform) and for
// ephemeral password variables (Terraform 1.10+). The same configuration
// with a plain sensitive variable shows the password in the plan, so the
// search finds what is there.
func TestNoSecretsInPlanStateOrLog(t *testing.T) {
	if testing.Short() {
		t.Skip("applies R1 to the lab")
	}
	env := ciEnv(t)
	if terraformMinor(t) < 10 {
		t.Skip("ephemeral variables need Terraform 1.10 or later")
	}
	labDir, passwords, secrets := labSecrets(t, env)

	t.Run("r1 with passwords from the environment", func(t *testing.T) {
		work := t.TempDir()
		for _, d := range []string{"r1", "modules"} {
			if err := os.CopyFS(filepath.Join(work, d), os.DirFS(filepath.Join("examples", d))); err != nil {
				t.Fatal(err)
			}
		}
		cfg := filepath.Join(work, "r1")
		if err := os.Symlink(filepath.Join(labDir, lab.TFVarsFile), filepath.Join(cfg, lab.TFVarsFile)); err != nil {
			t.Fatal(err)
		}
		e := append([]string{}, env...)
		for name, pw := range passwords {
			e = append(e, lab.PasswordEnv(name)+"="+pw)
		}
		if found := leaks(tfCapture(t, cfg, e), secrets); len(found) > 0 {
			t.Errorf("secrets leaked: %v", found)
		}
	})

	// Passwords in a variable: ephemeral, and (control) merely sensitive.
	config := func(ephemeral bool) string {
		return `
terraform {
  required_providers {
    hpcstorage = {
      source  = "hpcstorage/hpcstorage"
      version = "~> 0.1.0"
    }
  }
}

variable "lab" {
  type = object({
    ca_certificate = string
    endpoints      = map(object({ url = string, username = string }))
  })
}

variable "endpoint_passwords" {
  type      = map(string)
  sensitive = true
  ephemeral = ` + map[bool]string{true: "true", false: "false"}[ephemeral] + `
}

provider "hpcstorage" {
  endpoints = { for name, ep in var.lab.endpoints : name => {
    url            = ep.url
    username       = ep.username
    password       = var.endpoint_passwords[name]
    ca_certificate = var.lab.ca_certificate
  } }
}

resource "hpcstorage_server" "meta1" {
  endpoint    = "meta1-bmc"
  power_state = "On"
}

data "hpcstorage_drives" "me4024" {
  endpoint = "me4024-1"
}

output "drives" {
  value = length(data.hpcstorage_drives.me4024.drives)
}
`
	}
	pwJSON, _ := json.Marshal(passwords)
	for _, ephemeral := range []bool{true, false} {
		name := map[bool]string{true: "ephemeral variable", false: "sensitive variable (control)"}[ephemeral]
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			writeFiles(t, work, map[string]string{"main.tf": config(ephemeral)})
			if err := os.Symlink(filepath.Join(labDir, lab.TFVarsFile), filepath.Join(work, lab.TFVarsFile)); err != nil {
				t.Fatal(err)
			}
			got := tfCapture(t, work, append(append([]string{}, env...), "TF_VAR_endpoint_passwords="+string(pwJSON)))
			if !strings.Contains(got["terraform show -json"], `"drives"`) {
				t.Errorf("state JSON lacks the output: the provider did not read the array")
			}
			found := leaks(got, secrets)
			switch {
			case ephemeral && len(found) > 0:
				t.Errorf("secrets leaked: %v", found)
			case !ephemeral && !strings.Contains(got["terraform show -json tf.plan"], passwords["meta1-bmc"]):
				t.Errorf("control: a merely sensitive password variable is not in the plan JSON: the search is blind")
			}
		})
	}
}
