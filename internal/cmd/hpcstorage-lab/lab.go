package main

import (
	"errors"
	"io"
)

func labUp(_ []string, _, _ io.Writer) error     { return errors.New("not built yet") }
func labStatus(_ []string, _, _ io.Writer) error { return errors.New("not built yet") }
func labDown(_ []string, _, _ io.Writer) error   { return errors.New("not built yet") }
