package dtrace

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []Provider
	}{
		{"", nil},
		{"provider p { };", []Provider{{Name: "p"}}},
		{"provider p { probe q(); probe r(void); };", []Provider{{"p", []Probe{{Name: "q"}, {Name: "r"}}}}},
		{
			"provider p {\n\tprobe q(int, char *);\n};",
			[]Provider{{"p", []Probe{{"q", []Arg{{"int", "arg0"}, {"char *", "arg1"}}}}}},
		},
		{
			"provider demo { probe start(const char *path, unsigned long long id, char **argv, int n); }",
			[]Provider{{"demo", []Probe{{"start", []Arg{
				{"const char *", "path"}, {"unsigned long long", "id"}, {"char **", "argv"}, {"int", "n"},
			}}}}},
		},
		{
			"provider p { probe q(struct foo *f, struct foo, uint64_t count, unsigned u, long long); };",
			[]Provider{{"p", []Probe{{"q", []Arg{
				{"struct foo *", "f"}, {"struct foo", "arg1"}, {"uint64_t", "count"}, {"unsigned", "u"}, {"long long", "arg4"},
			}}}}},
		},
		{
			"#pragma D attributes Evolving/Evolving/Common provider p provider\n" +
				"/* block\n comment */ provider p { // line comment\n probe a__b(int) : (string); };\n" +
				"provider q { probe c(char*s); };",
			[]Provider{{"p", []Probe{{"a__b", []Arg{{"int", "arg0"}}}}}, {"q", []Probe{{"c", []Arg{{"char *", "s"}}}}}},
		},
	} {
		got, err := Parse("x.d", []byte(tt.src))
		if err != nil {
			t.Errorf("Parse(%q) error: %v", tt.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.src, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		src, want string
	}{
		{"provide p {};", `x.d:1:1: expected "provider", found "provide"`},
		{"provider {};", `x.d:1:10: expected provider name, found '{'`},
		{"provider p\n{ probe q(int) }", `x.d:2:16: expected ';' after the probe, found '}'`},
		{"provider p { probe q(int x y); };", `x.d:1:28: expected ',' or ')' after arg0, found "y"`},
		{"provider p { probe q(int,); };", `x.d:1:26: expected argument type, found ')'`},
		{"provider p { probe q(int); ", `x.d:1:28: expected "probe" or '}', found end of file`},
		{"provider p { probe q(); probe q(); };", `x.d:1:25: probe q declared twice in provider p`},
		{"provider p {}; provider p {};", `x.d:1:16: provider p declared twice`},
		{"provider p { probe q(const); };", `x.d:1:22: arg0 has no type`},
		{"provider p { probe q(struct); };", `x.d:1:22: struct without a tag in arg0`},
		{"provider p { probe q(int, union *); };", `x.d:1:27: union without a tag in arg1`},
		{"provider p { probe q(enum const e); };", `x.d:1:22: enum without a tag in arg0`},
		{"provider p { probe q(struct struct s); };", `x.d:1:22: struct without a tag in arg0`},
		{"/* open", `x.d:1:1: comment not terminated`},
		{"provider p { probe q(int $); };", `x.d:1:26: unexpected character '$'`},
		{"provider p { probe q(char name[4]); };", `x.d:1:31: expected ',' or ')' after arg0, found '['`},
	} {
		_, err := Parse("x.d", []byte(tt.src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tt.src, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q) error = %q, want %q", tt.src, err, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		ctype string
		want  Type
	}{
		{"char *", Type{String, 8}},
		{"const char *", Type{String, 8}},
		{"char const*", Type{String, 8}},
		{"unsigned char *", Type{String, 8}},
		{"char **", Type{Pointer, 8}},
		{"void *", Type{Pointer, 8}},
		{"struct foo *", Type{Pointer, 8}},
		{"char", Type{Signed, 1}},
		{"unsigned char", Type{Unsigned, 1}},
		{"short", Type{Signed, 2}},
		{"unsigned short int", Type{Unsigned, 2}},
		{"int", Type{Signed, 4}},
		{"unsigned", Type{Unsigned, 4}},
		{"signed", Type{Signed, 4}},
		{"long", Type{Signed, 8}},
		{"unsigned long", Type{Unsigned, 8}},
		{"long long", Type{Signed, 8}},
		{"unsigned long long", Type{Unsigned, 8}},
		{"const int", Type{Signed, 4}},
		{"uint16_t", Type{Unsigned, 2}},
		{"int64_t", Type{Signed, 8}},
		{"size_t", Type{Unsigned, 8}},
		{"bool", Type{Unsigned, 1}},
		{"string", Type{String, 8}},
		{"float", Type{Float, 4}},
		{"double", Type{Float, 8}},
		{"long double", Type{Float, 16}},
		{"struct foo", Type{Unknown, 0}},
		{"mytype_t", Type{Unknown, 0}},
	} {
		if got := Classify(tt.ctype); got != tt.want {
			t.Errorf("Classify(%q) = %v, want %v", tt.ctype, got, tt.want)
		}
	}
}

func TestDisplayName(t *testing.T) {
	p := Probe{Name: "request__start"}
	if got := p.DisplayName(); got != "request-start" {
		t.Errorf("DisplayName() = %q, want %q", got, "request-start")
	}
}

func TestStringRoundTrip(t *testing.T) {
	src := "provider p { probe q(const char *s, int, unsigned long long n, char **v); probe r(); };"
	provs, err := Parse("x.d", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := provs[0].String()
	if !strings.Contains(text, "probe q(const char *s, int arg1, unsigned long long n, char **v);") {
		t.Errorf("String() = %q", text)
	}
	back, err := Parse("y.d", []byte(text))
	if err != nil || !reflect.DeepEqual(back, provs) {
		t.Errorf("Parse(String()) = %+v, %v, want %+v", back, err, provs)
	}
}
