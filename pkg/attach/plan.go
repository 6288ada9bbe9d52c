package attach

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// An Arg says how one argument of a site is shown.
type Arg struct {
	Type probespec.Type
	Raw  string // the argument as the note writes it, for messages
	Name string // the field name with Options.Types, "" otherwise
}

// A Site is one attached probe site; events carry its number.
type Site struct {
	Probe *probe.Probe
	// ProbeIndex is the index of Probe in Plan.Probes.
	ProbeIndex int
	Args       []Arg
	// Fields says whether events name their arguments: Options.Types
	// describes the probe.
	Fields bool
	// Reported are the arguments whose being unreadable was given to
	// Options.Warn while planning: events show them as not read.
	Reported hit.ArgMask
}

// An Attachment is the sites of one file, attached together.
type Attachment struct {
	Target *probe.Target
	sites  []bpf.Site // how the BPF program reads each
}

// Len returns the number of sites.
func (a *Attachment) Len() int { return len(a.sites) }

// Semaphores returns the number of distinct semaphores of the sites.
func (a *Attachment) Semaphores() int {
	sems := make(map[uint64]bool)
	for _, s := range a.sites {
		if s.RefCtrOffset != 0 {
			sems[s.RefCtrOffset] = true
		}
	}
	return len(sems)
}

// maxLeftOut is the number of sites of one probe whose being left out, or
// whose semaphore not being raised, is reported one by one; the others
// are counted.
const maxLeftOut = 10

// planner builds the BPF sites of the selected probes.
type planner struct {
	types *Types
	warn  func(error)
	base  int // the probe number of the first probe planned
}

func (pl *planner) warnf(format string, a ...any) {
	if pl.warn != nil {
		pl.warn(fmt.Errorf(format, a...))
	}
}

// plan builds the BPF sites of the selected probes, grouped by target in
// the order targets were first selected, and the table of sites in the
// same order, which is the order of their site numbers. An argument that
// cannot be read is reported once and shows as not read.
//
// Memory is what the sites need, allocated once: the BPF sites of each
// target in a slice of their final size, and one site entry, parsed
// arguments and plan per distinct argument string of a probe, which the
// sites that share the string share. A file with a million sites of a
// few probes costs a million BPF sites, not a million parses.
func (pl *planner) plan(probes []*probe.Probe) ([]Attachment, []*Site) {
	var atts []Attachment
	byTarget := make(map[*probe.Target]int)
	var counts []int
	total := 0
	for _, p := range probes {
		i, ok := byTarget[p.Target]
		if !ok {
			i = len(atts)
			byTarget[p.Target] = i
			atts = append(atts, Attachment{Target: p.Target})
			counts = append(counts, 0)
		}
		counts[i] += len(p.Sites)
		total += len(p.Sites)
	}
	// Sites are numbered across attachments, so all sites of the first
	// target come first; collect per target, then flatten.
	perTarget := make([][]*Site, len(atts))
	for i := range atts {
		atts[i].sites = make([]bpf.Site, 0, counts[i])
		perTarget[i] = make([]*Site, 0, counts[i])
	}
	for id, p := range probes {
		i := byTarget[p.Target]
		pl.planProbe(pl.base+id, p, &atts[i], &perTarget[i])
	}
	table := make([]*Site, 0, total)
	for i := range atts {
		table = append(table, perTarget[i]...)
	}
	return atts, table
}

// A sitePlan is what the sites of one probe with the same argument string
// share.
type sitePlan struct {
	site *Site
	args []argspec.Arg
	opts *bpf.SpecOptions
}

// planProbe appends the sites of probe p, whose probe number is id, to
// a and table.
func (pl *planner) planProbe(id int, p *probe.Probe, a *Attachment, table *[]*Site) {
	t := p.Target
	var dtypes []probespec.Type
	var names []string
	haveD := false
	if pl.types != nil {
		dtypes, names, haveD = pl.types.lookup(p.Provider, p.Name)
		if !haveD {
			pl.warnf("%s: %v: not in %s; events carry no fields", t.Name, p, pl.types.Source)
		}
	}
	plans := make(map[string]*sitePlan)
	leftOut, notRaised := 0, 0
	// The errors of an argument are reported once per probe.
	var reported hit.ArgMask
	reportedPast := false // past the 16 arguments of a mask
	for _, i := range p.Sites {
		note := &t.File.Sites[i]
		if note.PCOffsetErr != nil {
			if leftOut++; leftOut <= maxLeftOut {
				pl.warnf("%s: %v: site at %#x left out: %w", t.Name, p, note.PC, note.PCOffsetErr)
			}
			continue
		}
		sp := plans[note.Args]
		if sp == nil {
			sp = pl.newSitePlan(id, p, note.Args, dtypes, names, haveD)
			plans[note.Args] = sp
		}
		spec, errs := bpf.NewSpec(uint32(id), note.PC, sp.args, sp.opts)
		for _, err := range errs {
			var ae *bpf.ArgError
			if errors.As(err, &ae) {
				// Reported here, not again when events show it.
				if ae.Index >= 16 {
					if reportedPast {
						continue
					}
					reportedPast = true
				} else {
					sp.site.Reported |= 1 << ae.Index
					if reported.Has(ae.Index) {
						continue
					}
					reported |= 1 << ae.Index
				}
			}
			pl.warnf("%s: %v: %w; shown as null", t.Name, p, err)
		}
		bs := bpf.Site{Offset: note.PCOffset, Spec: spec}
		switch {
		case !note.HasSemaphore():
		case note.SemaphoreOffsetErr != nil:
			if notRaised++; notRaised <= maxLeftOut {
				pl.warnf("%s: %v: semaphore not raised: %w", t.Name, p, note.SemaphoreOffsetErr)
			}
		default:
			bs.RefCtrOffset = note.SemaphoreOffset
		}
		a.sites = append(a.sites, bs)
		*table = append(*table, sp.site)
	}
	if n := leftOut - maxLeftOut; n > 0 {
		pl.warnf("%s: %v: %d more sites left out", t.Name, p, n)
	}
	if n := notRaised - maxLeftOut; n > 0 {
		pl.warnf("%s: %v: %d more sites whose semaphore is not raised", t.Name, p, n)
	}
}

// newSitePlan parses the argument string args of probe p and plans how
// each argument is read and shown.
func (pl *planner) newSitePlan(id int, p *probe.Probe, args string, dtypes []probespec.Type, names []string, haveD bool) *sitePlan {
	t := p.Target
	sp := &sitePlan{
		site: &Site{Probe: p, ProbeIndex: id, Fields: haveD},
		args: argspec.ParseArgs(args, t.File.Machine),
		opts: &bpf.SpecOptions{Symbols: t},
	}
	for j := range sp.args {
		a := Arg{Type: p.Spec.Type(j), Raw: strings.Clone(sp.args[j].Raw)}
		if a.Type.Kind == probespec.Default && j < len(dtypes) {
			a.Type = dtypes[j]
		}
		if haveD {
			a.Name = fmt.Sprintf("arg%d", j)
			if j < len(names) && names[j] != "" {
				a.Name = names[j]
			}
		}
		if a.Type.Kind == probespec.String && j < 16 {
			sp.opts.Strings |= 1 << j
			if a.Type.Counted {
				if sp.opts.Lengths == nil {
					sp.opts.Lengths = make(map[int]int)
				}
				sp.opts.Lengths[j] = a.Type.LenArg
			}
		}
		sp.site.Args = append(sp.site.Args, a)
	}
	if len(sp.site.Args) > bpf.MaxArgs {
		sp.site.Args = sp.site.Args[:bpf.MaxArgs]
	}
	return sp
}

// readsStrings reports whether a site of the attachments reads a string;
// without one, the smaller program that reads numbers only is loaded.
func readsStrings(atts []Attachment) bool {
	for _, a := range atts {
		for i := range a.sites {
			if a.sites[i].Spec.Strings() != 0 {
				return true
			}
		}
	}
	return false
}
