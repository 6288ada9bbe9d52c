package bpf

import (
	"errors"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/filter"
)

// AddProbe stores what the program needs of probe id, one it was not
// loaded with, before sites of that probe are attached: its filter f
// (nil passes every hit), when the program filters (Options.Filters or
// Options.Filtering), and, when it aggregates, how it reads the probe,
// agg. The ids must be below Options.MaxProbes; each is added once.
// An agg whose string parts the key has no room for (see
// Aggregation.Strings) is refused.
func (p *Program) AddProbe(id int, agg *AggProbe, f *filter.Program) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog == nil {
		return ErrClosed
	}
	if id < 0 {
		return fmt.Errorf("add probe %d: bad id", id)
	}
	if p.agg != nil {
		if agg == nil {
			return fmt.Errorf("add probe %d: an aggregating program needs the probe's arguments", id)
		}
		if id >= int(p.agg.probeMap.MaxEntries()) {
			return fmt.Errorf("add probe %d: room for %d probes", id, p.agg.probeMap.MaxEntries())
		}
		if err := p.agg.checkProbe(id, agg); err != nil {
			return fmt.Errorf("add probe: %w", err)
		}
	}
	switch m := p.maps.Filters; {
	case m != nil:
		if id >= int(m.MaxEntries()) {
			return fmt.Errorf("add probe %d: room for %d filters", id, m.MaxEntries())
		}
		if err := putFilter(m, id, f); err != nil {
			return fmt.Errorf("add probe: %w", err)
		}
	case f != nil && len(f.Insns) > 0:
		return errors.New("add probe: the program was loaded without filters (Options.Filtering)")
	}
	if p.agg != nil {
		if err := p.agg.addProbe(id, agg); err != nil {
			return fmt.Errorf("add probe: %w", err)
		}
	}
	return nil
}
