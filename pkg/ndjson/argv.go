package ndjson

import (
	"debug/elf"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// An ArgvCache holds the parsed arguments of each argument string of
// one file, and their JSON, for AppendSiteArgv. The sites of a file share
// few argument strings (20,000 sites of a generated program have about
// 50), and parsing and encoding them is half the work of a site's line.
// It is not safe for concurrent use.
type ArgvCache struct {
	file    string
	machine elf.Machine
	argv    map[string]cachedArgv
	parsed  []argspec.Arg
}

type cachedArgv struct {
	argv []SiteArg
	json []byte
}

// Get returns the parsed arguments of the argument string args of a site
// of file, whose machine is m, and what AppendArgv appends for them.
// They are shared with the other sites of the file with the same string.
func (c *ArgvCache) Get(file string, m elf.Machine, args string) ([]SiteArg, []byte) {
	if c.argv == nil || c.file != file || c.machine != m {
		c.file, c.machine, c.argv = file, m, make(map[string]cachedArgv)
	}
	if a, ok := c.argv[args]; ok {
		return a.argv, a.json
	}
	c.parsed = argspec.AppendArgs(c.parsed[:0], args, m)
	a := cachedArgv{argv: make([]SiteArg, len(c.parsed))}
	for i := range c.parsed {
		a.argv[i] = SiteArgOf(&c.parsed[i])
	}
	a.json = AppendArgv(nil, a.argv)
	c.argv[args] = a
	return a.argv, a.json
}

// SiteArgOf returns the argv element of a parsed argument.
func SiteArgOf(a *argspec.Arg) SiteArg {
	j := SiteArg{Raw: a.Raw, Size: a.Size, Signed: a.Signed, Float: a.Float, RegOffset: -1}
	if a.Err != nil {
		j.Error = a.Err.Error()
		return j
	}
	j.Kind, j.Location = a.Kind.String(), a.Location()
	if a.Kind == argspec.Const {
		j.Value = a.Offset
		return j
	}
	if j.Reg = a.Base.Base; j.Reg != "" && a.Base.Offset >= 0 {
		j.RegOffset = a.Base.Offset
	}
	switch a.Kind {
	case argspec.Register, argspec.FloatRegister:
		if a.Index.Name != "" {
			j.RegHigh = a.Index.Base
		}
	case argspec.SIB:
		j.Index, j.Scale = a.Index.Base, a.Scale
		fallthrough
	case argspec.Memory:
		j.Offset, j.Symbol = a.Offset, a.Symbol
		if a.Symbol != "" {
			j.Reloc = a.Reloc
		}
	case argspec.Symbol:
		j.Offset, j.Symbol = a.Offset, a.Symbol
	}
	return j
}
