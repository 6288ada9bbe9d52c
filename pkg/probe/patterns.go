package probe

import (
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// A PatternCheck records which patterns matched a probe of the files
// they were applied to, so that each that matched none is an error, with
// the closest probes, as Find gives it.
type PatternCheck struct {
	pats   []probespec.Spec
	hit    []bool
	files  []string
	seen   map[[2]string]bool
	probes []string // PROVIDER:NAME, each once
}

// NewPatternCheck returns a check of pats.
func NewPatternCheck(pats ...probespec.Spec) *PatternCheck {
	return &PatternCheck{pats: pats, hit: make([]bool, len(pats)), seen: make(map[[2]string]bool)}
}

// Add records the probe sites of one file the patterns were applied to.
// The sites of one file may come in parts, added one after the other,
// such as the members of an archive added with its name.
func (m *PatternCheck) Add(file string, sites []stapsdt.Site) {
	if len(m.pats) == 0 {
		return
	}
	if len(m.files) == 0 || m.files[len(m.files)-1] != file {
		m.files = append(m.files, file)
	}
	for i := range sites {
		p := &sites[i]
		k := [2]string{p.Provider, p.Name}
		if m.seen[k] {
			continue
		}
		m.seen[k] = true
		m.probes = append(m.probes, p.Provider+":"+p.Name)
		for j, pat := range m.pats {
			if !m.hit[j] && pat.Match(p.Provider, p.Name) {
				m.hit[j] = true
			}
		}
	}
}

// Errs returns a *NotFoundError for each pattern that matched no probe
// of the files added, none when no file was added.
func (m *PatternCheck) Errs() []error {
	var errs []error
	if len(m.files) == 0 {
		return nil // The files could not be read, which was reported.
	}
	for j, pat := range m.pats {
		if !m.hit[j] {
			errs = append(errs, &NotFoundError{Spec: pat, Files: m.files, Probes: m.probes})
		}
	}
	return errs
}

// Files returns the number of files added.
func (m *PatternCheck) Files() int { return len(m.files) }

// MatchAny reports whether the probe provider:name matches one of pats;
// every probe does when there are none.
func MatchAny(pats []probespec.Spec, provider, name string) bool {
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
