// Command gitversion prints the semantic version of the checkout it runs in
// (see version.FromDescribe); make stamps builds with it.
//
// With -install CHANGELOG it prints the version `make install` files the
// provider under instead: the build's own version when it is a release, else
// the version the changelog's first section is preparing. Terraform lets
// only an exact constraint select a prerelease such as 0.0.0-dev+abc, so a
// development build installed under its own version would satisfy no
// module's `version = "~> 0.1"`.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/internal/version"
)

func main() {
	changelog := flag.String("install", "", "print the install version, reading the release being prepared from this CHANGELOG.md")
	of := flag.String("of", "", "classify this version instead of the checkout's")
	flag.Parse()
	v, err := *of, error(nil)
	if v == "" {
		v, err = gitVersion()
	}
	if err == nil && *changelog != "" {
		v, err = installVersion(v, *changelog)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitversion:", err)
		os.Exit(1)
	}
	fmt.Println(v)
}

func gitVersion() (string, error) {
	desc, err := exec.Command("git", "describe", "--tags", "--long", "--abbrev=12", "--dirty", "--match", "v[0-9]*").Output()
	if err == nil {
		return version.FromDescribe(string(desc))
	}
	// No release tag reaches HEAD.
	rev, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("not a git checkout: %w", err)
	}
	dirty := exec.Command("git", "diff-index", "--quiet", "HEAD", "--").Run() != nil
	return version.Untagged(strings.TrimSpace(string(rev)), dirty), nil
}

// headingRE is a changelog section: "## 0.1.0 (Unreleased)", "## 0.1.0 (May 4, 2027)".
var headingRE = regexp.MustCompile(`^## (\d+\.\d+\.\d+)\b`)

func installVersion(v, changelog string) (string, error) {
	if version.Release(v) {
		return v, nil
	}
	f, err := os.Open(changelog)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := headingRE.FindStringSubmatch(sc.Text()); m != nil {
			return m[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New(changelog + " has no \"## X.Y.Z\" section")
}
