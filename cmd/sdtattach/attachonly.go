package main

import (
	"io"
	"os"
	"slices"

	json "github.com/goccy/go-json"

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
func attachOnly(c *config, stdout io.Writer, probes []*probe, atts []attachment) error {
	s := attachSummary{Probes: len(probes), Files: []string{}, PIDs: []int{}}
	var ids []process.FileID
	for _, a := range atts {
		if len(a.sites) == 0 {
			continue
		}
		s.Files = append(s.Files, a.target.name)
		ids = append(ids, process.FileID{Dev: a.target.dev, Inode: a.target.ino})
		sems := make(map[uint64]bool)
		for _, site := range a.sites {
			s.Sites++
			if site.RefCtrOffset != 0 {
				sems[site.RefCtrOffset] = true
			}
		}
		s.Semaphores += len(sems)
	}
	if c.pid != 0 {
		s.PIDs = append(s.PIDs, c.pid)
	} else {
		s.PIDs = mappers(ids)
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(&s)
}

// mappers returns the processes other than this one that map one of the
// files, in increasing order. Processes that cannot be inspected are left
// out.
func mappers(ids []process.FileID) []int {
	pids, _ := process.Mappers(ids...)
	return slices.DeleteFunc(append([]int{}, pids...), func(pid int) bool { return pid == os.Getpid() })
}
