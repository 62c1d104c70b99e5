package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/secret"
)

// TestBeegfsClientsSharedSecret: more clients than hashSecretAfter hold one
// secret (from one file, as a site's clients do), so past that many the
// plan compares the secret's hash instead of asking each node. The no-op
// plan stays empty, and a new secret in the file still plans an update,
// with the new hash, on every client.
func TestBeegfsClientsSharedSecret(t *testing.T) {
	const clients = hashSecretAfter + 4
	r := startR1Lab(t, clients)
	var hosts []string
	for i := 1; i <= clients; i++ {
		hosts = append(hosts, fmt.Sprintf("%q", r.node(lab.ClientName(i, clients)).Host))
	}
	file := filepath.Join(t.TempDir(), "connauth")
	write := func(secret string) {
		if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(testSecret)
	conf := r.providerBlock() + fmt.Sprintf(`
resource "hpcstorage_beegfs_client" "c" {
  count            = %d
  host             = [%s][count.index]
  mgmtd_host       = "meta1"
  conn_auth_secret_file = %q
}
`, clients, strings.Join(hosts, ", "), file)
	var updated, hashed []plancheck.PlanCheck
	var stored []statecheck.StateCheck
	for i := 1; i <= clients; i++ {
		addr := fmt.Sprintf("hpcstorage_beegfs_client.c[%d]", i-1)
		updated = append(updated, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate))
		hashed = append(hashed, plancheck.ExpectKnownValue(addr, tfjsonpath.New("conn_auth_secret_hash"), knownvalue.StringExact(secret.Hash(newSecret))))
		stored = append(stored, statecheck.ExpectKnownValue(addr, tfjsonpath.New("conn_auth_secret_hash"), knownvalue.StringExact(secret.Hash(newSecret))))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: nodeProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				PreConfig: func() { write(newSecret) },
				Config:    conf,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             append(updated, hashed...),
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: stored,
			},
		},
	})
}
