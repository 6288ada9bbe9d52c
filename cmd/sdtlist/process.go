package main

import (
	"fmt"
	"log"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probe"
)

// listProcess writes the probes of every object process c.pid maps, with
// their live state, and reports what could not be listed. It reports
// whether there was anything to report.
func listProcess(c *config, out sink, logger *log.Logger) (failed bool, err error) {
	sites, err := probe.Live(c.pid, &probe.LiveOptions{Patterns: c.patterns, Files: c.specs})
	if err != nil {
		cli.Print(logger, err)
		return true, nil
	}
	s := &site{}
	for ls, err := range sites {
		if err != nil {
			cli.Print(logger, err)
			failed = true
			continue
		}
		s.file, s.probe, s.machine, s.live = ls.Object.Path, ls.Site, ls.Machine, ls
		if err := out.write(s); err != nil {
			return true, fmt.Errorf("write: %w", err)
		}
	}
	return failed, nil
}
