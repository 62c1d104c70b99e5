package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The registry shows only index.md, resources/, data-sources/ and guides/.
func TestDocsLayout(t *testing.T) {
	entries, err := os.ReadDir("docs")
	if err != nil {
		t.Fatal(err)
	}
	// actions/ and list-resources/ are tfplugindocs' folders for the
	// Terraform 1.14 actions and list resources.
	allowed := map[string]bool{"index.md": true, "resources": true, "data-sources": true, "guides": true,
		"actions": true, "list-resources": true}
	for _, e := range entries {
		if !allowed[e.Name()] {
			t.Errorf("docs/%s: the registry shows only index.md, resources/, data-sources/, actions/, list-resources/ and guides/ (put guides in templates/guides/)", e.Name())
		}
	}
	guides, _ := filepath.Glob("docs/guides/*.md")
	if len(guides) < 3 {
		t.Errorf("docs/guides has %v", guides)
	}
	for _, g := range guides {
		b, _ := os.ReadFile(g)
		if !strings.HasPrefix(string(b), "---\npage_title: ") {
			t.Errorf("%s has no front matter with page_title (the registry's guide list needs it)", g)
		}
	}
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHead   = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	htmlID   = regexp.MustCompile(`(?:id|name)="([^"]+)"`)
	fenced   = regexp.MustCompile("(?ms)^```.*?^```")
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors are the fragment targets of a markdown file: GitHub's heading
// slugs (as the registry's) and explicit id/name attributes.
func anchors(body string) map[string]bool {
	a := map[string]bool{}
	body = fenced.ReplaceAllString(body, "")
	for _, m := range mdHead.FindAllStringSubmatch(body, -1) {
		h := strings.ReplaceAll(m[1], "`", "")
		h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(h), ""), " ", "-")
		for n := 0; ; n++ { // repeated headings get -1, -2, ...
			s := slug
			if n > 0 {
				s = slug + "-" + string(rune('0'+n))
			}
			if !a[s] {
				a[s] = true
				break
			}
		}
	}
	for _, m := range htmlID.FindAllStringSubmatch(body, -1) {
		a[m[1]] = true
	}
	return a
}

// Every relative link in README, CHANGELOG, docs/ and the examples' READMEs
// reaches a file, and its #fragment a heading or id there.
func TestDocsLinks(t *testing.T) {
	files := []string{"README.md", "CHANGELOG.md"}
	for _, root := range []string{"docs", "examples"} {
		if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				files = append(files, p)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		body := fenced.ReplaceAllString(string(b), "")
		for _, m := range mdLink.FindAllStringSubmatch(body, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, frag, _ := strings.Cut(link, "#")
			dest := f
			if target != "" {
				dest = filepath.Join(filepath.Dir(f), target)
			}
			checked++
			tb, err := os.ReadFile(dest)
			if err != nil {
				if fi, serr := os.Stat(dest); serr == nil && fi.IsDir() && frag == "" {
					continue
				}
				t.Errorf("%s: link %s: %v", f, link, err)
				continue
			}
			if frag != "" && !anchors(string(tb))[frag] {
				t.Errorf("%s: link %s: no heading or id %q in %s", f, link, frag, dest)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: is the scan broken?", checked)
	}
}

// Every resource page says whether and how the resource imports.
func TestEveryResourceSaysImport(t *testing.T) {
	pages, _ := filepath.Glob("docs/resources/*.md")
	if len(pages) < 12 {
		t.Fatalf("only %d resource pages", len(pages))
	}
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		_, sec, ok := strings.Cut(string(b), "\n## Import\n")
		switch {
		case !ok:
			t.Errorf("%s has no Import section", p)
		case !strings.Contains(sec, "terraform import ") && !(strings.Contains(sec, "import {") && strings.Contains(sec, "id ")) &&
			!strings.Contains(sec, "cannot be imported"):
			t.Errorf("%s: the Import section shows no id and says nothing about import:\n%s", p, sec)
		}
	}
}
