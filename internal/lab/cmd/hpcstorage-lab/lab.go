package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// labUp: up --design rN --dir DIR [--clients N] [--drive-size S] [--detach].
// Without --detach it serves in the foreground until SIGINT or SIGTERM;
// with it, it starts itself in the background (log in DIR/lab.log) and
// returns once the lab is ready, for scripts.
func labUp(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	fs.SetOutput(stderr)
	design := fs.String("design", "", "reference design: "+strings.Join(redfishmock.Designs(), ", "))
	dir := fs.String("dir", "", "lab folder (created): lab.json, lab.auto.tfvars.json, lab.env, keys, node roots")
	clients := fs.Int("clients", 0, fmt.Sprintf("client nodes to add (client01, ...; up to %d, numbered to the count's width)", lab.MaxClients))
	driveSize := fs.String("drive-size", "", "HDD size of the design's arrays (e.g. 8TB)")
	detach := fs.Bool("detach", false, "run in the background and return once the lab is ready")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *design == "" || *dir == "" {
		return errors.New("--design and --dir are required")
	}
	size, err := parseSize(*driveSize)
	if err != nil {
		return err
	}
	if *detach {
		// Seeding a node root takes milliseconds, R4's clients (Ceph
		// packages) more, on a loaded machine many times that: a thousand
		// clients get minutes more.
		return upDetached(*dir, args, stdout, 2*time.Minute+time.Duration(*clients)*150*time.Millisecond)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	simBin, err := simulator()
	if err != nil {
		return err
	}
	l, err := lab.Up(lab.Config{Design: *design, Dir: *dir, Clients: *clients, DriveSizeBytes: size, Simulator: simBin})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lab %s up in %s (pid %d): %d nodes, %d endpoints; variable lab in %s, passwords in %s\n", l.State.Design, l.State.Dir,
		l.State.PID, len(l.State.Nodes), len(l.State.Endpoints), filepath.Join(l.State.Dir, lab.TFVarsFile), filepath.Join(l.State.Dir, lab.EnvFile))
	<-ctx.Done()
	fmt.Fprintln(stderr, "shutting down")
	for _, e := range l.Errors() {
		fmt.Fprintln(stderr, "cabling error:", e)
	}
	return l.Close()
}

// upDetached re-runs `up` without --detach in a new session and waits for
// its state file.
func upDetached(dir string, args []string, stdout io.Writer, wait time.Duration) error {
	var rest []string
	for _, a := range args {
		if a != "--detach" && a != "-detach" && a != "--detach=true" && a != "-detach=true" {
			rest = append(rest, a)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logPath := filepath.Join(dir, "lab.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(self, append([]string{"up"}, rest...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(wait)
	for {
		if st, err := lab.ReadState(dir); err == nil && st.PID == cmd.Process.Pid {
			fmt.Fprintf(stdout, "lab %s up in %s (pid %d, log %s): %d nodes, %d endpoints\n", st.Design, st.Dir, st.PID,
				logPath, len(st.Nodes), len(st.Endpoints))
			return nil
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logPath)
			return fmt.Errorf("lab exited before it was ready (%v): %s", err, strings.TrimSpace(string(b)))
		case <-deadline:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			return fmt.Errorf("lab not ready after %s (log %s)", wait, logPath)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func labStatus(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "lab folder given to up")
	brief := fs.Bool("brief", false, "one line per node")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("--dir is required")
	}
	if *brief {
		return lab.WriteBrief(*dir, stdout)
	}
	return lab.WriteStatus(*dir, stdout)
}

// labReboot: reboot --dir DIR --node NAME.
func labReboot(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reboot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "lab folder given to up")
	node := fs.String("node", "", "lab node to power-cycle (e.g. client01)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *node == "" {
		return errors.New("--dir and --node are required")
	}
	if err := lab.Reboot(*dir, *node); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s rebooted: services not enabled are stopped, fstab and modules-load.d applied\n", *node)
	return nil
}

func labDown(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("down", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "lab folder given to up")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for the lab to stop")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("--dir is required")
	}
	if err := lab.Down(*dir, *timeout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lab in %s stopped\n", *dir)
	return nil
}
