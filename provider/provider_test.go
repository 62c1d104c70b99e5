package provider

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/testenv"
)

// protoV6ProviderFactories serves the provider in-process to the real terraform CLI.
var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"hpcstorage": providerserver.NewProtocol6WithError(New("test")()),
}

// TestProviderServes runs the real terraform CLI against the provider over
// protocol 6: plan and apply of a configuration that only configures it.
func TestProviderServes(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)},
		Steps: []resource.TestStep{{
			Config: `provider "hpcstorage" {}
output "ok" { value = "served" }`,
			Check: resource.TestCheckOutput("ok", "served"),
		}},
	})
}

// terraformCLI is the CLI the acceptance harness uses: TF_ACC_TERRAFORM_PATH
// (the Makefile's fallback build), else terraform on PATH.
func terraformCLI(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		testenv.Missing(tb, "no terraform CLI: set TF_ACC_TERRAFORM_PATH or put terraform on PATH (make test does)")
	}
	return p
}

// labEnv reads the lab's endpoint passwords (lab.env), the variables a
// user or CI job exports before running Terraform.
func labEnv(tb testing.TB, labDir string) map[string]string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(labDir, lab.EnvFile))
	if err != nil {
		tb.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	return env
}

// setLabEnv exports them, for providers Terraform starts (they inherit
// this process's environment).
func setLabEnv(tb testing.TB, labDir string) {
	tb.Helper()
	for k, v := range labEnv(tb, labDir) {
		tb.Setenv(k, v)
	}
}

// copyExample copies examples/<name> and the modules it uses into
// dir/examples (no state lands in the source tree) and links the lab's
// variables (lab in dir/lab) into it; it returns the configuration's folder.
func copyExample(t testing.TB, dir, name string, modules ...string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	examples := filepath.Join(filepath.Dir(file), "..", "examples")
	for _, d := range append([]string{name}, modules...) {
		if err := os.CopyFS(filepath.Join(dir, "examples", d), os.DirFS(filepath.Join(examples, d))); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "examples", name)
	if err := os.Symlink(filepath.Join(dir, "lab", lab.TFVarsFile), filepath.Join(cfg, lab.TFVarsFile)); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// labTerraform is the real Terraform CLI on the configuration in cfg,
// with the provider served in this process for the lab in dir/lab (its
// lab.env), an empty CLI configuration and no checkpoint calls.
func labTerraform(t *testing.T, tfPath, dir, cfg string) (*tfexec.Terraform, tfexec.ReattachInfo) {
	t.Helper()
	ri := serveAs(t, "registry.terraform.io/hpcstorage/hpcstorage", labEnv(t, filepath.Join(dir, "lab")))
	tf, err := tfexec.NewTerraform(cfg, tfPath)
	if err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, "empty.tfrc")
	if err := os.WriteFile(rc, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tf.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1", "TF_CLI_CONFIG_FILE": rc})
	return tf, ri
}

// exampleLab is a design's lab with an example copied beside it and
// applied with the real CLI (extra files, by name, join the example
// first): what the module and day-2 tests start from.
type exampleLab struct {
	lab    *lab.Lab
	labDir string
	dir    string // the test folder: lab/, examples/, the CLI config
	cfg    string // the example's folder
	tf     *tfexec.Terraform
	ri     tfexec.ReattachInfo
}

func applyExample(t *testing.T, tfPath string, c lab.Config, extra map[string]string, example string, modules ...string) *exampleLab {
	t.Helper()
	e := &exampleLab{dir: t.TempDir()}
	e.labDir = filepath.Join(e.dir, "lab")
	c.Dir = e.labDir
	l, err := lab.Up(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	e.lab = l
	e.cfg = copyExample(t, e.dir, example, modules...)
	for name, body := range extra {
		if err := os.WriteFile(filepath.Join(e.cfg, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.tf, e.ri = labTerraform(t, tfPath, e.dir, e.cfg)
	ctx := context.Background()
	if err := e.tf.Init(ctx, tfexec.Reattach(e.ri)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := e.tf.Apply(ctx, tfexec.Reattach(e.ri)); err != nil {
		t.Fatalf("apply: %v", err)
	}
	t.Logf("%s apply: %s", example, time.Since(start).Round(time.Second))
	return e
}
