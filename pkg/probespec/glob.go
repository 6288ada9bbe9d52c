package probespec

import (
	"errors"
	"path"
	"strings"
)

// MatchGlob reports whether s matches glob, a pattern of path.Match with
// brace alternatives as bpftrace and the shell take them: "gc__{start,done}"
// matches gc__start and gc__done. A malformed glob matches nothing.
func MatchGlob(glob, s string) bool {
	if !strings.ContainsAny(glob, "{}") {
		ok, _ := path.Match(glob, s)
		return ok
	}
	alts, err := expandBraces(glob)
	if err != nil {
		return false
	}
	for _, g := range alts {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}

// checkGlob reports what is wrong with a glob, or nil.
func checkGlob(glob string) error {
	alts, err := expandBraces(glob)
	if err != nil {
		return err
	}
	for _, g := range alts {
		if _, err := path.Match(g, ""); err != nil {
			return err
		}
	}
	return nil
}

var errBraces = errors.New("unbalanced braces")

// expandBraces returns the globs that glob's brace alternatives stand
// for, nested ones included, in order.
func expandBraces(glob string) ([]string, error) {
	i := strings.IndexAny(glob, "{}")
	if i < 0 {
		return []string{glob}, nil
	}
	if glob[i] == '}' {
		return nil, errBraces
	}
	// The alternatives between glob[i] and its closing brace, split at
	// the commas outside nested braces.
	var alts []string
	depth, start, end := 0, i+1, -1
	for j := i + 1; j < len(glob) && end < 0; j++ {
		switch glob[j] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				alts, end = append(alts, glob[start:j]), j
			}
			depth--
		case ',':
			if depth == 0 {
				alts, start = append(alts, glob[start:j]), j+1
			}
		}
	}
	if end < 0 {
		return nil, errBraces
	}
	rests, err := expandBraces(glob[end+1:])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range alts {
		subs, err := expandBraces(a)
		if err != nil {
			return nil, err
		}
		for _, sub := range subs {
			for _, r := range rests {
				out = append(out, glob[:i]+sub+r)
			}
		}
	}
	return out, nil
}
