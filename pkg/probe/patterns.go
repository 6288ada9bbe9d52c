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
func (m *PatternCheck) Add(file string, sites []stapsdt.Site) {
	if len(m.pats) == 0 {
		return
	}
	m.files = append(m.files, file)
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
