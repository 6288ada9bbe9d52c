package dtrace

import (
	"fmt"
	"strings"
)

// Parse parses the provider file src; name is the file name used in
// errors. Errors are *SyntaxError, at the first problem found.
func Parse(name string, src []byte) ([]Provider, error) {
	p := &parser{lex: newLexer(name, src)}
	if err := p.read(); err != nil {
		return nil, err
	}
	var provs []Provider
	seen := make(map[string]bool)
	for p.tok.kind != tEOF {
		at := p.tok
		prov, err := p.provider()
		if err != nil {
			return nil, err
		}
		if seen[prov.Name] {
			return nil, p.lex.errorf(at.line, at.col, "provider %s declared twice", prov.Name)
		}
		seen[prov.Name] = true
		provs = append(provs, prov)
	}
	return provs, nil
}

type parser struct {
	lex *lexer
	tok token // the next token
}

func (p *parser) read() error {
	t, err := p.lex.next()
	p.tok = t
	return err
}

func (p *parser) errorf(format string, a ...any) error {
	return p.lex.errorf(p.tok.line, p.tok.col, format, a...)
}

// expect consumes the punctuation or keyword text, or reports what was
// found instead.
func (p *parser) expect(text, what string) error {
	if p.tok.kind == tEOF || p.tok.kind == tNumber || p.tok.text != text {
		return p.errorf("expected %s, found %v", what, p.tok)
	}
	return p.read()
}

func (p *parser) ident(what string) (string, error) {
	if p.tok.kind != tIdent {
		return "", p.errorf("expected %s, found %v", what, p.tok)
	}
	s := p.tok.text
	return s, p.read()
}

// provider parses: provider NAME { probe... } ;
func (p *parser) provider() (Provider, error) {
	var prov Provider
	if err := p.expect("provider", `"provider"`); err != nil {
		return prov, err
	}
	var err error
	if prov.Name, err = p.ident("provider name"); err != nil {
		return prov, err
	}
	if err := p.expect("{", "'{'"); err != nil {
		return prov, err
	}
	seen := make(map[string]bool)
	for p.tok.text != "}" || p.tok.kind != tPunct {
		at := p.tok
		q, err := p.probe()
		if err != nil {
			return prov, err
		}
		if seen[q.Name] {
			return prov, p.lex.errorf(at.line, at.col, "probe %s declared twice in provider %s", q.Name, prov.Name)
		}
		seen[q.Name] = true
		prov.Probes = append(prov.Probes, q)
	}
	if err := p.read(); err != nil {
		return prov, err
	}
	// DTrace wants the ';' after the block; systemtap's dtrace does not.
	if p.tok.kind == tPunct && p.tok.text == ";" {
		return prov, p.read()
	}
	return prov, nil
}

// probe parses: probe NAME ( ARGS ) [ : ( ARGS ) ] ;
func (p *parser) probe() (Probe, error) {
	var q Probe
	if p.tok.kind == tEOF {
		return q, p.errorf("expected \"probe\" or '}', found end of file")
	}
	if err := p.expect("probe", `"probe" or '}'`); err != nil {
		return q, err
	}
	var err error
	if q.Name, err = p.ident("probe name"); err != nil {
		return q, err
	}
	if q.Args, err = p.args(); err != nil {
		return q, err
	}
	if p.tok.kind == tPunct && p.tok.text == ":" {
		if err := p.read(); err != nil {
			return q, err
		}
		if _, err := p.args(); err != nil {
			return q, err
		}
	}
	return q, p.expect(";", "';' after the probe")
}

// args parses a parenthesized argument list; "()" and "(void)" are empty.
func (p *parser) args() ([]Arg, error) {
	if err := p.expect("(", "'('"); err != nil {
		return nil, err
	}
	var args []Arg
	if p.tok.kind == tPunct && p.tok.text == ")" {
		return nil, p.read()
	}
	for {
		var words []token
		for p.tok.kind == tIdent || p.tok.kind == tPunct && p.tok.text == "*" {
			words = append(words, p.tok)
			if err := p.read(); err != nil {
				return nil, err
			}
		}
		if len(words) == 0 {
			return nil, p.errorf("expected argument type, found %v", p.tok)
		}
		if len(words) == 1 && words[0].text == "void" && len(args) == 0 && p.tok.text == ")" {
			return nil, p.read()
		}
		a, err := p.newArg(words, len(args))
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.tok.kind == tPunct && p.tok.text == "," {
			if err := p.read(); err != nil {
				return nil, err
			}
			continue
		}
		if p.tok.kind == tPunct && p.tok.text == ")" {
			return args, p.read()
		}
		return nil, p.errorf("expected ',' or ')' after arg%d, found %v", len(args)-1, p.tok)
	}
}

// newArg splits the words of an argument into type and name: the last
// word is a name when the words before it make a complete type. A type
// holds at most one word that is not a C keyword (a typedef or a tag).
func (p *parser) newArg(toks []token, n int) (Arg, error) {
	a := Arg{Name: fmt.Sprintf("arg%d", n)}
	words := make([]string, len(toks))
	var names []int // words that are not keywords
	for i, t := range toks {
		words[i] = t.text
		if t.text != "*" && !typeWord[t.text] {
			names = append(names, i)
		}
	}
	last := len(words) - 1
	switch {
	case len(names) > 2, len(names) == 2 && names[1] != last:
		t := toks[names[len(names)-1]]
		return a, p.lex.errorf(t.line, t.col, "expected ',' or ')' after arg%d, found %v", n, t)
	case len(names) == 2 && hasBasic(words[:last]):
		t := toks[names[1]]
		return a, p.lex.errorf(t.line, t.col, "expected ',' or ')' after arg%d, found %v", n, t)
	case len(names) >= 1 && names[len(names)-1] == last && completeType(words[:last]):
		a.Name = words[last]
		words = words[:last]
	}
	if len(names) > 0 && names[0] < len(words) && hasBasic(words) {
		t := toks[names[0]]
		return a, p.lex.errorf(t.line, t.col, "unexpected %v in the type of arg%d", t, n)
	}
	if !hasType(words) {
		return a, p.lex.errorf(toks[0].line, toks[0].col, "arg%d has no type", n)
	}
	for i, w := range words {
		// A tag must follow: "struct *" is no type, and would be read
		// back with its argument's name as the tag.
		if (w == "struct" || w == "union" || w == "enum") && (i+1 == len(words) || words[i+1] == "*" || typeWord[words[i+1]]) {
			return a, p.lex.errorf(toks[i].line, toks[i].col, "%s without a tag in arg%d", w, n)
		}
	}
	a.Type = joinType(words)
	return a, nil
}

// hasBasic reports whether words hold a basic type keyword, which a
// typedef name cannot be combined with.
func hasBasic(words []string) bool {
	for _, w := range words {
		if typeWord[w] && !qualifier[w] && w != "struct" && w != "union" && w != "enum" {
			return true
		}
	}
	return false
}

// completeType reports whether words name a type that a name may follow:
// not only qualifiers, and not a bare struct, union or enum keyword.
func completeType(words []string) bool {
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		if w == "*" || qualifier[w] {
			continue
		}
		return w != "struct" && w != "union" && w != "enum"
	}
	return false
}

// hasType reports whether words hold something other than qualifiers.
func hasType(words []string) bool {
	for _, w := range words {
		if w != "*" && !qualifier[w] {
			return true
		}
	}
	return false
}

func joinType(words []string) string {
	var b strings.Builder
	for i, w := range words {
		switch {
		case w == "*" && i > 0 && words[i-1] == "*":
		case i > 0:
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

var qualifier = map[string]bool{"const": true, "volatile": true, "restrict": true, "__restrict": true}

// typeWord holds the words that belong to a type and cannot be a name.
var typeWord = map[string]bool{
	"void": true, "char": true, "short": true, "int": true, "long": true,
	"float": true, "double": true, "signed": true, "unsigned": true,
	"_Bool": true, "const": true, "volatile": true, "restrict": true,
	"__restrict": true, "struct": true, "union": true, "enum": true,
}
