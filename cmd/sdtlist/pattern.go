package main

import (
	"errors"
	"os"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// isPattern reports whether arg is a pattern (probespec.ParsePattern)
// rather than a file, as sdtattach reads a PATH: an existing file always
// wins; an argument with ':' or a glob character is a pattern; a bare
// name is a file when probespec.Resolve finds one, as a command or a
// library, and a pattern on NAME otherwise. With -p every argument is a
// pattern.
func isPattern(arg string, pidMode bool) bool {
	if pidMode {
		return true
	}
	if _, err := os.Lstat(arg); err == nil {
		return false
	}
	if strings.ContainsAny(arg, ":*?[{") {
		return true
	}
	if strings.ContainsRune(arg, '/') {
		return false
	}
	_, err := probespec.Resolve(arg)
	return errors.Is(err, probespec.ErrNotFound)
}

// listingSpec parses arg as a probe specification that names its file,
// as bpftrace -l takes them: usdt:PATH:*, [usdt:]PATH:PROVIDER:NAME or
// PATH:NAME. PATH must have a '/' or be a file here, except in the full
// usdt:PATH:PROVIDER:NAME; otherwise usdt:A:B is the pattern A:B.
func listingSpec(arg string) (probespec.Spec, bool) {
	s, err := probespec.Parse(arg)
	if err != nil || s.Path == "" || s.Types != nil {
		return probespec.Spec{}, false
	}
	if strings.ContainsRune(s.Path, '/') || !s.AnyProvider && strings.HasPrefix(arg, "usdt:") {
		return s, true
	}
	_, err = os.Lstat(s.Path)
	return s, err == nil
}

// resolveFile returns the file a FILE argument or a listing spec's PATH
// names: a bare name that is no file here is looked up as sdtattach does.
func resolveFile(name string) (string, error) {
	if strings.ContainsRune(name, '/') {
		return name, nil
	}
	if _, err := os.Lstat(name); err == nil {
		return name, nil
	}
	return probespec.Resolve(name)
}
