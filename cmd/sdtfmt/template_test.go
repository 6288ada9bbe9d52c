package main

import (
	"strings"
	"testing"
)

func TestParseTemplateErrors(t *testing.T) {
	for _, tt := range []struct {
		arg, want string
	}{
		{"demo:tick", "want PROVIDER:NAME=FORMAT"},
		{"=%d", "want PROVIDER:NAME=FORMAT"},
		{"[x=%d", `[x: bad glob "[x" in NAME`},
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
