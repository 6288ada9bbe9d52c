package bpf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/sdtkit/sdtkit/pkg/filter"
)

// filterSpec sizes the map of filters of spec, one per probe id, and
// tells the program whether to look there, which it reports: without a
// filter a hit costs nothing more.
func filterSpec(spec *ebpf.CollectionSpec, o *Options) (bool, error) {
	on := o.Filtering
	for _, f := range o.Filters {
		if f != nil && len(f.Insns) > 0 {
			on = true
		}
	}
	if !on {
		return false, nil
	}
	if o.old {
		// Its functions static there, each of the interpreter's
		// steps is checked with every argument form it may read.
		return false, fmt.Errorf("filters: on a kernel without BPF cookies (Linux 5.15), the interpreter of filters is more than its verifier checks (a million instructions): %w", ErrNotSupported)
	}
	spec.Maps[usdtMapFilters].MaxEntries = uint32(max(len(o.Filters), o.MaxProbes, 1))
	if err := spec.Variables[usdtVarFiltering].Set(uint8(1)); err != nil {
		return false, fmt.Errorf("set %s: %w", usdtVarFiltering, err)
	}
	return true, nil
}

// putFilters stores the filters, by probe id, in the map of the loaded
// program; a probe without one passes every hit.
func putFilters(m *ebpf.Map, filters []*filter.Program) error {
	for id, f := range filters {
		if err := putFilter(m, id, f); err != nil {
			return err
		}
	}
	return nil
}

// putFilter stores the filter of probe id; nil passes every hit.
func putFilter(m *ebpf.Map, id int, f *filter.Program) error {
	var raw usdtFilter
	if f != nil {
		if err := encodeFilter(f, &raw); err != nil {
			return fmt.Errorf("filter of probe %d: %w", id, err)
		}
	}
	if err := m.Put(uint32(id), &raw); err != nil {
		return fmt.Errorf("filter of probe %d: %w", id, err)
	}
	return nil
}

// encodeFilter lays f out as usdt.h's struct filter.
func encodeFilter(f *filter.Program, raw *usdtFilter) error {
	if len(f.Insns) > len(raw.Insns) {
		return fmt.Errorf("%d instructions, more than %d", len(f.Insns), len(raw.Insns))
	}
	raw.N = uint32(len(f.Insns))
	for i, in := range f.Insns {
		r := &raw.Insns[i]
		if in.Arg >= MaxArgs || len(in.Str) > 8*(len(r.Str)-1) || strings.IndexByte(in.Str, 0) >= 0 {
			return errors.New("instruction out of range")
		}
		r.Op, r.Key, r.Arg, r.Size, r.Sign = uint8(in.Op), uint8(in.Key), uint8(in.Arg), uint8(in.Size), boolByte(in.Signed)
		r.Num, r.Len = in.Num, uint8(len(in.Str))
		for j := 0; j < len(in.Str); j++ {
			r.Str[j/8] |= uint64(in.Str[j]) << (8 * (j % 8))
		}
	}
	return nil
}
