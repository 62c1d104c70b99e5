package main

import (
	"context"
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

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/redfishmock"
	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/santricitymock"
)

func serveSantricity(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runServeSantricity(ctx, args, stdout, stderr)
}

// runServeSantricity serves a design's E-Series arrays (SANtricity REST over
// HTTPS, each with its own certificate) and prints them as serve-redfish does.
func runServeSantricity(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve-santricity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	design := fs.String("design", "", "reference design with E-Series arrays: r3")
	listen := fs.String("listen", "127.0.0.1:0", "HOST:PORT of the first array; array i listens on PORT+i (PORT 0: random ports)")
	username := fs.String("username", "admin", "user name every array accepts")
	password := fs.String("password", "", "password every array accepts (default: a random one per array)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	specs := santricitymock.DesignArrays(*design)
	if len(specs) == 0 {
		return errors.New("--design must name a design with E-Series arrays (r3)")
	}
	host, portText, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", *listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535-len(specs) {
		return fmt.Errorf("--listen %q: bad port", *listen)
	}
	var servers []*santricitymock.Server
	closeAll := func() error {
		var errs []error
		for _, s := range servers {
			errs = append(errs, s.Close())
		}
		return errors.Join(errs...)
	}
	doc := labDoc{Design: strings.ToLower(*design), Scheme: "https", Cabling: map[string][]string{}}
	for i, sp := range specs {
		p := 0
		if port > 0 {
			p = port + i
		}
		srv, err := santricitymock.Start(santricitymock.New(sp, santricitymock.Options{Username: *username, Password: *password, CabledHosts: true}),
			net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			_ = closeAll()
			return fmt.Errorf("array %s: %w", sp.Name, err)
		}
		servers = append(servers, srv)
		doc.Cabling[sp.Name] = sp.CabledTo
		doc.Endpoints = append(doc.Endpoints, labEndpoint{Endpoint: redfishmock.Endpoint{Name: sp.Name, Kind: redfishmock.KindArray,
			Personality: "santricity", Model: sp.Model, CabledTo: sp.CabledTo, URL: srv.URL, Username: srv.Username, Password: srv.Password},
			ControlURL: srv.URL + "/_mock", CACertPEM: string(srv.CAPEM())})
	}
	return printAndWait(ctx, doc, stdout, stderr, closeAll)
}
