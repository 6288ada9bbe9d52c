package main

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/sdtkit/sdtkit/pkg/attach"
)

// attachSummary is the line --attach-only prints; doc.go specifies it.
type attachSummary struct {
	Probes     int      `json:"probes"`
	Sites      int      `json:"sites"`
	Semaphores int      `json:"semaphores"`
	Files      []string `json:"files"`
	PIDs       []int    `json:"pids"`
}

// attachOnly prints the summary of what is attached; the caller detaches.
// mappers gives the processes that map the files, without -p: scanning
// /proc takes about as long as loading the program, and overlaps it.
func attachOnly(c *config, stdout io.Writer, plan *attach.Plan, mappers <-chan []int) error {
	s := attachSummary{Probes: len(plan.Probes), Files: []string{}, PIDs: []int{c.opts.PID}}
	for _, a := range plan.Attachments {
		if a.Len() == 0 {
			continue
		}
		s.Files = append(s.Files, a.Target.Name)
		s.Sites += a.Len()
		s.Semaphores += a.Semaphores()
	}
	if c.opts.PID == 0 {
		var ok bool
		if s.PIDs, ok = <-mappers; !ok {
			return errors.New("interrupted while looking for the processes that map the files")
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(&s)
}
