package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/process"
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
// pids gives the processes that map the files, without -p.
func attachOnly(c *config, stdout io.Writer, plan *attach.Plan, pids <-chan []int) error {
	s := attachSummary{Probes: len(plan.Probes), Files: []string{}, PIDs: []int{}}
	for _, a := range plan.Attachments {
		if a.Len() == 0 {
			continue
		}
		s.Files = append(s.Files, a.Target.Name)
		s.Sites += a.Len()
		s.Semaphores += a.Semaphores()
	}
	if c.pid != 0 {
		s.PIDs = append(s.PIDs, c.pid)
	} else {
		var ok bool
		if s.PIDs, ok = <-pids; !ok {
			return errors.New("interrupted while looking for the processes that map the files")
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(&s)
}

// startMappers looks, in the background, for the processes that map the
// files of atts: scanning /proc takes about as long as loading the
// program, and overlaps it on another CPU. The channel is closed without
// a value when ctx is done first: reading /proc can block on a process
// that holds its memory map lock, and a signal must still end sdtattach.
func startMappers(ctx context.Context, atts []attach.Attachment) <-chan []int {
	var ids []process.FileID
	for _, a := range atts {
		if a.Len() > 0 {
			ids = append(ids, process.FileID{Dev: a.Target.Dev, Inode: a.Target.Inode})
		}
	}
	found := make(chan []int, 1)
	go func() { found <- mappers(ids) }()
	ch := make(chan []int, 1)
	go func() {
		select {
		case pids := <-found:
			ch <- pids
		case <-ctx.Done():
			close(ch)
		}
	}()
	return ch
}

// mappers returns the processes other than this one that map one of the
// files, in increasing order. Processes that cannot be inspected are left
// out.
func mappers(ids []process.FileID) []int {
	pids, _ := process.Mappers(ids...)
	return slices.DeleteFunc(append([]int{}, pids...), func(pid int) bool { return pid == os.Getpid() })
}
