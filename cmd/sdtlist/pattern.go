package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
)

// A pattern selects probes by glob on the provider and the name.
type pattern struct {
	provider string // "" matches every provider
	name     string
}

// parsePattern reports whether arg is a PROVIDER:NAME pattern rather than
// a file. An existing file always wins; otherwise an argument with ':' or a
// glob character is a pattern. With -p every argument is a pattern.
func parsePattern(arg string, pidMode bool) (pattern, bool) {
	if !pidMode {
		if _, err := os.Lstat(arg); err == nil {
			return pattern{}, false
		}
		if !strings.ContainsAny(arg, ":*?[") {
			return pattern{}, false
		}
	}
	prov, name, ok := strings.Cut(arg, ":")
	if !ok {
		return pattern{name: arg}, true
	}
	// "usdt:PROVIDER:NAME" as bpftrace writes it is accepted too.
	if prov == "usdt" && strings.Contains(name, ":") {
		prov, name, _ = strings.Cut(name, ":")
	}
	return pattern{provider: prov, name: name}, true
}

// errPatternSyntax reports a pattern with more parts than a probe has,
// which could never match.
var errPatternSyntax = errors.New("a pattern is PROVIDER:NAME, NAME or usdt:PROVIDER:NAME, each part a glob")

// valid reports a pattern that would otherwise match nothing: one with a
// ':' left in its name, or a malformed glob.
func (p pattern) valid() error {
	if strings.Contains(p.name, ":") {
		return errPatternSyntax
	}
	for _, g := range []string{p.provider, p.name} {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("bad pattern %q: %w", g, err)
		}
	}
	return nil
}

func (p pattern) match(provider, name string) bool {
	if p.provider != "" && !glob(p.provider, provider) {
		return false
	}
	return glob(p.name, name)
}

func glob(pat, s string) bool {
	if pat == "" {
		return true
	}
	ok, err := path.Match(pat, s)
	return err == nil && ok
}

// matchAny reports whether a probe passes the filters: all probes pass
// when there are none.
func matchAny(pats []pattern, provider, name string) bool {
	if len(pats) == 0 {
		return true
	}
	for _, p := range pats {
		if p.match(provider, name) {
			return true
		}
	}
	return false
}
