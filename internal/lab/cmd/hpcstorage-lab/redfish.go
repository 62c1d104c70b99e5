package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/bytesize"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
)

// labDoc is the one JSON document serve-redfish and replay print on stdout.
type labDoc struct {
	Design    string              `json:"design,omitempty"`
	Mockup    string              `json:"mockup,omitempty"`
	Scheme    string              `json:"scheme"`
	CACertPEM string              `json:"ca_cert_pem,omitempty"`
	CAFile    string              `json:"ca_file,omitempty"`
	Endpoints []labEndpoint       `json:"endpoints"`
	Cabling   map[string][]string `json:"cabling,omitempty"`
}

type labEndpoint struct {
	redfishmock.Endpoint
	ControlURL string `json:"control_url"`
	CACertPEM  string `json:"ca_cert_pem,omitempty"`
}

// serveOpts are the flags shared by serve-redfish and replay.
type serveOpts struct {
	listen, username, password, caFile string
	plain, requireIfMatch              bool
	pageSize, sessionLimit             int
	powerDelay                         time.Duration
}

func (o *serveOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "HOST:PORT of the first endpoint; endpoint i listens on PORT+i (PORT 0: random ports)")
	fs.StringVar(&o.username, "username", "admin", "user name every endpoint accepts")
	fs.StringVar(&o.password, "password", "", "password every endpoint accepts (default: a random one per endpoint)")
	fs.StringVar(&o.caFile, "ca-file", "", "also write the CA certificate (PEM) to this file")
	fs.BoolVar(&o.plain, "plain-http", false, "serve plain HTTP instead of HTTPS")
	fs.BoolVar(&o.requireIfMatch, "require-if-match", false, "answer 428 to PATCH/PUT/DELETE without If-Match")
	fs.IntVar(&o.pageSize, "page-size", 0, "split collections into pages of this size (0: no paging)")
	fs.IntVar(&o.sessionLimit, "session-limit", 8, "simultaneous sessions per endpoint")
	fs.DurationVar(&o.powerDelay, "power-delay", 5*time.Second, "how long PoweringOn/PoweringOff last")
}

func (o *serveOpts) options() redfishmock.Options {
	return redfishmock.Options{Username: o.username, Password: o.password, RequireIfMatch: o.requireIfMatch,
		PageSize: o.pageSize, SessionLimit: o.sessionLimit, PowerDelay: o.powerDelay}
}

func (o *serveOpts) hostPort() (string, int, error) {
	host, port, err := net.SplitHostPort(o.listen)
	if err != nil {
		return "", 0, fmt.Errorf("--listen %q: %w", o.listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0, fmt.Errorf("--listen %q: port must be a number from 0 to 65535", o.listen)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		// The mock accepts writes from anyone holding the printed password:
		// keep it on loopback unless the operator asks for an address.
		fmt.Fprintf(os.Stderr, "warning: listening on non-loopback address %s\n", host)
	}
	return host, p, nil
}

// parseSize reads --drive-size: "12TB", "960GB", "4TiB" or plain bytes;
// empty keeps the design's drives.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := bytesize.ParseDecimal(s)
	if err == nil && n <= 0 {
		err = fmt.Errorf("%q: not a positive size", s)
	}
	if err != nil {
		return 0, fmt.Errorf("--drive-size: %w", err)
	}
	return n, nil
}

func serveRedfish(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runServeRedfish(ctx, args, stdout, stderr)
}

func replay(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runReplay(ctx, args, stdout, stderr)
}

func runServeRedfish(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve-redfish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o serveOpts
	o.register(fs)
	design := fs.String("design", "", "reference design: "+strings.Join(redfishmock.Designs(), ", "))
	driveSize := fs.String("drive-size", "", "HDD size of the design's arrays (e.g. 8TB; default: the design's)")
	persona := fs.String("server-personality", "", "override every server's personality: dell, hpe or generic")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *design == "" {
		return errors.New("--design is required (" + strings.Join(redfishmock.Designs(), ", ") + ")")
	}
	size, err := parseSize(*driveSize)
	if err != nil {
		return err
	}
	host, port, err := o.hostPort()
	if err != nil {
		return err
	}
	opts := o.options()
	opts.DriveSizeBytes, opts.ServerPersonality = size, *persona
	d, err := redfishmock.NewDesign(*design, opts)
	if err != nil {
		return err
	}
	lab, err := d.Start(redfishmock.StartConfig{Host: host, FirstPort: port, PlainHTTP: o.plain})
	if err != nil {
		return err
	}
	defer lab.Close()
	doc := labDoc{Design: d.Name, Cabling: d.Cabling()}
	if err := o.describe(&doc, lab.CA, lab.Endpoints); err != nil {
		return err
	}
	return printAndWait(ctx, doc, stdout, stderr, lab.Close)
}

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o serveOpts
	o.register(fs)
	dir := fs.String("dir", "", "mockup folder (DMTF layout, tall redfish/v1/... or short form)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("--dir is required")
	}
	host, port, err := o.hostPort()
	if err != nil {
		return err
	}
	svc, err := redfishmock.NewReplay(*dir, o.options())
	if err != nil {
		return err
	}
	var ca *redfishmock.CA
	if !o.plain {
		if ca, err = redfishmock.NewCA(); err != nil {
			return err
		}
	}
	srv, err := redfishmock.Start(svc, net.JoinHostPort(host, strconv.Itoa(port)), ca)
	if err != nil {
		return err
	}
	defer srv.Close()
	u, p := svc.Credentials()
	doc := labDoc{Mockup: *dir}
	ep := redfishmock.Endpoint{Name: svc.Name(), Kind: redfishmock.KindReplay, Personality: "replay", Model: "mockup", URL: srv.URL, Username: u, Password: p}
	if err := o.describe(&doc, ca, []redfishmock.Endpoint{ep}); err != nil {
		return err
	}
	return printAndWait(ctx, doc, stdout, stderr, srv.Close)
}

func (o *serveOpts) describe(doc *labDoc, ca *redfishmock.CA, eps []redfishmock.Endpoint) error {
	doc.Scheme = "https"
	var pem string
	if ca == nil {
		doc.Scheme = "http"
	} else {
		pem = string(ca.PEM())
		doc.CACertPEM = pem
		if o.caFile != "" {
			if err := os.WriteFile(o.caFile, ca.PEM(), 0o644); err != nil {
				return fmt.Errorf("--ca-file: %w", err)
			}
			doc.CAFile = o.caFile
		}
	}
	for _, ep := range eps {
		doc.Endpoints = append(doc.Endpoints, labEndpoint{Endpoint: ep, ControlURL: ep.URL + "/_mock", CACertPEM: pem})
	}
	return nil
}

// printAndWait prints the endpoints as one JSON line, then serves until the
// context ends (SIGINT or SIGTERM) and shuts down cleanly.
func printAndWait(ctx context.Context, doc labDoc, stdout, stderr io.Writer, closeFn func() error) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode endpoints: %w", err)
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", b); err != nil {
		return fmt.Errorf("write endpoints: %w", err)
	}
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}
	<-ctx.Done()
	fmt.Fprintln(stderr, "shutting down")
	return closeFn()
}
