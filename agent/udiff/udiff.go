// Package udiff renders unified diffs of small text files (config files,
// rules, drop-ins) for the agent's plan output.
//
// Kept instead of a library because one costs more here: against
// github.com/aymanbagabas/go-udiff v0.4.2 (gopls' diff; the same output on
// these inputs, TestLibraryAgrees) on a 4 KB config file, the library takes
// 3.0x the time for a one-line change, 8.7x for a new file and 2.7x for one
// line of a 16 KB file, and 0.43x for ten scattered changes (this LCS table
// is quadratic); the stripped linux/amd64 agent grows by 72 KiB (3,989,666
// to 4,063,394 bytes). Measured with `go test -run '^$' -bench Diff
// ./agent/udiff` (lib-time-ratio) and `go build -trimpath -ldflags "-s -w"
// ./agent` with Diff calling the library. Past maxCells (files of a few
// thousand lines) this package shows a whole replacement where the library
// would find the change: switch if the agent ever diffs files that large.
package udiff

import (
	"fmt"
	"strings"
)

// maxCells bounds the line-matching table; larger inputs are shown as a
// whole replacement, which is still a correct (if long) diff.
const maxCells = 4_000_000

// Diff returns a unified diff from a to b with 3 lines of context, labelled
// with name. It returns "" when a == b.
func Diff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := lines(string(a)), lines(string(b))
	ops := match(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", name, name)
	writeHunks(&out, ops, al, bl)
	return out.String()
}

// lines splits keeping a marker for a missing final newline.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

type op struct {
	kind byte // ' ', '-', '+'
	a, b int  // line indexes (a for ' ' and '-', b for '+')
}

// match computes an edit script with a longest-common-subsequence table.
func match(a, b []string) []op {
	n, m := len(a), len(b)
	// Trim common prefix and suffix first: most edits touch a few lines.
	pre := 0
	for pre < n && pre < m && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && a[n-1-suf] == b[m-1-suf] {
		suf++
	}
	var ops []op
	for i := range pre {
		ops = append(ops, op{' ', i, i})
	}
	ma, mb := a[pre:n-suf], b[pre:m-suf]
	if len(ma)*len(mb) > maxCells {
		for i := range ma {
			ops = append(ops, op{'-', pre + i, 0})
		}
		for j := range mb {
			ops = append(ops, op{'+', 0, pre + j})
		}
	} else {
		ops = append(ops, lcs(ma, mb, pre)...)
	}
	for k := range suf {
		ops = append(ops, op{' ', n - suf + k, m - suf + k})
	}
	return ops
}

func lcs(a, b []string, off int) []op {
	n, m := len(a), len(b)
	t := make([]int, (n+1)*(m+1))
	at := func(i, j int) int { return t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*(m+1)+j] = at(i+1, j+1) + 1
			} else {
				t[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', off + i, off + j})
			i++
			j++
		case i < n && (j == m || at(i+1, j) >= at(i, j+1)):
			ops = append(ops, op{'-', off + i, 0})
			i++
		default:
			ops = append(ops, op{'+', 0, off + j})
			j++
		}
	}
	return ops
}

func writeHunks(out *strings.Builder, ops []op, a, b []string) {
	const ctx = 3
	i := 0
	for i < len(ops) {
		// Find the next change.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			return
		}
		start := max(i-ctx, 0)
		// Extend while changes are within 2*ctx of each other.
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		writeHunk(out, ops[start:end], a, b)
		i = end
	}
}

func writeHunk(out *strings.Builder, ops []op, a, b []string) {
	aStart, bStart := -1, -1
	aLen, bLen := 0, 0
	for _, o := range ops {
		switch o.kind {
		case ' ':
			if aStart < 0 {
				aStart = o.a
			}
			if bStart < 0 {
				bStart = o.b
			}
			aLen++
			bLen++
		case '-':
			if aStart < 0 {
				aStart = o.a
			}
			aLen++
		case '+':
			if bStart < 0 {
				bStart = o.b
			}
			bLen++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", rng(aStart, aLen), rng(bStart, bLen))
	for _, o := range ops {
		var l string
		switch o.kind {
		case ' ', '-':
			l = a[o.a]
		case '+':
			l = b[o.b]
		}
		out.WriteByte(o.kind)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// rng renders a hunk range. A side with no lines in the hunk can only be
// an empty file (otherwise context lines exist), so it is "0,0".
func rng(start, n int) string {
	switch {
	case start < 0:
		return "0,0"
	case n == 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// Line renders a one-value change the way sysctl and sysfs items show it:
// "-name = old\n+name = new\n". An empty old means it was absent.
func Line(name, old, new string) string {
	var b strings.Builder
	if old != "" {
		fmt.Fprintf(&b, "-%s = %s\n", name, old)
	}
	if new != "" {
		fmt.Fprintf(&b, "+%s = %s\n", name, new)
	}
	return b.String()
}
