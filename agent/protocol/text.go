package protocol

import (
	"fmt"
	"strings"
)

// RenderText renders a result for people: one line per item with a marker
// (+ changed, ! failed, - skipped, = unchanged), its diff indented, the
// output of a read-only command ("| " lines), its warnings, the handlers,
// then a summary line.
func RenderText(r Result) string {
	var b strings.Builder
	mode := r.Command
	if mode == "" {
		mode = "apply"
	}
	if r.Check {
		mode += " --check"
	}
	fmt.Fprintf(&b, "%s owner=%s\n", mode, r.Owner)
	changed, failed, skipped := 0, 0, 0
	for _, it := range r.Items {
		mark := "="
		switch {
		case it.Skipped:
			mark = "-"
			skipped++
		case it.Error != "":
			mark = "!"
			failed++
		case it.Changed:
			mark = "+"
			changed++
		}
		fmt.Fprintf(&b, "%s %s\n", mark, it.ID)
		if it.Diff != "" {
			for _, l := range strings.Split(strings.TrimRight(it.Diff, "\n"), "\n") {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
		if it.Output != "" {
			for _, l := range strings.Split(strings.TrimRight(it.Output, "\n"), "\n") {
				fmt.Fprintf(&b, "    | %s\n", l)
			}
		}
		for _, w := range it.Warnings {
			fmt.Fprintf(&b, "    warning: %s\n", w)
		}
		if it.Error != "" {
			fmt.Fprintf(&b, "    error: %s\n", it.Error)
		}
	}
	for _, h := range r.Handlers {
		line := fmt.Sprintf("handler %s: %s", h.ID, h.Action)
		if h.Reason == "owed" {
			line += " (owed by an interrupted run)"
		}
		if h.Error != "" {
			line += ": " + h.Error
		}
		fmt.Fprintln(&b, line)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	verb := "changed"
	if r.Check {
		verb = "would change"
	}
	fmt.Fprintf(&b, "%d items: %d %s, %d failed, %d skipped, %d handlers", len(r.Items), changed, verb, failed, skipped, len(r.Handlers))
	if r.ElapsedMS > 0 {
		fmt.Fprintf(&b, " (%.1f ms)", r.ElapsedMS)
	}
	b.WriteString("\n")
	return b.String()
}
