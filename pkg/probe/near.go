package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// A NotFoundError is a specification or pattern that matched no probe
// of the files searched. Its message names the files and the probes in
// them that come closest.
type NotFoundError struct {
	Spec   probespec.Spec
	Files  []string // the files searched, as shown
	Probes []string // PROVIDER:NAME of the probes in them, each once
}

func (e *NotFoundError) Error() string {
	s := e.Spec
	in := strings.Join(e.Files, ", ")
	if len(e.Files) > 3 {
		in = fmt.Sprintf("%d objects", len(e.Files))
	}
	if len(e.Probes) == 0 {
		return fmt.Sprintf("%v: no USDT probes in %s", s, in)
	}
	want := s.Provider + ":" + s.Name
	if s.AnyProvider {
		want = s.Name
	}
	msg := fmt.Sprintf("%v: no probe %s in %s", s, want, in)
	if near := nearMatches(s.Provider, s.Name, e.Probes, 5); len(near) > 0 {
		return fmt.Sprintf("%s; near matches: %s", msg, strings.Join(near, ", "))
	}
	if len(e.Probes) <= 10 {
		return fmt.Sprintf("%s; it has %s", msg, strings.Join(e.Probes, ", "))
	}
	return fmt.Sprintf("%s (sdtlist lists its %d probes)", msg, len(e.Probes))
}

// notFound is the error of a specification that matched no probe of ts.
func notFound(s probespec.Spec, ts []*Target) error {
	e := &NotFoundError{Spec: s}
	seen := make(map[string]bool)
	for _, t := range ts {
		e.Files = append(e.Files, t.Name)
		for _, p := range t.File.Sites {
			n := p.Provider + ":" + p.Name
			if !seen[n] {
				seen[n] = true
				e.Probes = append(e.Probes, n)
			}
		}
	}
	return e
}

// nearMatches returns up to n of the PROVIDER:NAME strings in names that
// are close to the globs provider and name: one of the two matches, or the
// whole is a few edits away. The closest come first.
func nearMatches(provider, name string, names []string, n int) []string {
	want := provider + ":" + name
	type cand struct {
		s    string
		dist int
	}
	var cs []cand
	limit := max(2, len(want)/3)
	for _, s := range names {
		p, nm, _ := strings.Cut(s, ":")
		d := distance(want, s)
		provOK := probespec.MatchGlob(provider, p)
		nameOK := probespec.MatchGlob(name, nm)
		switch {
		case provOK && nameOK:
			d = 0
		case provOK:
			// One half matches: rank by the edits to the other.
			d = distance(name, nm)
		case nameOK:
			d = distance(provider, p)
		case d > limit:
			continue
		}
		cs = append(cs, cand{s, d})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.dist - b.dist })
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.s)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
