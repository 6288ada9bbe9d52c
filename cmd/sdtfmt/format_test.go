package main

import (
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/event"
)

func TestTemplate(t *testing.T) {
	e := &event.Event{
		Provider: "demo", Name: "tick",
		Args: []event.Value{
			{Kind: event.Uint, Uint: 1<<64 - 1},
			{Kind: event.Int, Int: -5},
			{Kind: event.String, Str: "0x1f"},
			{Kind: event.String, Str: "a b"},
			{},
		},
		Fields: []event.Field{{Name: "len", Value: event.Value{Kind: event.Uint, Uint: 3}}},
	}
	for _, tt := range []struct {
		format, want string
	}{
		{"%d %d %d %s %d", "18446744073709551615 -5 31 a b ?"},
		{"%u %u", "18446744073709551615 18446744073709551611"},
		{"%x %x %x", "ffffffffffffffff fffffffffffffffb 1f"},
		{"%s %s %s %q", `18446744073709551615 -5 0x1f "a b"`},
		{"%q %q", `"18446744073709551615" "-5"`},
		{"len=%{len} 100%%", "len=3 100%"},
		{"%{nope}", "%!{nope}(MISSING)"},
		{"%d %d %d %d %d %d", "18446744073709551615 -5 31 %!d(\"a b\") ? %!d(MISSING)"},
		{"[%6d] [%-6d] [%06d]", "[18446744073709551615] [-5    ] [000031]"},
		{"%s %s %s [%05s]", `18446744073709551615 -5 0x1f [  a b]`},
		{"%s %s %s %s [%05d]", `18446744073709551615 -5 0x1f a b [    ?]`},
		{"%d%d[%06d]", "18446744073709551615-5[000031]"},
		{"%d[%06d]", "18446744073709551615[-00005]"},
	} {
		parts, err := parseFormat(tt.format)
		if err != nil {
			t.Errorf("parseFormat(%q): %v", tt.format, err)
			continue
		}
		tp := &template{parts: parts}
		if got := string(tp.appendText(nil, e)); got != tt.want {
			t.Errorf("format %q = %q, want %q", tt.format, got, tt.want)
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for _, tt := range []struct {
		arg, want string
	}{
		{"demo:tick", "want PROVIDER:NAME=FORMAT"},
		{"=%d", "want PROVIDER:NAME=FORMAT"},
		{"[x=%d", "syntax error in pattern"},
		{"tick=%z", "%z: unknown verb"},
		{"tick=%", "% at the end"},
		{"tick=%{len", "%{ without }"},
		{"tick=%{a-b}", "not a field name"},
	} {
		_, err := parseTemplate(tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseTemplate(%q) error = %v, want %q", tt.arg, err, tt.want)
		}
	}
}

func TestParseKey(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		want string // String of the key, or "" for an error
	}{
		{"pid", "pid"}, {"tid", "tid"}, {"comm", "comm"}, {"arg0", "arg0"}, {"arg12", "arg12"},
		{"len", "len"}, {"arg", "arg"}, {"arg+1", ""}, {"a.b", ""}, {"", ""},
	} {
		k, err := parseKey(tt.arg)
		got := ""
		if err == nil {
			got = k.String()
		}
		if got != tt.want {
			t.Errorf("parseKey(%q) = %q, %v, want %q", tt.arg, got, err, tt.want)
		}
	}
}
