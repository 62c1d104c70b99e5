package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/realnode"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// labUpAny is `up`: with --real it boots real nodes (upReal), otherwise
// the simulated lab (labUp).
func labUpAny(args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "--real" || a == "-real" || a == "--real=true" || a == "-real=true" {
			return upReal(args, stdout, stderr)
		}
	}
	return labUp(args, stdout, stderr)
}

// upReal: up --real --dir DIR (--nodes N | --design rN) [--disks K]
// [--disk-size S] [--cache DIR] [--detach]. Nodes are systemd-nspawn
// containers (internal/lab/realnode); a design's servers get its mock BMCs,
// whose resets power their containers, served on the lab's bridge so the
// nodes reach them too (fence_redfish).
func upReal(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("up --real", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("real", true, "boot real Debian 12 nodes (systemd-nspawn) instead of simulated ones")
	design := fs.String("design", "", "reference design whose servers become real nodes with mock BMCs: "+strings.Join(redfishmock.Designs(), ", "))
	nodes := fs.Int("nodes", 0, "without --design: this many nodes node1..nodeN (no BMCs)")
	dir := fs.String("dir", "", "lab folder (created): lab.json, lab.auto.tfvars.json, lab.env, keys, real-nodes/")
	disks := fs.Int("disks", 1, "shared loop-device disks bound into every node")
	diskSize := fs.String("disk-size", "1GB", "size of each shared disk")
	cache := fs.String("cache", realnode.DefaultCacheDir(), "node image cache folder")
	detach := fs.Bool("detach", false, "run in the background and return once the nodes are up")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" || (*design == "") == (*nodes == 0) {
		return errors.New("--dir and one of --design or --nodes are required")
	}
	if *nodes < 0 || *nodes > 64 || *disks < 0 || *disks > 16 {
		return errors.New("--nodes: 1 to 64, --disks: 0 to 16")
	}
	size, err := parseSize(*diskSize)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The image first, here: the background lab must not spend its start
	// deadline on a build.
	img, err := realnode.EnsureImage(ctx, realnode.ImageConfig{CacheDir: *cache, Log: stderr})
	if err != nil {
		return err
	}
	if img.Built {
		fmt.Fprintf(stderr, "node image built in %s: %s\n", img.Took.Round(time.Second), img.Rootfs)
	}
	if *detach {
		return upDetached(*dir, args, stdout, 2*time.Minute)
	}
	var d *redfishmock.Design
	var names []string
	if *design != "" {
		if d, err = redfishmock.NewDesign(*design, redfishmock.Options{Username: "admin"}); err != nil {
			return err
		}
		for _, s := range d.Services() {
			if sp := s.Spec(); sp.Kind == redfishmock.KindServer && sp.Node != "" {
				names = append(names, sp.Node)
			}
		}
	} else {
		for i := 1; i <= *nodes; i++ {
			names = append(names, fmt.Sprintf("node%d", i))
		}
	}
	start := time.Now()
	rl, err := realnode.Up(ctx, realnode.Config{Dir: *dir, Nodes: names, Image: img, Disks: *disks, DiskSizeBytes: size, Log: stderr})
	if err != nil {
		return err
	}
	var mock *redfishmock.Lab
	closeAll := func() error {
		var errs []error
		if mock != nil {
			errs = append(errs, mock.Close())
		}
		errs = append(errs, rl.Close())
		if st, err := lab.ReadState(rl.Dir); err == nil && st.PID == os.Getpid() {
			errs = append(errs, os.Remove(filepath.Join(rl.Dir, lab.StateFile)))
		}
		return errors.Join(errs...)
	}
	if d != nil {
		d.OnPower(rl.PowerHook(ctx, stderr))
		if mock, err = d.Start(redfishmock.StartConfig{Host: rl.Gateway}); err != nil {
			return errors.Join(err, closeAll())
		}
	}
	if err := writeRealFiles(rl, *design, mock); err != nil {
		return errors.Join(err, closeAll())
	}
	for _, n := range rl.Nodes {
		pss, procs, _ := n.MemoryPSS()
		fmt.Fprintf(stdout, "node %s %s: booted in %s (%s), %d processes, %d MiB PSS\n", n.Name, n.IP, n.BootTook.Round(100*time.Millisecond),
			n.SystemState, procs, pss>>20)
	}
	fmt.Fprintf(stdout, "real lab up in %s (pid %d, %s): %d nodes on %s; variable lab in %s\n", rl.Dir, os.Getpid(),
		time.Since(start).Round(100*time.Millisecond), len(rl.Nodes), rl.Bridge, filepath.Join(rl.Dir, lab.TFVarsFile))
	<-ctx.Done()
	fmt.Fprintln(stderr, "shutting down the real nodes")
	return closeAll()
}

// writeRealFiles writes lab.auto.tfvars.json, lab.env and lab.json in the
// simulated lab's shapes (lab.State, lab.NodeInfo, lab.Endpoint): hosts
// are the nodes' addresses on the bridge, roots empty (the node is real).
func writeRealFiles(rl *realnode.Lab, design string, mock *redfishmock.Lab) error {
	st := lab.State{PID: os.Getpid(), Design: design, Dir: rl.Dir, StartedAt: time.Now().UTC()}
	bmcOf := map[string]string{}
	var env strings.Builder
	if mock != nil {
		for _, ep := range mock.Endpoints {
			st.Endpoints = append(st.Endpoints, lab.Endpoint{Name: ep.Name, Kind: string(ep.Kind), Model: ep.Model, URL: ep.URL,
				Username: ep.Username, Node: ep.Node, CabledTo: append([]string{}, ep.CabledTo...)})
			if ep.Node != "" {
				bmcOf[ep.Node] = ep.Name
			}
			fmt.Fprintf(&env, "%s=%s\n", lab.PasswordEnv(ep.Name), ep.Password)
		}
		if mock.CA != nil {
			st.CACertificate = string(mock.CA.PEM())
			if err := os.WriteFile(filepath.Join(rl.Dir, lab.CAFile), mock.CA.PEM(), 0o644); err != nil {
				return err
			}
		}
	}
	nodes := map[string]lab.NodeInfo{}
	for _, n := range rl.Nodes {
		ni := lab.NodeInfo{Name: n.Name, Role: lab.RoleStorage, Host: n.Addr(), HostKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(n.HostKey))), BMC: bmcOf[n.Name]}
		st.Nodes = append(st.Nodes, ni)
		nodes[n.Name] = ni
	}
	endpoints := map[string]lab.Endpoint{}
	for _, ep := range st.Endpoints {
		endpoints[ep.Name] = ep
	}
	v := map[string]any{
		"design": design, "dir": rl.Dir, "real": true, "ca_certificate": st.CACertificate, "ca_file": "",
		"endpoints": endpoints, "nodes": nodes, "env_file": filepath.Join(rl.Dir, lab.EnvFile),
		"ssh": map[string]string{"user": "root", "private_key_file": filepath.Join(rl.Dir, realnode.KeyFile),
			"known_hosts_file": filepath.Join(rl.Dir, realnode.KnownHostsFile)},
	}
	if st.CACertificate != "" {
		v["ca_file"] = filepath.Join(rl.Dir, lab.CAFile)
	}
	if err := os.WriteFile(filepath.Join(rl.Dir, lab.EnvFile), []byte(env.String()), 0o600); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    any
		mode os.FileMode
	}{{lab.TFVarsFile, map[string]any{"lab": v}, 0o600}, {lab.StateFile, st, 0o644}} { // the state file last: it means ready
		b, err := json.MarshalIndent(f.v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(rl.Dir, f.name), append(b, '\n'), f.mode); err != nil {
			return err
		}
	}
	return nil
}
