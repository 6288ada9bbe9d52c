package main

import (
	"encoding/json"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/semaphore"
)

// line is one line of output; doc.go specifies every field.
type line struct {
	Pid      int    `json:"pid"`
	File     string `json:"file"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	Address  uint64 `json:"address"`
	Offset   uint64 `json:"offset"`
	Sites    int    `json:"sites"`
	Before   uint16 `json:"before"`
	After    uint16 `json:"after"`
}

func (t *tool) write(s *semaphore.Semaphore, before, after uint16) error {
	b, err := json.Marshal(line{
		Pid: s.Pid, File: s.File, Provider: s.Provider, Name: s.Name,
		Address: s.Addr, Offset: s.Offset, Sites: s.Sites,
		Before: before, After: after,
	})
	if err != nil {
		return err
	}
	t.out.Write(b)
	if err := t.out.WriteByte('\n'); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
