package probespec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrSyntax is matched by every error Parse and ParsePattern return.
var ErrSyntax = errors.New("bad probe specification")

// A SyntaxError is a specification or pattern that cannot be parsed.
type SyntaxError struct {
	Spec string // as given
	Msg  string // what is wrong, and what was expected
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%v %q: %s", ErrSyntax, e.Spec, e.Msg) }

// Is makes a SyntaxError match ErrSyntax.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

// A Spec is one parsed probe specification.
type Spec struct {
	Path     string // "" when the specification names no file
	Provider string // glob
	Name     string // glob
	// AnyProvider marks a specification that left PROVIDER out
	// (PATH:NAME, as bpftrace and bcc take it, or a pattern of NAME
	// alone): Provider is "*". The probes probe.Find selects for it
	// must all be of one provider.
	AnyProvider bool
	// Types holds the per-argument types; nil when none were given.
	Types []Type
}

// A TypeKind says how an argument is to be shown.
type TypeKind int

const (
	Default TypeKind = iota // an integer of the note's size and sign
	Int                     // an integer of Size bytes, Signed or not
	Hex                     // an unsigned integer of the note's size, in hexadecimal
	String                  // a string at the address: NUL-terminated, or of the length in argument LenArg
	Drop                    // left out of events
)

// A Type is the type given for one argument.
type Type struct {
	Kind   TypeKind
	Size   int // bytes, for Int
	Signed bool
	// Counted marks a String that is not NUL-terminated: its length in
	// bytes is argument LenArg (from 0), as the JVM passes its names.
	// Written strN.
	Counted bool
	LenArg  int
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
		if t.Counted {
			return fmt.Sprintf("str%d", t.LenArg)
		}
		return "str"
	case Drop:
		return "_"
	}
	return ""
}

var typeNames = map[string]Type{
	"str": {Kind: String}, "hex": {Kind: Hex}, "_": {Kind: Drop},
	"s8": {Kind: Int, Size: 1, Signed: true}, "s16": {Kind: Int, Size: 2, Signed: true},
	"s32": {Kind: Int, Size: 4, Signed: true}, "s64": {Kind: Int, Size: 8, Signed: true},
	"u8": {Kind: Int, Size: 1}, "u16": {Kind: Int, Size: 2}, "u32": {Kind: Int, Size: 4}, "u64": {Kind: Int, Size: 8},
}

// maxArgs is the most arguments a probe has (sys/sdt.h's STAP_PROBE12).
const maxArgs = 12

// wantForm says what a specification is, for errors in its form.
const wantForm = "want [usdt:]PATH:PROVIDER:NAME or PROVIDER:NAME, PROVIDER and NAME globs"

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
	// bpftrace's usdt: and bcc's u: (trace, argdist) in front; each
	// lets PROVIDER out.
	prefixed := len(parts) > 2 && (parts[0] == "usdt" || parts[0] == "u")
	if prefixed {
		parts = parts[1:]
	}
	// bpftrace's wildcard PATH, usdt:* and usdt:*:PROVIDER:NAME, is every
	// object of the process traced: no PATH.
	if body == "usdt:*" {
		parts = []string{"*", "*"}
	} else if prefixed && len(parts) == 3 && parts[0] == "*" {
		parts, prefixed = parts[1:], false
	}
	omitted := false
	switch {
	case len(parts) == 2 && (prefixed || strings.ContainsRune(parts[0], '/')):
		// A first part with '/' is a file, never a provider.
		spec.Path, spec.Name = parts[0], parts[1]
		omitted = true
	case len(parts) == 2:
		spec.Provider, spec.Name = parts[0], parts[1]
	case len(parts) == 3:
		spec.Path, spec.Provider, spec.Name = parts[0], parts[1], parts[2]
	default:
		return spec, syntaxError(s, wantForm)
	}
	if (prefixed || len(parts) == 3) && spec.Path == "" {
		return spec, syntaxError(s, "empty PATH; "+wantForm)
	}
	if omitted {
		spec.Provider = "*"
		spec.AnyProvider = true
	}
	return spec, checkGlobs(s, spec, wantForm)
}

// checkGlobs checks the PROVIDER and NAME globs of spec, parsed from s:
// neither may be empty, which form explains.
func checkGlobs(s string, spec Spec, form string) error {
	for _, g := range []struct{ what, glob string }{{"PROVIDER", spec.Provider}, {"NAME", spec.Name}} {
		if g.glob == "" {
			return syntaxError(s, "empty "+g.what+"; "+form)
		}
		if err := checkGlob(g.glob); err != nil {
			return syntaxError(s, fmt.Sprintf("bad glob %q in %s", g.glob, g.what))
		}
	}
	return nil
}

func parseTypes(list string) ([]Type, error) {
	types := []Type{}
	if strings.TrimSpace(list) == "" {
		return types, nil
	}
	for i, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		t, ok := typeNames[name]
		if !ok {
			var err error
			if t, ok, err = countedString(name, i); err != nil {
				return nil, fmt.Errorf("arg%d: %v", i, err)
			}
		}
		if !ok {
			return nil, fmt.Errorf("arg%d: unknown type %q (want str, strN, s8..s64, u8..u64, hex or _)", i, name)
		}
		types = append(types, t)
	}
	return types, nil
}

// countedString parses strN, the type of argument i: a string whose
// length is argument N. ok is false when name is not of that form.
func countedString(name string, i int) (t Type, ok bool, err error) {
	digits, found := strings.CutPrefix(name, "str")
	if !found || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return t, false, nil
	}
	n, err := strconv.Atoi(digits)
	switch {
	case err != nil || n >= maxArgs || len(digits) > 1 && digits[0] == '0':
		return t, false, fmt.Errorf("%q: the length of a string is one of arg0 to arg%d", name, maxArgs-1)
	case n == i:
		return t, false, fmt.Errorf("%q: a string cannot be its own length", name)
	}
	return Type{Kind: String, Counted: true, LenArg: n}, true, nil
}

func syntaxError(s, msg string) error {
	return &SyntaxError{Spec: s, Msg: msg}
}

// Match reports whether a probe matches the provider and name globs.
func (s Spec) Match(provider, name string) bool {
	return MatchGlob(s.Provider, provider) && MatchGlob(s.Name, name)
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
	if s.AnyProvider && s.Path != "" {
		b.WriteString("usdt:")
	}
	if s.Path != "" {
		b.WriteString(s.Path)
		b.WriteByte(':')
	}
	if !s.AnyProvider {
		b.WriteString(s.Provider)
		b.WriteByte(':')
	}
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

// ParseAll parses each of ss with Parse, stopping at the first error.
func ParseAll(ss ...string) ([]Spec, error) {
	specs := make([]Spec, 0, len(ss))
	for _, s := range ss {
		spec, err := Parse(s)
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
	}
	return specs, nil
}
