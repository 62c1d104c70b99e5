package sim_test

import "testing"

// TestCephadmImage: cephadm's global --image before the subcommand, as
// the provider bootstraps a release other than Pacific; an image the lab
// does not know, or --image without a value, is refused.
func TestCephadmImage(t *testing.T) {
	l := newCephLab(t, 0, 0, false)
	boot := []string{"bootstrap", "--mon-ip", monIP, "--skip-dashboard", "--skip-monitoring-stack", "--ssh-user", "root",
		"--output-dir", "/etc/ceph"}
	l.refused("mon1", 1, "image quay.io/ceph/ceph:v15.2.17: not found", append([]string{"cephadm", "--image", "quay.io/ceph/ceph:v15.2.17"}, boot...)...)
	l.refused("mon1", 2, "argument --image: expected one argument", "cephadm", "--image")
	l.ok("mon1", append([]string{"cephadm", "--image=quay.io/ceph/ceph:v20.2.4"}, boot...)...)
	if l.read("mon1", "etc/ceph/ceph.client.admin.keyring") == "" {
		t.Fatal("no admin keyring after the bootstrap")
	}
}
