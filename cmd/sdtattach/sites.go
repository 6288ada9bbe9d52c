package main

import (
	"errors"
	"fmt"
	"log"

	"github.com/sdtkit/sdtkit/bpf"
	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// An argPlan says how one argument of a site is shown.
type argPlan struct {
	typ  probespec.Type
	raw  string // the argument as the note writes it, for messages
	name string // the field name with --types, "" otherwise
}

// A site is one attached probe site; events find it by their site number.
type site struct {
	probe  *probe
	args   []argPlan
	fields bool        // events carry "fields"
	noted  bpf.ArgMask // arguments already reported as unreadable at run time
}

// An attachment is the sites of one target, attached together.
type attachment struct {
	target *target
	sites  []bpf.Site
}

// A typeSource gives the argument types and names of a probe from a
// provider file; ok is false when it does not describe the probe.
type typeSource func(provider, name string) (types []probespec.Type, names []string, ok bool)

// plan builds the BPF sites of the selected probes, grouped by target in
// the order targets were first selected, and the table of sites in the
// same order, which is the order of their site numbers. An argument that
// cannot be read is reported once and shows as null.
func plan(probes []*probe, types typeSource, logger *log.Logger) ([]attachment, []*site) {
	var atts []attachment
	byTarget := make(map[*target]int)
	var table []*site
	// Sites are numbered across attachments, so all sites of the first
	// target come first; collect per target, then flatten.
	perTarget := make(map[*target][]*site)
	for id, p := range probes {
		t := p.target
		if _, ok := byTarget[t]; !ok {
			byTarget[t] = len(atts)
			atts = append(atts, attachment{target: t})
		}
		var dtypes []probespec.Type
		var names []string
		haveD := false
		if types != nil {
			dtypes, names, haveD = types(p.provider, p.name)
			if !haveD {
				logger.Printf("%s: %v: not in the --types file; events carry no fields", t.name, p)
			}
		}
		reported := make(map[int]bool)
		for _, i := range p.sites {
			note := &t.file.Probes[i]
			if note.PCOffsetErr != nil {
				logger.Printf("%s: %v: site at %#x left out: %v", t.name, p, note.PC, note.PCOffsetErr)
				continue
			}
			args := argspec.ParseArgs(note.Args, t.file.Machine)
			s := &site{probe: p, fields: haveD}
			opts := &bpf.SpecOptions{}
			for j := range args {
				a := argPlan{typ: p.spec.Type(j), raw: args[j].Raw}
				if a.typ.Kind == probespec.Default && j < len(dtypes) {
					a.typ = dtypes[j]
				}
				if haveD {
					a.name = fmt.Sprintf("arg%d", j)
					if j < len(names) && names[j] != "" {
						a.name = names[j]
					}
				}
				if a.typ.Kind == probespec.String && j < 16 {
					opts.Strings |= 1 << j
					if a.typ.Counted {
						if opts.Lengths == nil {
							opts.Lengths = make(map[int]int)
						}
						opts.Lengths[j] = a.typ.LenArg
					}
				}
				if (args[j].Kind == argspec.Symbol || args[j].Symbol != "") && opts.Symbols == nil && args[j].Err == nil {
					syms, err := t.symbols()
					if err != nil {
						logger.Printf("%s: symbols: %v", t.name, err)
					}
					opts.Symbols = syms
				}
				s.args = append(s.args, a)
			}
			if len(s.args) > bpf.MaxArgs {
				s.args = s.args[:bpf.MaxArgs]
			}
			spec, errs := bpf.NewSpec(uint32(id), note.PC, args, opts)
			for _, err := range errs {
				var ae *bpf.ArgError
				if errors.As(err, &ae) {
					// Reported here, not again when events show it null.
					s.noted |= 1 << (ae.Index & 15)
					if reported[ae.Index] {
						continue
					}
					reported[ae.Index] = true
				}
				logger.Printf("%s: %v: %v; shown as null", t.name, p, err)
			}
			bs := bpf.Site{Offset: note.PCOffset, Spec: spec}
			switch {
			case !note.HasSemaphore():
			case note.SemaphoreOffsetErr != nil:
				logger.Printf("%s: %v: semaphore not raised: %v", t.name, p, note.SemaphoreOffsetErr)
			default:
				bs.RefCtrOffset = note.SemaphoreOffset
			}
			a := &atts[byTarget[t]]
			a.sites = append(a.sites, bs)
			perTarget[t] = append(perTarget[t], s)
		}
	}
	for _, a := range atts {
		table = append(table, perTarget[a.target]...)
	}
	return atts, table
}

// readsStrings reports whether a site of the attachments reads a string;
// without one, the smaller program that reads numbers only is loaded.
func readsStrings(atts []attachment) bool {
	for _, a := range atts {
		for i := range a.sites {
			if a.sites[i].Spec.Strings() != 0 {
				return true
			}
		}
	}
	return false
}
