package profiles

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Guide renders the "Tuning profiles" guide page (a tfplugindocs template)
// from the presets themselves, so the documentation cannot drift from the
// values the provider applies.
func Guide() string {
	var b strings.Builder
	b.WriteString(`---
page_title: "Tuning profiles"
subcategory: ""
description: |-
  Every built-in tuning preset of the hpcstorage_tuning_profile data source, with its values, their sources and the known conflicts.
---

# Tuning profiles

The ` + "`hpcstorage_tuning_profile`" + ` data source renders a preset into the typed attributes of
` + "`hpcstorage_node_config`" + ` (sysctl, thp, block_queues, kernel_modules, udev_rules, files, services,
package_floors). Every value below names its source; where sources disagree the conflict is listed with the side
the preset takes.

* Override any setting by its key in ` + "`overrides`" + `: a value replaces it, an empty string drops it. New
  ` + "`sysctl:<name>`" + ` keys (and ` + "`conf:<key>`" + ` keys for presets with a daemon file) are added.
* Presets are versioned. Set ` + "`version`" + ` to pin one: a provider upgrade that changes a value then fails the
  plan until you review the change and update the pin.
* ` + "`cluster:`" + ` settings are not applied to nodes: they belong to the file system's configuration
  (` + "`mmchconfig`" + `, ` + "`mmcrfs`" + `) and are returned in ` + "`cluster_settings`" + `.

This page is generated from the provider's presets (` + "`go generate ./internal/profiles`" + `).

`)
	b.WriteString("| Preset | Version | Designs | Role |\n|---|---|---|---|\n")
	for _, p := range All() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %d | %s | %s |\n", p.Name, p.Name, p.Version, strings.Join(p.Designs, ", "), cell(p.Summary))
	}
	for _, p := range All() {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\nVersion %d.", p.Name, p.Summary, p.Version)
		if p.Match != (Preset{}).Match {
			fmt.Fprintf(&b, " Block queue settings apply to disks matching %s.", describeMatch(p))
		}
		if p.Conf != "" {
			if p.ConfSection != "" {
				fmt.Fprintf(&b, " `conf:` settings are written to `%s`, section `[%s]`.", p.Conf, p.ConfSection)
			} else {
				fmt.Fprintf(&b, " `conf:` settings are laid over `%s` (other keys and comments are kept).", p.Conf)
			}
		}
		b.WriteString("\n\n| Key | Value | Source | Note |\n|---|---|---|---|\n")
		for _, s := range p.Settings {
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", s.Key, cell(s.Value), s.Source, cell(s.Note))
		}
		if len(p.Conflicts) > 0 {
			b.WriteString("\nKnown conflicts: ")
			var links []string
			for _, c := range p.Conflicts {
				links = append(links, fmt.Sprintf("[%s](#conflict-%s)", c, c))
			}
			b.WriteString(strings.Join(links, ", ") + ".\n")
		}
	}
	b.WriteString("\n## Known conflicts\n")
	for _, k := range slices.Sorted(maps.Keys(Conflicts)) {
		fmt.Fprintf(&b, "\n<a id=\"conflict-%s\"></a>\n**%s.** %s\n", k, k, Conflicts[k])
	}
	b.WriteString("\n## Sources\n\n| Source | What | Where |\n|---|---|---|\n")
	for _, k := range slices.Sorted(maps.Keys(Sources)) {
		s := Sources[k]
		fmt.Fprintf(&b, "| %s | %s | %s |\n", k, cell(s.Title), cell(s.Where))
	}
	b.WriteString("| override | a value set in `overrides` | your configuration |\n")
	return b.String()
}

func describeMatch(p Preset) string {
	var parts []string
	if p.Match.Name != "" {
		parts = append(parts, fmt.Sprintf("the name `%s`", p.Match.Name))
	}
	if p.Match.Rotational != nil {
		if *p.Match.Rotational {
			parts = append(parts, "rotational (HDD)")
		} else {
			parts = append(parts, "non-rotational (SSD)")
		}
	}
	return strings.Join(parts, ", ")
}

// cell escapes a table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
