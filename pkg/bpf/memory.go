package bpf

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
)

// MapMemory returns the bytes of kernel memory the maps of the program
// take, as the kernel accounts them (the memlock of each map's fdinfo):
// the ring buffer, the per-CPU scratch slots and counters, the site
// specs, and when aggregating the maps of keys, whose entries are
// allocated as keys are seen, one value per CPU each. Since Linux 6.4
// that is what the maps use; before, an estimate from their sizes that
// counts every entry a map may hold.
func (p *Program) MapMemory() (uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog == nil {
		return 0, errors.New("map memory: program closed")
	}
	info, err := p.prog.Info()
	if err != nil {
		return 0, fmt.Errorf("map memory: %w", err)
	}
	ids, ok := info.MapIDs()
	if !ok {
		return 0, errors.New("map memory: the kernel does not list a program's maps")
	}
	seen := map[ebpf.MapID]bool{}
	var total uint64
	add := func(m *ebpf.Map) error {
		mi, err := m.Info()
		if err != nil {
			return err
		}
		if id, ok := mi.ID(); ok {
			if seen[id] {
				return nil
			}
			seen[id] = true
		}
		n, ok := mi.Memlock()
		if !ok {
			return fmt.Errorf("map %s: the kernel does not say its memory", mi.Name)
		}
		total += n
		return nil
	}
	for _, id := range ids {
		m, err := ebpf.NewMapFromID(id)
		if err != nil {
			return 0, fmt.Errorf("map memory: map %d: %w", id, err)
		}
		err = add(m)
		m.Close()
		if err != nil {
			return 0, fmt.Errorf("map memory: %w", err)
		}
	}
	if p.agg != nil { // the generations hang from the map of maps
		for _, g := range p.agg.gens {
			if g == nil {
				continue
			}
			if err := add(g); err != nil {
				return 0, fmt.Errorf("map memory: %w", err)
			}
		}
	}
	return total, nil
}
