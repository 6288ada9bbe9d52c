package main

import (
	"fmt"
	"path/filepath"

	"github.com/sdtkit/sdtkit/internal/testchain"
	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// ustackDwarf traces chain:hit of the chain fixture (see package
// testchain), which vmtest builds ahead for the guests without a
// compiler, with --ustack=dwarf and the backend, and checks the stacks
// unwound from the copies: every caller by name, to _start, with the
// program alive while its stacks are read and exited before.
func ustackDwarf(backend string) func(e *env) (vmcheck.Status, string) {
	return func(e *env) (vmcheck.Status, string) {
		if e.plan.UStackMissing != "" {
			return vmcheck.Skip, "no chain fixture: " + e.plan.UStackMissing
		}
		chain := filepath.Join(e.plan.Fixtures, "ustack", "chain")
		for _, cmd := range []string{chain, chain + " exit"} {
			o := e.tool("sdtattach", "--backend", backend, "--ustack=dwarf", "-c", cmd, "chain:hit")
			if o.err != nil {
				return vmcheck.Fail, o.failure()
			}
			recs, err := parseRecords(o.stdout)
			if err != nil {
				return vmcheck.Fail, err.Error()
			}
			var stacks [][]string
			for _, r := range recs {
				var syms []string
				for _, f := range r.UStack {
					syms = append(syms, f.Sym)
				}
				stacks = append(stacks, syms)
			}
			if err := testchain.Check(stacks); err != nil {
				return vmcheck.Fail, fmt.Sprintf("sdtattach --backend %s --ustack=dwarf -c %q: %v", backend, cmd, err)
			}
		}
		return vmcheck.Pass, ""
	}
}
