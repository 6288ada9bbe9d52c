package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/repair"
)

// siteLine is the JSON object of one orphaned site; doc.go specifies it.
type siteLine struct {
	PID      int    `json:"pid"`
	File     string `json:"file"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	Hook     string `json:"hook,omitempty"`
	Addr     uint64 `json:"addr"`
	Offset   uint64 `json:"pc_offset"`
	Restored bool   `json:"restored"`
	TakenBy  string `json:"taken_by,omitempty"`
}

// holdLine is the JSON object of one increment a gone holder left,
// undone; doc.go specifies it.
type holdLine struct {
	PID           int    `json:"pid"`
	File          string `json:"file"`
	Provider      string `json:"provider"`
	Name          string `json:"name"`
	SemaphoreAddr uint64 `json:"semaphore_addr"`
	Holder        int    `json:"holder"`
	Before        uint16 `json:"before"`
	After         uint16 `json:"after"`
	Undone        bool   `json:"undone"`
}

// continuedLine is the JSON object of a process a stop guard that is
// gone left stopped; doc.go specifies it.
type continuedLine struct {
	PID       int  `json:"pid"`
	Guard     int  `json:"guard"`
	Continued bool `json:"continued"`
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "sdtrepair: ", 0)
	opts := &repair.Options{DryRun: c.dryRun}
	if len(c.specs) > 0 {
		opts.Match = func(provider, name string) bool {
			for _, s := range c.specs {
				if s.Match(provider, name) {
					return true
				}
			}
			return false
		}
	}
	rep, err := repair.Process(c.pid, opts)
	if rep == nil {
		return err
	}
	for _, g := range rep.RemovedGroups {
		logger.Printf("removed the uprobe events of group %s, left by a process that is gone", g)
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	left := 0
	for _, s := range rep.Sites {
		if !s.Restored {
			left++
		}
		l := siteLine{PID: s.PID, File: s.File, Provider: s.Provider, Name: s.Name, Addr: s.Addr, Offset: s.Offset, Restored: s.Restored, TakenBy: s.Taken}
		if s.Hook {
			l.Hook = "loader"
		}
		if err := enc.Encode(&l); err != nil {
			return err
		}
	}
	for _, c := range rep.Continued {
		if !c.Done {
			left++
		}
		if err := enc.Encode(&continuedLine{PID: c.PID, Guard: c.Guard, Continued: c.Done}); err != nil {
			return err
		}
	}
	for _, u := range rep.Undone {
		if !u.Done {
			left++
		}
		h := &u.Hold
		if err := enc.Encode(&holdLine{PID: h.Pid, File: h.File, Provider: h.Provider, Name: h.Name, SemaphoreAddr: h.Addr, Holder: u.Holder, Before: u.Before, After: u.After, Undone: u.Done}); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, e := range rep.Excess {
		logger.Printf("process %d: %q: semaphore of %q at %#x is %d, %d above the sites live uprobes arm: not lowered, since a tracer that raises semaphores from user space (bcc, sdtsema --hold) leaves nothing to tell it by; once sure none runs, lower it with sdtsema -p %d --dec %s",
			e.PID, e.File, e.Provider+":"+e.Name, e.Addr, e.Value, int(e.Value)-e.Armed, e.PID, e.Provider+":"+e.Name)
	}
	if err != nil {
		return err
	}
	if left > 0 {
		if c.dryRun {
			return cli.ErrFailed
		}
		return fmt.Errorf("process %d: %d orphaned sites or holds not restored", c.pid, left)
	}
	return nil
}
