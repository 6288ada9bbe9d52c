package repair

import (
	"maps"
	"slices"

	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// An Excess is a semaphore higher than the sites live uprobes arm.
type Excess struct {
	PID            int
	File           string
	Provider, Name string // of the first probe it guards
	Addr           uint64
	Value          uint16
	Armed          int // its sites armed by a uprobe with a reference counter
	Held           int // increments recorded by live holders
}

// semState is one semaphore of the matched probes.
type semState struct {
	file, provider, name string
	value                uint16
	armed                int
}

// addSemaphore adds s, the semaphore of probe site p of file, to sems.
func addSemaphore(sems map[uint64]*semState, file string, p *stapsdt.Site, s *process.SemaphoreState) {
	if sems[s.Addr] == nil {
		sems[s.Addr] = &semState{file: file, provider: p.Provider, name: p.Name, value: s.Value}
	}
}

func anyRaised(sems map[uint64]*semState) bool {
	for _, s := range sems {
		if s.value > 0 {
			return true
		}
	}
	return false
}

// countArmed counts, for each semaphore, the candidate sites a uprobe of
// set arms with it as reference counter.
func countArmed(cands []candidate, set *uprobes.Set, sems map[uint64]*semState) {
	for i := range cands {
		c := &cands[i]
		if c.sema == 0 {
			continue
		}
		for _, u := range set.Owners(c.id, c.site.File, c.site.Offset) {
			if u.RefCtrOffset == c.semaO {
				sems[c.sema].armed++
				break
			}
		}
	}
}

// excess returns the semaphores of process pid above the sites live
// uprobes arm and the increments live holders keep.
func excess(pid int, sems map[uint64]*semState, held map[uint64]int) []Excess {
	var out []Excess
	for _, addr := range slices.Sorted(maps.Keys(sems)) {
		s := sems[addr]
		if int(s.value) > s.armed+held[addr] {
			out = append(out, Excess{PID: pid, File: s.file, Provider: s.provider, Name: s.name, Addr: addr, Value: s.value, Armed: s.armed, Held: held[addr]})
		}
	}
	return out
}
