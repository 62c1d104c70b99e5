package fakenode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ClusterUnits are the units the pacemaker-cluster packages (corosync,
// pacemaker) install on a RHEL node.
var ClusterUnits = []string{"corosync.service", "pacemaker.service"}

// InstallUnits adds unit files to a seeded rpm root, as installing their
// packages does, and counts them as loaded (the manager's last load is
// moved past them, as at boot).
func InstallUnits(dir string, units ...string) error {
	for _, u := range units {
		desc := strings.TrimSuffix(u, ".service")
		p := filepath.Join(dir, "usr/lib/systemd/system", u)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("install units: %w", err)
		}
		body := fmt.Sprintf("[Unit]\nDescription=%s\n\n[Service]\nExecStart=/usr/sbin/%s\n\n[Install]\nWantedBy=multi-user.target\n", desc, desc)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return fmt.Errorf("install units: %w", err)
		}
	}
	stamp := filepath.Join(dir, "run/hpcstorage-sim/daemon-reload")
	now := time.Now().Add(time.Second)
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		return fmt.Errorf("install units: %w", err)
	}
	return os.Chtimes(stamp, now, now)
}
