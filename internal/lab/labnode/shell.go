package labnode

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A tiny POSIX sh subset: exactly what internal/transport sends (see its
// commands.go). Words with '...', "..." and \ quoting; ; && || { } and the
// redirections `> FILE` and `2>/dev/null`. No variables, globs or pipes:
// anything else is refused, so a transport change that the lab does not
// understand fails loudly instead of being half-emulated.

type token struct {
	s      string
	op     bool // an operator: ; && || > 2>
	quoted bool // the word had quotes, so "{" is a word, not a group
}

var errUnsupported = errors.New("lab shell: unsupported syntax")

func tokenize(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
			continue
		case c == ';':
			toks = append(toks, token{s: ";", op: true})
			i++
			continue
		case strings.HasPrefix(s[i:], "&&"), strings.HasPrefix(s[i:], "||"):
			toks = append(toks, token{s: s[i : i+2], op: true})
			i += 2
			continue
		case c == '>':
			toks = append(toks, token{s: ">", op: true})
			i++
			continue
		case strings.HasPrefix(s[i:], "2>"):
			toks = append(toks, token{s: "2>", op: true})
			i += 2
			continue
		case strings.ContainsRune("|&<`$()*?[", rune(c)):
			return nil, fmt.Errorf("%w: %q at offset %d", errUnsupported, c, i)
		}
		var w strings.Builder
		quoted := false
	word:
		for i < len(s) {
			c := s[i]
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '>' || c == '&' || c == '|':
				break word
			case c == '\'':
				j := strings.IndexByte(s[i+1:], '\'')
				if j < 0 {
					return nil, fmt.Errorf("%w: unterminated '", errUnsupported)
				}
				w.WriteString(s[i+1 : i+1+j])
				i += j + 2
				quoted = true
			case c == '"':
				i++
				for {
					if i >= len(s) {
						return nil, fmt.Errorf("%w: unterminated \"", errUnsupported)
					}
					if s[i] == '"' {
						i++
						break
					}
					if s[i] == '$' || s[i] == '`' {
						return nil, fmt.Errorf("%w: expansion inside \"\"", errUnsupported)
					}
					if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
						i++
					}
					w.WriteByte(s[i])
					i++
				}
				quoted = true
			case c == '\\':
				if i+1 >= len(s) {
					return nil, fmt.Errorf("%w: trailing backslash", errUnsupported)
				}
				w.WriteByte(s[i+1])
				i += 2
				quoted = true
			case strings.ContainsRune("<`$()*?[", rune(c)):
				return nil, fmt.Errorf("%w: %q at offset %d", errUnsupported, c, i)
			default:
				w.WriteByte(c)
				i++
			}
		}
		toks = append(toks, token{s: w.String(), quoted: quoted})
	}
	return toks, nil
}

// The syntax tree.
type (
	list  struct{ items []andOr }
	andOr struct {
		cmds []command
		ops  []string // ops[i] joins cmds[i] and cmds[i+1]
	}
	command struct {
		group      *list
		words      []string
		stdoutFile string
		stderrNull bool
	}
)

type parser struct {
	toks []token
	pos  int
}

func parse(s string) (*list, error) {
	toks, err := tokenize(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	l, err := p.list(false)
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("%w: unexpected %q", errUnsupported, p.toks[p.pos].s)
	}
	return l, nil
}

func (p *parser) peek() (token, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return token{}, false
}

func isWord(t token, s string) bool { return !t.op && !t.quoted && t.s == s }

func (p *parser) list(inGroup bool) (*list, error) {
	l := &list{}
	for {
		t, ok := p.peek()
		if !ok || (inGroup && isWord(t, "}")) {
			break
		}
		if t.op && t.s == ";" {
			p.pos++
			continue
		}
		a, err := p.andOr()
		if err != nil {
			return nil, err
		}
		l.items = append(l.items, *a)
	}
	return l, nil
}

func (p *parser) andOr() (*andOr, error) {
	a := &andOr{}
	for {
		c, err := p.command()
		if err != nil {
			return nil, err
		}
		a.cmds = append(a.cmds, *c)
		t, ok := p.peek()
		if !ok || !t.op || (t.s != "&&" && t.s != "||") {
			return a, nil
		}
		a.ops = append(a.ops, t.s)
		p.pos++
	}
}

func (p *parser) command() (*command, error) {
	c := &command{}
	if t, ok := p.peek(); ok && isWord(t, "{") {
		p.pos++
		g, err := p.list(true)
		if err != nil {
			return nil, err
		}
		if t, ok := p.peek(); !ok || !isWord(t, "}") {
			return nil, fmt.Errorf("%w: missing }", errUnsupported)
		}
		p.pos++
		c.group = g
		return c, nil
	}
	for {
		t, ok := p.peek()
		if !ok || (t.op && t.s != ">" && t.s != "2>") || isWord(t, "}") {
			break
		}
		p.pos++
		if t.op {
			target, ok := p.peek()
			if !ok || target.op {
				return nil, fmt.Errorf("%w: redirection without a file", errUnsupported)
			}
			p.pos++
			if t.s == ">" {
				c.stdoutFile = target.s
			} else if target.s == "/dev/null" {
				c.stderrNull = true
			} else {
				return nil, fmt.Errorf("%w: 2> only to /dev/null", errUnsupported)
			}
			continue
		}
		c.words = append(c.words, t.s)
	}
	if len(c.words) == 0 {
		return nil, fmt.Errorf("%w: empty command", errUnsupported)
	}
	return c, nil
}

// exitError ends a script (the exit builtin).
type exitError struct{ code int }

func (e exitError) Error() string { return "exit " + strconv.Itoa(e.code) }
