package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/lab/realnode"
)

// realImage: real-image [--cache DIR] [--mirror URL]: builds (or finds)
// the cached Debian 12 node image of `up --real`.
func realImage(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("real-image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cache := fs.String("cache", realnode.DefaultCacheDir(), "image cache folder")
	mirror := fs.String("mirror", "", "Debian mirror (default $HPCSTORAGE_LAB_MIRROR or "+realnode.DefaultMirror+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	img, err := realnode.EnsureImage(ctx, realnode.ImageConfig{CacheDir: *cache, Mirror: *mirror, Log: stderr})
	if err != nil {
		return err
	}
	if img.Built {
		fmt.Fprintf(stdout, "image %s built in %s\n", img.Rootfs, img.Took.Round(1e9))
	} else {
		fmt.Fprintf(stdout, "image %s (cached)\n", img.Rootfs)
	}
	return nil
}
