package probespec

import (
	"errors"
	"reflect"
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
		{"p:q(str,s32,_,hex,u8)", Spec{Provider: "p", Name: "q", Types: []Type{{Kind: String}, {Int, 4, true}, {Kind: Drop}, {Kind: Hex}, {Int, 1, false}}}, "p:q(str,s32,_,hex,u8)"},
		{"p:q( str , u64 )", Spec{Provider: "p", Name: "q", Types: []Type{{Kind: String}, {Int, 8, false}}}, "p:q(str,u64)"},
		{"p:q()", Spec{Provider: "p", Name: "q", Types: []Type{}}, "p:q()"},
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
		"", "q", "a:b:c:d", "usdt:p:q", ":p:q", "p:", ":q", "p:q(str", "p:q(int)",
		"p:[x", "usdt:a:b:c:d",
	} {
		if got, err := Parse(in); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %+v, %v, want an ErrSyntax error", in, got, err)
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
