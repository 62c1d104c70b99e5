package main

import (
	"errors"
	"io"
)

func serveRedfish(_ []string, _, _ io.Writer) error { return errors.New("not built yet") }

func replay(_ []string, _, _ io.Writer) error { return errors.New("not built yet") }
