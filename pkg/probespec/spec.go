package probespec

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrSyntax is matched by every error Parse returns.
var ErrSyntax = errors.New("bad probe specification")

// A Spec is one parsed probe specification.
type Spec struct {
	Path     string // "" when the specification names no file
	Provider string // glob
	Name     string // glob
	// Types holds the per-argument types; nil when none were given.
	Types []Type
}

// A TypeKind says how an argument is to be shown.
type TypeKind int

const (
	Default TypeKind = iota // an integer of the note's size and sign
	Int                     // an integer of Size bytes, Signed or not
	Hex                     // an unsigned integer of the note's size, in hexadecimal
	String                  // a NUL-terminated string at the address
	Drop                    // left out of events
)

// A Type is the type given for one argument.
type Type struct {
	Kind   TypeKind
	Size   int // bytes, for Int
	Signed bool
}

// String returns the type as written in a specification.
func (t Type) String() string {
	switch t.Kind {
	case Int:
		c := "u"
		if t.Signed {
			c = "s"
		}
		return fmt.Sprintf("%s%d", c, 8*t.Size)
	case Hex:
		return "hex"
	case String:
		return "str"
	case Drop:
		return "_"
	}
	return ""
}

var typeNames = map[string]Type{
	"str": {Kind: String}, "hex": {Kind: Hex}, "_": {Kind: Drop},
	"s8": {Int, 1, true}, "s16": {Int, 2, true}, "s32": {Int, 4, true}, "s64": {Int, 8, true},
	"u8": {Int, 1, false}, "u16": {Int, 2, false}, "u32": {Int, 4, false}, "u64": {Int, 8, false},
}

// Parse parses one probe specification. Errors match ErrSyntax and say
// what was expected.
func Parse(s string) (Spec, error) {
	var spec Spec
	body := s
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return spec, syntaxError(s, "argument types must end with ')'")
		}
		body = s[:i]
		types, err := parseTypes(s[i+1 : len(s)-1])
		if err != nil {
			return spec, syntaxError(s, err.Error())
		}
		spec.Types = types
	}
	parts := strings.Split(body, ":")
	if len(parts) == 4 && parts[0] == "usdt" {
		parts = parts[1:]
	}
	switch len(parts) {
	case 2:
		spec.Provider, spec.Name = parts[0], parts[1]
	case 3:
		spec.Path, spec.Provider, spec.Name = parts[0], parts[1], parts[2]
		if spec.Path == "" {
			return spec, syntaxError(s, "empty PATH")
		}
		if spec.Path == "usdt" {
			return spec, syntaxError(s, "usdt: must be followed by PATH:PROVIDER:NAME")
		}
	default:
		return spec, syntaxError(s, "want [usdt:]PATH:PROVIDER:NAME or PROVIDER:NAME")
	}
	for _, g := range []struct{ what, glob string }{{"PROVIDER", spec.Provider}, {"NAME", spec.Name}} {
		if g.glob == "" {
			return spec, syntaxError(s, "empty "+g.what)
		}
		if _, err := path.Match(g.glob, ""); err != nil {
			return spec, syntaxError(s, fmt.Sprintf("bad glob %q in %s", g.glob, g.what))
		}
	}
	return spec, nil
}

func parseTypes(list string) ([]Type, error) {
	types := []Type{}
	if strings.TrimSpace(list) == "" {
		return types, nil
	}
	for i, name := range strings.Split(list, ",") {
		t, ok := typeNames[strings.TrimSpace(name)]
		if !ok {
			return nil, fmt.Errorf("argument %d: unknown type %q (want str, s8..s64, u8..u64, hex or _)", i, strings.TrimSpace(name))
		}
		types = append(types, t)
	}
	return types, nil
}

func syntaxError(s, msg string) error {
	return fmt.Errorf("%w %q: %s", ErrSyntax, s, msg)
}

// Match reports whether a probe matches the provider and name globs.
func (s Spec) Match(provider, name string) bool {
	ok, _ := path.Match(s.Provider, provider)
	if !ok {
		return false
	}
	ok, _ = path.Match(s.Name, name)
	return ok
}

// Type returns the type given for argument i, Default when none was.
func (s Spec) Type(i int) Type {
	if i < len(s.Types) {
		return s.Types[i]
	}
	return Type{}
}

// String returns the specification in canonical form.
func (s Spec) String() string {
	var b strings.Builder
	if s.Path != "" {
		b.WriteString(s.Path)
		b.WriteByte(':')
	}
	b.WriteString(s.Provider)
	b.WriteByte(':')
	b.WriteString(s.Name)
	if s.Types != nil {
		b.WriteByte('(')
		for i, t := range s.Types {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(t.String())
		}
		b.WriteByte(')')
	}
	return b.String()
}
