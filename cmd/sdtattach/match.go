package main

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// A probe is one probe, a provider and name, of one target, with the
// sites of it that were selected.
type probe struct {
	target   *target
	provider string
	name     string
	spec     probespec.Spec // the specification that selected it first
	sites    []int          // indexes into target.file.Sites, in note order
	events   uint64
}

func (p *probe) String() string { return p.provider + ":" + p.name }

// selectProbes matches each specification against the probes of the
// targets find returns for it. Every specification must match at least
// one site; a site matched twice is selected once, with the types of the
// first specification that gives types for it.
func selectProbes(specs []probespec.Spec, find func(probespec.Spec) ([]*target, error)) ([]*probe, error) {
	type key struct {
		t              *target
		provider, name string
	}
	byKey := make(map[key]*probe)
	chosen := make(map[*target][]bool)
	var out []*probe
	for _, s := range specs {
		ts, err := find(s)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", s, err)
		}
		matched := false
		for _, t := range ts {
			if chosen[t] == nil {
				chosen[t] = make([]bool, len(t.file.Sites))
			}
			for i := range t.file.Sites {
				site := &t.file.Sites[i]
				if !s.Match(site.Provider, site.Name) {
					continue
				}
				matched = true
				if chosen[t][i] {
					// Types given for a probe win over none.
					if p := byKey[key{t, site.Provider, site.Name}]; p.spec.Types == nil && s.Types != nil {
						p.spec = s
					}
					continue
				}
				chosen[t][i] = true
				k := key{t, site.Provider, site.Name}
				p := byKey[k]
				if p == nil {
					// Copies: the notes' strings share the memory of
					// the whole note section, which plan lets go.
					p = &probe{target: t, provider: strings.Clone(site.Provider), name: strings.Clone(site.Name), spec: s}
					byKey[k] = p
					out = append(out, p)
				}
				p.sites = append(p.sites, i)
			}
		}
		if !matched {
			return nil, notFound(s, ts)
		}
	}
	return out, nil
}

// notFound describes a specification that matched no probe, with the
// probes of the searched files that come closest.
func notFound(s probespec.Spec, ts []*target) error {
	var where []string
	seen := make(map[string]bool)
	var names []string
	for _, t := range ts {
		where = append(where, t.name)
		for _, p := range t.file.Sites {
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
