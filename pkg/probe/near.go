package probe

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// notFound describes a specification that matched no probe, with the
// probes of the searched files that come closest.
func notFound(s probespec.Spec, ts []*Target) error {
	var where []string
	seen := make(map[string]bool)
	var names []string
	for _, t := range ts {
		where = append(where, t.Name)
		for _, p := range t.File.Sites {
			n := p.Provider + ":" + p.Name
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	in := strings.Join(where, ", ")
	if len(ts) > 3 {
		in = fmt.Sprintf("%d objects", len(ts))
	}
	if len(names) == 0 {
		return fmt.Errorf("%v: no USDT probes in %s", s, in)
	}
	msg := fmt.Sprintf("%v: no probe %s:%s in %s", s, s.Provider, s.Name, in)
	if near := nearMatches(s.Provider, s.Name, names, 5); len(near) > 0 {
		return fmt.Errorf("%s; near matches: %s", msg, strings.Join(near, ", "))
	}
	if len(names) <= 10 {
		return fmt.Errorf("%s; it has %s", msg, strings.Join(names, ", "))
	}
	return fmt.Errorf("%s (sdtlist lists its %d probes)", msg, len(names))
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
		provOK, _ := path.Match(provider, p)
		nameOK, _ := path.Match(name, nm)
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
