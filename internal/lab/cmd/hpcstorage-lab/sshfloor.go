package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshFloor is the fleet's physical floor: every host answering `true` over
// a fresh SSH connection (TCP connect, handshake, key login, one exec),
// with the client library the transport uses (golang.org/x/crypto/ssh),
// the same key, the same pinned host key and the same fan-out. A no-op
// converge cannot cost less than this; agent_noop_s / ssh_floor_s is what
// the agent adds on top (its process, the check, the results).
func (e fleetEnv) sshFloor(ctx context.Context, hostKey string, fanout int) (time.Duration, error) {
	keyPEM, err := os.ReadFile(e.options(1, hostKey).PrivateKeyFile)
	if err != nil {
		return 0, err
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		return 0, err
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(hostKey))
	if err != nil {
		return 0, fmt.Errorf("host key %q: %w", hostKey, err)
	}
	cfg := &ssh.ClientConfig{
		User:              "root",
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback:   ssh.FixedHostKey(pub),
		HostKeyAlgorithms: []string{pub.Type()},
		Timeout:           30 * time.Second,
	}
	one := func(i int) error {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(e.basePort+i))
		var d net.Dialer
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		sc, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
		if err != nil {
			nc.Close()
			return err
		}
		c := ssh.NewClient(sc, chans, reqs)
		defer c.Close()
		s, err := c.NewSession()
		if err != nil {
			return err
		}
		defer s.Close()
		return s.Run("true")
	}
	sem := make(chan struct{}, fanout)
	errs := make([]error, e.n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 1; i <= e.n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i-1] = one(i)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	for i, err := range errs {
		if err != nil {
			return wall, fmt.Errorf("ssh h%d true: %w", i+1, err)
		}
	}
	return wall, nil
}
