package protocol

import "testing"

func TestOSReleasePlatform(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"rhel7", "NAME=\"Red Hat Enterprise Linux Server\"\nID=\"rhel\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"7.6\"\n", "el7"},
		{"rhel8", "ID=\"rhel\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"8.4\"\nPLATFORM_ID=\"platform:el8\"\n", "el8"},
		{"rocky9", "NAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"9.4\"\nPLATFORM_ID=\"platform:el9\"\n", "el9"},
		{"alma9-no-platform", "ID=almalinux\nID_LIKE='rhel centos fedora'\nVERSION_ID=9.3\n", "el9"},
		{"fedora", "ID=fedora\nVERSION_ID=40\nPLATFORM_ID=\"platform:f40\"\n", "f40"},
		{"fedora-no-platform", "ID=fedora\nVERSION_ID=40\n", ""},
		{"ubuntu", "ID=ubuntu\nID_LIKE=debian\nVERSION_ID=\"22.04\"\n", ""},
		{"empty", "", ""},
	}
	for _, c := range cases {
		if got := ParseOSRelease([]byte(c.file)).Platform(); got != c.want {
			t.Errorf("%s: platform %q, want %q", c.name, got, c.want)
		}
	}
}
