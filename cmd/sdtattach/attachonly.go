package main

import (
	"io"
	"os"
	"slices"
	"strconv"

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
	ids := make(map[[2]uint64]bool)
	for _, a := range atts {
		if len(a.sites) == 0 {
			continue
		}
		s.Files = append(s.Files, a.target.name)
		ids[[2]uint64{a.target.dev, a.target.ino}] = true
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

// mappers returns the processes that map one of the files, by device and
// inode, in increasing order. Processes that cannot be inspected are left
// out.
func mappers(ids map[[2]uint64]bool) []int {
	pids := []int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return pids
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		maps, err := process.ReadMaps(pid)
		if err != nil {
			continue
		}
		for _, m := range maps {
			if ids[[2]uint64{m.Dev, m.Inode}] {
				pids = append(pids, pid)
				break
			}
		}
	}
	slices.Sort(pids)
	return pids
}
