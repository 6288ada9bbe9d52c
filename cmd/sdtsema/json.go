package main

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/semaphore"
)

// write prints one line for s; doc.go specifies every field, and
// event.AppendSemaphore writes them.
func (t *tool) write(s *semaphore.Semaphore, before, after uint16) error {
	b := ndjson.AppendSemaphore(nil, &ndjson.Semaphore{
		PID: s.Pid, File: s.File, Provider: s.Provider, Name: s.Name,
		Address: s.Addr, Offset: s.Offset, Sites: s.Sites,
		Before: before, After: after,
	})
	if _, err := t.out.Write(b); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
