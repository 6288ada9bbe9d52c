package main

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
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

// maxLeftOut is the number of sites of one probe whose being left out, or
// whose semaphore not being raised, is reported one by one; the others
// are counted.
const maxLeftOut = 10

// plan builds the BPF sites of the selected probes, grouped by target in
// the order targets were first selected, and the table of sites in the
// same order, which is the order of their site numbers. An argument that
// cannot be read is reported once and shows as null.
//
// Memory is what the sites need, allocated once: the BPF sites of each
// target in a slice of their final size, and one site entry, parsed
// arguments and plan per distinct argument string of a probe, which the
// sites that share the string share. A file with a million sites of a
// few probes costs a million BPF sites, not a million parses.
func plan(probes []*probe, types typeSource, logger *log.Logger) ([]attachment, []*site) {
	var atts []attachment
	byTarget := make(map[*target]int)
	var counts []int
	total := 0
	for _, p := range probes {
		i, ok := byTarget[p.target]
		if !ok {
			i = len(atts)
			byTarget[p.target] = i
			atts = append(atts, attachment{target: p.target})
			counts = append(counts, 0)
		}
		counts[i] += len(p.sites)
		total += len(p.sites)
	}
	// Sites are numbered across attachments, so all sites of the first
	// target come first; collect per target, then flatten.
	perTarget := make([][]*site, len(atts))
	for i := range atts {
		atts[i].sites = make([]bpf.Site, 0, counts[i])
		perTarget[i] = make([]*site, 0, counts[i])
	}
	for id, p := range probes {
		i := byTarget[p.target]
		planProbe(uint32(id), p, types, logger, &atts[i], &perTarget[i])
	}
	table := make([]*site, 0, total)
	for i := range atts {
		table = append(table, perTarget[i]...)
	}
	return atts, table
}

// A sitePlan is what the sites of one probe with the same argument string
// share.
type sitePlan struct {
	site *site
	args []argspec.Arg
	opts *bpf.SpecOptions
}

// planProbe appends the sites of probe p, whose probe number is id, to
// a and table.
func planProbe(id uint32, p *probe, types typeSource, logger *log.Logger, a *attachment, table *[]*site) {
	t := p.target
	var dtypes []probespec.Type
	var names []string
	haveD := false
	if types != nil {
		dtypes, names, haveD = types(p.provider, p.name)
		if !haveD {
			logger.Printf("%s: %v: not in the --types file; events carry no fields", t.name, p)
		}
	}
	plans := make(map[string]*sitePlan)
	leftOut, notRaised := 0, 0
	// The errors of an argument are reported once per probe.
	var reported bpf.ArgMask
	reportedPast := false // past the 16 arguments of a mask
	for _, i := range p.sites {
		note := &t.file.Sites[i]
		if note.PCOffsetErr != nil {
			if leftOut++; leftOut <= maxLeftOut {
				logger.Printf("%s: %v: site at %#x left out: %v", t.name, p, note.PC, note.PCOffsetErr)
			}
			continue
		}
		sp := plans[note.Args]
		if sp == nil {
			sp = newSitePlan(p, note.Args, dtypes, names, haveD, logger)
			plans[note.Args] = sp
		}
		spec, errs := bpf.NewSpec(id, note.PC, sp.args, sp.opts)
		for _, err := range errs {
			var ae *bpf.ArgError
			if errors.As(err, &ae) {
				// Reported here, not again when events show it null.
				if ae.Index >= 16 {
					if reportedPast {
						continue
					}
					reportedPast = true
				} else {
					sp.site.noted |= 1 << ae.Index
					if reported.Has(ae.Index) {
						continue
					}
					reported |= 1 << ae.Index
				}
			}
			logger.Printf("%s: %v: %v; shown as null", t.name, p, err)
		}
		bs := bpf.Site{Offset: note.PCOffset, Spec: spec}
		switch {
		case !note.HasSemaphore():
		case note.SemaphoreOffsetErr != nil:
			if notRaised++; notRaised <= maxLeftOut {
				logger.Printf("%s: %v: semaphore not raised: %v", t.name, p, note.SemaphoreOffsetErr)
			}
		default:
			bs.RefCtrOffset = note.SemaphoreOffset
		}
		a.sites = append(a.sites, bs)
		*table = append(*table, sp.site)
	}
	if n := leftOut - maxLeftOut; n > 0 {
		logger.Printf("%s: %v: %d more sites left out", t.name, p, n)
	}
	if n := notRaised - maxLeftOut; n > 0 {
		logger.Printf("%s: %v: %d more sites whose semaphore is not raised", t.name, p, n)
	}
}

// newSitePlan parses the argument string args of probe p and plans how
// each argument is read and shown.
func newSitePlan(p *probe, args string, dtypes []probespec.Type, names []string, haveD bool, logger *log.Logger) *sitePlan {
	t := p.target
	sp := &sitePlan{
		site: &site{probe: p, fields: haveD},
		args: argspec.ParseArgs(args, t.file.Machine),
		opts: &bpf.SpecOptions{},
	}
	for j := range sp.args {
		a := argPlan{typ: p.spec.Type(j), raw: strings.Clone(sp.args[j].Raw)}
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
			sp.opts.Strings |= 1 << j
			if a.typ.Counted {
				if sp.opts.Lengths == nil {
					sp.opts.Lengths = make(map[int]int)
				}
				sp.opts.Lengths[j] = a.typ.LenArg
			}
		}
		if (sp.args[j].Kind == argspec.Symbol || sp.args[j].Symbol != "") && sp.opts.Symbols == nil && sp.args[j].Err == nil {
			syms, err := t.symbols()
			if err != nil {
				logger.Printf("%s: symbols: %v", t.name, err)
			}
			sp.opts.Symbols = syms
		}
		sp.site.args = append(sp.site.args, a)
	}
	if len(sp.site.args) > bpf.MaxArgs {
		sp.site.args = sp.site.args[:bpf.MaxArgs]
	}
	return sp
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
