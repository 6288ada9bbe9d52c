package probespec

import (
	"strings"
)

// patternForm says what a pattern is, for errors in its form.
const patternForm = "a pattern is PROVIDER:NAME, NAME or usdt:PROVIDER:NAME, each part a glob"

// ParsePattern parses a pattern that selects probes by provider and name
// in files named apart, as sdtlist takes them: PROVIDER:NAME, or NAME
// alone for a probe of any provider, each part a glob, with usdt: in
// front as bpftrace writes it; bpftrace's usdt:* and usdt:*:PROVIDER:NAME
// (any file) are accepted too. Neither part may be empty. The Spec has
// no Path and no Types; NAME alone is AnyProvider. Errors are *SyntaxError.
func ParsePattern(s string) (Spec, error) {
	body := s
	// bpftrace's wildcard PATH, usdt:* and usdt:*:PROVIDER:NAME: every
	// object listed.
	if rest, ok := strings.CutPrefix(s, "usdt:*"); ok && (rest == "" || strings.HasPrefix(rest, ":") && strings.Count(rest, ":") == 2) {
		body = "*:*"
		if rest != "" {
			body = rest[1:]
		}
	}
	prov, name, ok := strings.Cut(body, ":")
	nameOnly := !ok
	if nameOnly {
		prov, name = "*", s
	} else if prov == "usdt" && strings.Contains(name, ":") {
		prov, name, _ = strings.Cut(name, ":")
	}
	if strings.Contains(name, ":") {
		return Spec{}, &SyntaxError{Spec: s, Msg: patternForm}
	}
	spec := Spec{Provider: prov, Name: name, AnyProvider: nameOnly}
	if err := checkGlobs(s, spec, patternForm); err != nil {
		return Spec{}, err
	}
	return spec, nil
}
