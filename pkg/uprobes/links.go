package uprobes

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf/link"
)

// listLinks adds the uprobes of every BPF uprobe_multi and perf_event
// link in the system.
func listLinks(s *Set) error {
	it := new(link.Iterator)
	defer it.Close()
	var errs []error
	for it.Next() {
		info, err := it.Link.Info()
		if err != nil {
			errs = append(errs, fmt.Errorf("link %d: %w", it.ID, err))
			continue
		}
		holder := fmt.Sprintf("link %d", it.ID)
		switch info.Type {
		case link.UprobeMultiType:
			m := info.UprobeMulti()
			if m == nil {
				errs = append(errs, fmt.Errorf("link %d: no uprobe_multi info (Linux 6.8)", it.ID))
				continue
			}
			offs, ok := m.Offsets()
			if !ok {
				errs = append(errs, fmt.Errorf("link %d: no offsets in its info", it.ID))
				continue
			}
			u := Uprobe{Kind: UprobeMulti, File: m.File, Holder: holder}
			identify(&u, m.File)
			for _, o := range offs {
				u.Offset, u.RefCtrOffset = o.Offset, o.ReferenceCount
				s.Add(u)
			}
		case link.PerfEventType:
			pe := info.PerfEvent()
			if pe == nil {
				continue
			}
			if up := pe.Uprobe(); up != nil {
				u := Uprobe{Kind: PerfEvent, File: up.File, Offset: uint64(up.Offset), RefCtrOffset: up.OffsetReferenceCount, Holder: holder}
				identify(&u, up.File)
				s.Add(u)
			}
		}
	}
	return errors.Join(append(errs, it.Err())...)
}
