// Command snapshot builds, without goreleaser and offline, the release
// layout .goreleaser.yml describes (make release): per OS/architecture a zip
// with the provider binary and the archive's files, the registry manifest
// and the SHA256SUMS over both. Signing stays with the release machine.
//
//	go run ./internal/version/snapshot -version 0.1.0 -out dist [-platforms linux_amd64,...]
//
// It reads the builds, archives and checksum sections of .goreleaser.yml, so
// the two cannot drift apart; only the templates the file uses are known.
package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

type config struct {
	ProjectName string `json:"project_name"`
	Builds      []struct {
		Env     []string `json:"env"`
		Flags   []string `json:"flags"`
		Ldflags []string `json:"ldflags"`
		Goos    []string `json:"goos"`
		Goarch  []string `json:"goarch"`
		Ignore  []struct {
			Goos   string `json:"goos"`
			Goarch string `json:"goarch"`
		} `json:"ignore"`
		Binary string `json:"binary"`
	} `json:"builds"`
	Archives []struct {
		Formats      []string        `json:"formats"`
		NameTemplate string          `json:"name_template"`
		Files        []archiveSource `json:"files"`
	} `json:"archives"`
	Checksum struct {
		ExtraFiles []struct {
			Glob         string `json:"glob"`
			NameTemplate string `json:"name_template"`
		} `json:"extra_files"`
		NameTemplate string `json:"name_template"`
		Algorithm    string `json:"algorithm"`
	} `json:"checksum"`
}

// archiveSource is a files entry: a path, or {src, strip_parent}.
type archiveSource struct {
	Src         string `json:"src"`
	StripParent bool   `json:"strip_parent"`
}

func (a *archiveSource) UnmarshalJSON(b []byte) error {
	var s string
	if yaml.Unmarshal(b, &s) == nil {
		a.Src = s
		return nil
	}
	type plain archiveSource
	return yaml.Unmarshal(b, (*plain)(a))
}

// Platform is one GOOS_GOARCH the build section yields.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

func main() {
	cfgFile := flag.String("config", ".goreleaser.yml", "goreleaser configuration")
	ver := flag.String("version", "", "version to stamp and name the files with (required)")
	out := flag.String("out", "dist", "output folder (emptied first)")
	only := flag.String("platforms", "", "comma-separated GOOS_GOARCH subset (default: every platform of the config)")
	flag.Parse()
	if err := run(*cfgFile, *ver, *out, *only); err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
}

func load(file string) (*config, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var c config
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(c.Builds) != 1 || len(c.Archives) != 1 || c.Checksum.Algorithm != "sha256" ||
		!slices.Equal(c.Archives[0].Formats, []string{"zip"}) {
		return nil, fmt.Errorf("%s: expected one build, one zip archive and sha256 checksums", file)
	}
	return &c, nil
}

// Platforms are goos x goarch without the ignored pairs, sorted.
func (c *config) Platforms() []Platform {
	b := c.Builds[0]
	var ps []Platform
	for _, os := range b.Goos {
		for _, arch := range b.Goarch {
			if !slices.ContainsFunc(b.Ignore, func(i struct {
				Goos   string `json:"goos"`
				Goarch string `json:"goarch"`
			}) bool {
				return i.Goos == os && i.Goarch == arch
			}) {
				ps = append(ps, Platform{os, arch})
			}
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].String() < ps[j].String() })
	return ps
}

// expand fills the templates the config uses.
func (c *config) expand(tmpl, version string, p Platform) string {
	return strings.NewReplacer("{{ .ProjectName }}", c.ProjectName, "{{ .Version }}", version,
		"{{ .Os }}", p.OS, "{{ .Arch }}", p.Arch).Replace(tmpl)
}

func run(cfgFile, version, out, only string) error {
	if version == "" {
		return errors.New("-version is required")
	}
	c, err := load(cfgFile)
	if err != nil {
		return err
	}
	platforms := c.Platforms()
	if only != "" {
		var sub []Platform
		for _, want := range strings.Split(only, ",") {
			i := slices.IndexFunc(platforms, func(p Platform) bool { return p.String() == want })
			if i < 0 {
				return fmt.Errorf("platform %s is not in %s", want, cfgFile)
			}
			sub = append(sub, platforms[i])
		}
		platforms = sub
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var sums []string
	for _, p := range platforms {
		name, err := c.archive(version, p, out)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		sums = append(sums, name)
	}
	for _, x := range c.Checksum.ExtraFiles {
		name := c.expand(x.NameTemplate, version, Platform{})
		if err := copyFile(x.Glob, filepath.Join(out, name)); err != nil {
			return err
		}
		sums = append(sums, name)
	}
	sort.Strings(sums)
	var list strings.Builder
	for _, name := range sums {
		h, err := sha256File(filepath.Join(out, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(&list, "%s  %s\n", h, name)
	}
	sumName := c.expand(c.Checksum.NameTemplate, version, Platform{})
	if err := os.WriteFile(filepath.Join(out, sumName), []byte(list.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d archives, %s (unsigned: the release machine signs it)\n", out, len(platforms), sumName)
	return nil
}

// archive builds the provider for p and zips it with the archive's files.
func (c *config) archive(version string, p Platform, out string) (string, error) {
	b := c.Builds[0]
	tmp, err := os.MkdirTemp("", "snapshot")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	bin := c.expand(b.Binary, version, p)
	if p.OS == "windows" {
		bin += ".exe"
	}
	args := append([]string{"build"}, b.Flags...)
	for _, l := range b.Ldflags {
		args = append(args, "-ldflags="+c.expand(l, version, p))
	}
	args = append(args, "-o", filepath.Join(tmp, bin), ".")
	cmd := exec.Command("go", args...)
	cmd.Env = append(append(os.Environ(), b.Env...), "GOOS="+p.OS, "GOARCH="+p.Arch)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	a := c.Archives[0]
	name := c.expand(a.NameTemplate, version, p) + ".zip"
	f, err := os.Create(filepath.Join(out, name))
	if err != nil {
		return "", err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	add := func(src, as string) error {
		s, err := os.Open(src)
		if err != nil {
			return err
		}
		defer s.Close()
		fi, err := s.Stat()
		if err != nil {
			return err
		}
		h, err := zip.FileInfoHeader(fi)
		if err != nil {
			return err
		}
		h.Name, h.Method = as, zip.Deflate
		h.Modified = time.Unix(0, 0).UTC() // reproducible archives
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = io.Copy(w, s)
		return err
	}
	if err := add(filepath.Join(tmp, bin), bin); err != nil {
		return "", err
	}
	for _, src := range a.Files {
		as := src.Src
		if src.StripParent {
			as = filepath.Base(src.Src)
		}
		if err := add(src.Src, as); err != nil {
			return "", err
		}
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return name, f.Close()
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

func sha256File(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
