package main

import (
	"os"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// isPattern reports whether arg is a pattern (probespec.ParsePattern)
// rather than a file. An existing file always wins; otherwise an argument
// with ':' or a glob character is a pattern. With -p every argument is a
// pattern.
func isPattern(arg string, pidMode bool) bool {
	if pidMode {
		return true
	}
	if _, err := os.Lstat(arg); err == nil {
		return false
	}
	return strings.ContainsAny(arg, ":*?[")
}

// matchAny reports whether a probe passes the filters: all probes pass
// when there are none.
func matchAny(pats []probespec.Spec, provider, name string) bool {
	if len(pats) == 0 {
		return true
	}
	for _, p := range pats {
		if p.Match(provider, name) {
			return true
		}
	}
	return false
}
