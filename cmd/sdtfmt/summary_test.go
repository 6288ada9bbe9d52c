package main

import (
	"strings"
	"testing"
)

func TestParseLatency(t *testing.T) {
	for _, tt := range []struct {
		arg             string
		start, end, key string
		// matched: each START, then each END probe the patterns select.
		starts, ends []string
	}{
		{"demo:start,demo:end", "demo:start", "demo:end", "", []string{"demo:start"}, []string{"demo:end"}},
		{"demo:start,demo:end,arg0", "demo:start", "demo:end", "arg0", nil, nil},
		{"start,end,pid", "start", "end", "pid", []string{"demo:start"}, []string{"demo:end"}},
		{"app:{a,b},app:c", "app:{a,b}", "app:c", "", []string{"app:a", "app:b"}, []string{"app:c"}},
		{"app:a,app:{c,d},tid", "app:a", "app:{c,d}", "tid", []string{"app:a"}, []string{"app:c", "app:d"}},
		{"app:{a,b},app:{c,d},name", "app:{a,b}", "app:{c,d}", "name", []string{"app:b"}, []string{"app:d"}},
	} {
		l, err := parseLatency(tt.arg)
		if err != nil {
			t.Errorf("parseLatency(%q) error = %v", tt.arg, err)
			continue
		}
		if l.start.text != tt.start || l.end.text != tt.end || l.key.String() != tt.key {
			t.Errorf("parseLatency(%q) = %q, %q, key %q, want %q, %q, key %q", tt.arg, l.start.text, l.end.text, l.key, tt.start, tt.end, tt.key)
		}
		for _, p := range tt.starts {
			provider, name, _ := strings.Cut(p, ":")
			if !l.start.match(provider, name) || l.end.match(provider, name) {
				t.Errorf("parseLatency(%q): %s is not START only", tt.arg, p)
			}
		}
		for _, p := range tt.ends {
			provider, name, _ := strings.Cut(p, ":")
			if !l.end.match(provider, name) || l.start.match(provider, name) {
				t.Errorf("parseLatency(%q): %s is not END only", tt.arg, p)
			}
		}
	}
}

func TestParseLatencyErrors(t *testing.T) {
	for _, tt := range []struct {
		arg, want string
	}{
		{"demo:start", "want START,END[,KEY]"},
		{"app:{a,b}", "want START,END[,KEY]"},
		{"a,b,pid,tid", "want START,END[,KEY]"},
		{"app:{a,b},app:{c,d},pid,x", "want START,END[,KEY]"},
		{"app:{a,b,app:c", "want START,END[,KEY]"},
		{"app:{a,b},app:c,a.b", "a.b: want pid"},
	} {
		_, err := parseLatency(tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseLatency(%q) error = %v, want %q", tt.arg, err, tt.want)
		}
	}
}
