package probespec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Spec
		str  string
	}{
		{"p:q", Spec{Provider: "p", Name: "q"}, "p:q"},
		{"/bin/x:p:q", Spec{Path: "/bin/x", Provider: "p", Name: "q"}, "/bin/x:p:q"},
		{"usdt:/bin/x:p:q", Spec{Path: "/bin/x", Provider: "p", Name: "q"}, "/bin/x:p:q"},
		{"libc:*:mem*", Spec{Path: "libc", Provider: "*", Name: "mem*"}, "libc:*:mem*"},
		{"p:q(str,s32,_,hex,u8)", Spec{Provider: "p", Name: "q", Types: []Type{{Kind: String}, {Kind: Int, Size: 4, Signed: true}, {Kind: Drop}, {Kind: Hex}, {Kind: Int, Size: 1}}}, "p:q(str,s32,_,hex,u8)"},
		{"p:q( str , u64 )", Spec{Provider: "p", Name: "q", Types: []Type{{Kind: String}, {Kind: Int, Size: 8}}}, "p:q(str,u64)"},
		{"p:q()", Spec{Provider: "p", Name: "q", Types: []Type{}}, "p:q()"},
		// The JVM's names: a pointer, then the length.
		{"hotspot:thread__start(str1,_,s64)", Spec{Provider: "hotspot", Name: "thread__start", Types: []Type{{Kind: String, Counted: true, LenArg: 1}, {Kind: Drop}, {Kind: Int, Size: 8, Signed: true}}}, "hotspot:thread__start(str1,_,s64)"},
		// bpftrace's PATH:NAME, provider left out; a first part
		// with '/' is a PATH.
		{"usdt:/bin/x:q", Spec{Path: "/bin/x", Provider: "*", Name: "q", AnyProvider: true}, "usdt:/bin/x:q"},
		{"/bin/x:q*", Spec{Path: "/bin/x", Provider: "*", Name: "q*", AnyProvider: true}, "usdt:/bin/x:q*"},
		{"usdt:python3:q", Spec{Path: "python3", Provider: "*", Name: "q", AnyProvider: true}, "usdt:python3:q"},
		{"./x:q(str)", Spec{Path: "./x", Provider: "*", Name: "q", AnyProvider: true, Types: []Type{{Kind: String}}}, "usdt:./x:q(str)"},
		// bcc's trace and argdist.
		{"u:c:q", Spec{Path: "c", Provider: "*", Name: "q", AnyProvider: true}, "usdt:c:q"},
		{"u:/lib/libc.so.6:p:q", Spec{Path: "/lib/libc.so.6", Provider: "p", Name: "q"}, "/lib/libc.so.6:p:q"},
		// bpftrace's wildcard PATH: every object of the process.
		{"usdt:*", Spec{Provider: "*", Name: "*"}, "*:*"},
		{"usdt:*:p:q", Spec{Provider: "p", Name: "q"}, "p:q"},
		// Brace alternatives.
		{"python:gc__{start,done}", Spec{Provider: "python", Name: "gc__{start,done}"}, "python:gc__{start,done}"},
		{"p:q(u32,str0,str11)", Spec{Provider: "p", Name: "q", Types: []Type{{Kind: Int, Size: 4}, {Kind: String, Counted: true}, {Kind: String, Counted: true, LenArg: 11}}}, "p:q(u32,str0,str11)"},
	} {
		got, err := Parse(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			continue
		}
		if s := got.String(); s != tt.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, s, tt.str)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"", "q", "a:b:c:d", ":p:q", "usdt::q", "u::q", "u:a:b:c:d", "/bin/x::q", "/bin/x:",
		"p:{a", "p:a}", "p:{a,[x}", "{p:q}", "p:", ":q", "p:q(str", "p:q(int)",
		"p:[x", "usdt:a:b:c:d",
		"p:q(str0)", "p:q(u8,str1)", "p:q(str12)", "p:q(str01)", "p:q(str-1)", "p:q(strx)", "p:q(str 1)",
	} {
		if got, err := Parse(in); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %+v, %v, want an ErrSyntax error", in, got, err)
		}
	}
}

// Errors in the form of a specification say what the form is.
func TestParseErrorForm(t *testing.T) {
	for _, in := range []string{"::", ":::", "a:b:c:d:e", "p:", ":q", "x::q", "q"} {
		_, err := Parse(in)
		if want := "want [usdt:]PATH:PROVIDER:NAME or PROVIDER:NAME"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

// Errors name arguments from 0, as args[0] of an event is the first.
func TestParseErrorArgs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"p:q(u8,int)", `arg1: unknown type "int"`},
		{"p:q(str0)", `arg0: "str0": a string cannot be its own length`},
		{"p:q(str12)", "one of arg0 to arg11"},
	} {
		if _, err := Parse(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		spec, provider, name string
		want                 bool
	}{
		{"p:q", "p", "q", true},
		{"p:q", "p", "qq", false},
		{"*:q*", "x", "query", true},
		{"node:http__*", "node", "http__server__request", true},
		{"node:http__*", "node", "gc__start", false},
		{"python:gc__{start,done}", "python", "gc__done", true},
		{"python:gc__{start,done}", "python", "gc__started", false},
		{"{py,node}*:{a,b{c,d}}", "node", "bd", true},
		{"{py,node}*:{a,b{c,d}}", "python", "b", false},
		{"{,x}p:q", "p", "q", true},
		{"usdt:/bin/x:q", "anything", "q", true},
	} {
		s, err := Parse(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Match(tt.provider, tt.name); got != tt.want {
			t.Errorf("Parse(%q).Match(%q, %q) = %v, want %v", tt.spec, tt.provider, tt.name, got, tt.want)
		}
	}
}

func TestType(t *testing.T) {
	s, _ := Parse("p:q(str)")
	if s.Type(0).Kind != String || s.Type(1).Kind != Default {
		t.Errorf("Type(0), Type(1) = %v, %v, want str and the default", s.Type(0), s.Type(1))
	}
}

func TestParsePattern(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want Spec
		err  string
	}{
		{"node:http__*", Spec{Provider: "node", Name: "http__*"}, ""},
		{"*:gc*", Spec{Provider: "*", Name: "gc*"}, ""},
		{"usdt:p:q", Spec{Provider: "p", Name: "q"}, ""},
		{"usdt:*", Spec{Provider: "*", Name: "*"}, ""},
		{"usdt:*:p:q*", Spec{Provider: "p", Name: "q*"}, ""},
		{"usdt:*a:b:c", Spec{}, patternForm},
		{"gc*", Spec{Provider: "*", Name: "gc*", AnyProvider: true}, ""},
		{"gc__{start,done}", Spec{Provider: "*", Name: "gc__{start,done}", AnyProvider: true}, ""},
		{"p:{a,b", Spec{}, `bad glob "{a,b" in NAME`},
		{":tick", Spec{}, "empty PROVIDER; " + patternForm},
		{"demo:", Spec{}, "empty NAME; " + patternForm},
		{"::", Spec{}, patternForm},
		{"a:b:c", Spec{}, patternForm},
		{"[x:y", Spec{}, `bad glob "[x" in PROVIDER`},
	} {
		got, err := ParsePattern(tt.s)
		var se *SyntaxError
		switch {
		case tt.err == "" && (err != nil || !reflect.DeepEqual(got, tt.want)):
			t.Errorf("ParsePattern(%q) = %+v, %v, want %+v", tt.s, got, err, tt.want)
		case tt.err != "" && (!errors.As(err, &se) || se.Msg != tt.err || !errors.Is(err, ErrSyntax)):
			t.Errorf("ParsePattern(%q) = %v, want a SyntaxError %q", tt.s, err, tt.err)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	for _, tt := range []struct {
		pat            string
		provider, name string
		want           bool
	}{
		{"demo:tick", "demo", "tick", true},
		{"demo:t*", "demo", "start", false},
		{"*:*art", "demo", "start", true},
		{"tick", "other", "tick", true},
		{"d?mo:[st]*", "demo", "tick", true},
		{"demo:{tick,start}", "demo", "start", true},
		{"{start,tick}", "demo", "tick", true},
	} {
		p, err := ParsePattern(tt.pat)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Match(tt.provider, tt.name); got != tt.want {
			t.Errorf("ParsePattern(%q).Match(%q, %q) = %v, want %v", tt.pat, tt.provider, tt.name, got, tt.want)
		}
	}
}
