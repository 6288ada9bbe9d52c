package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// valueRule is the manifest's statement of the argument values; doc.go
// says the same.
const valueRule = "on iteration k (from 1), integer argument i (from 0) is k*1000+i, " +
	"negated when signed, truncated to its size; a float or double argument i is " +
	"-(k*1000+i+0.5); a string argument points to \"PROVIDER:NAME:argI\"; " +
	"an imm argument is the constant of iteration 1"

// valueIterations is the number of iterations whose values each site of
// the manifest lists.
const valueIterations = 3

// A manifest describes a generated program; doc.go specifies the fields.
type manifest struct {
	Type       string          `json:"type"`
	Machine    string          `json:"machine"`
	Base       uint64          `json:"stapsdt_base"`
	Semaphores bool            `json:"semaphores"`
	ValueRule  string          `json:"value_rule"`
	Probes     []manifestProbe `json:"probes"`
	// Functions are the exported functions of a shared object.
	Functions []manifestFunction `json:"functions,omitempty"`
}

// A manifestFunction is an exported function of a shared object: the
// function firing one probe, or sdt_fire_all.
type manifestFunction struct {
	Name  string `json:"name"`
	Probe string `json:"probe,omitempty"`
	Addr  uint64 `json:"addr"`

	label elfwriter.Label
}

type manifestProbe struct {
	Provider        string         `json:"provider"`
	Name            string         `json:"name"`
	Semaphore       uint64         `json:"semaphore,omitempty"`
	SemaphoreOffset uint64         `json:"semaphore_offset,omitempty"`
	SemaphoreSymbol string         `json:"semaphore_symbol,omitempty"`
	Args            []manifestType `json:"args"`
	Sites           []manifestSite `json:"sites"`

	sema elfwriter.Label
}

type manifestType struct {
	Type   string `json:"type"`
	Size   int    `json:"size"`
	Signed bool   `json:"signed"`
	String bool   `json:"string,omitempty"`
	Float  bool   `json:"float,omitempty"`
	Value  string `json:"value,omitempty"` // the string pointed to

	label elfwriter.Label
}

type manifestSite struct {
	PC       uint64        `json:"pc"`
	PCOffset uint64        `json:"pc_offset"`
	Args     string        `json:"args"`
	Argv     []manifestArg `json:"argv"`
	Values   [][]any       `json:"values"`
}

type manifestArg struct {
	Operand string `json:"operand"`
	Form    string `json:"form"`
	Value   *int64 `json:"value,omitempty"` // imm only
}

func newManifest(opts options) *manifest {
	return &manifest{
		Type:       opts.typ.String(),
		Machine:    opts.arch.machineName(),
		Semaphores: opts.semaphores,
		ValueRule:  valueRule,
		Probes:     []manifestProbe{},
	}
}

// siteValues returns the argument values of a site on the first
// valueIterations iterations, one slice per iteration, as a tracer reading
// the site's note shows them: integers (an imm argument's constant every
// time), floating-point numbers and strings.
func siteValues(args []argType, types []manifestType, argv []manifestArg) [][]any {
	values := make([][]any, valueIterations)
	for k := range values {
		values[k] = make([]any, len(args))
		for i, a := range args {
			switch {
			case argv[i].Value != nil:
				values[k][i] = *argv[i].Value
			case a.str:
				values[k][i] = types[i].Value
			case a.float:
				values[k][i] = floatValue(uint64(k+1), i)
			default:
				values[k][i] = a.value(uint64(k+1), i)
			}
		}
	}
	return values
}

// write writes the manifest as one line, for tools that read JSON lines.
func (m *manifest) write(w io.Writer) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// newManifestProbe returns the manifest record of p, with its strings and
// semaphore (when semaphores is set) added to f, and the " PROVIDER:NAME"
// a program writes when p fires; data is aligned to align bytes.
func newManifestProbe(f *elfwriter.File, p *probe, semaphores bool, align int) (manifestProbe, elfwriter.Label) {
	mp := manifestProbe{Provider: p.provider, Name: p.name, Args: []manifestType{}}
	for i, a := range p.args {
		mp.Args = append(mp.Args, manifestType{Type: a.ctype, Size: a.size, Signed: a.signed, String: a.str, Float: a.float})
		if a.str {
			s := fmt.Sprintf("%s:%s:arg%d", p.provider, p.name, i)
			mp.Args[i].label = f.Data("", append([]byte(s), 0), align)
			mp.Args[i].Value = s
		}
	}
	if semaphores {
		mp.SemaphoreSymbol = p.provider + "_" + p.name + "_semaphore"
		mp.sema = f.Semaphore(mp.SemaphoreSymbol)
	}
	return mp, f.Data("", []byte(" "+p.String()), align)
}

// resolve fills in the addresses and file offsets of the linked image im:
// of .stapsdt.base, of each site's nop, of the semaphores and of the
// exported functions.
func (m *manifest) resolve(im *elfwriter.Image, sites []*siteRecord) {
	m.Base = im.Base
	for _, s := range sites {
		s.ms.PC = im.Addr(s.pc)
		s.ms.PCOffset = im.Offset(s.pc)
	}
	for i := range m.Functions {
		m.Functions[i].Addr = im.Addr(m.Functions[i].label)
	}
	for i := range m.Probes {
		mp := &m.Probes[i]
		if mp.sema != 0 {
			mp.Semaphore = im.Addr(mp.sema)
			mp.SemaphoreOffset = im.Offset(mp.sema)
		}
	}
}
