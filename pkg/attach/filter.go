package attach

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// compileFilter compiles e for each probe, by probe number, against the
// arguments of its first site (its sites share types and names); nil
// when e is nil. The error is a *filter.Error naming the probe.
func compileFilter(e *filter.Expr, nprobes int, sites []*Site) ([]*filter.Program, error) {
	if e == nil {
		return nil, nil
	}
	progs := make([]*filter.Program, nprobes)
	done := make([]bool, nprobes)
	for _, s := range sites {
		if done[s.ProbeIndex] {
			continue
		}
		done[s.ProbeIndex] = true
		p, err := compileFor(e, s)
		if err != nil {
			return nil, err
		}
		progs[s.ProbeIndex] = p
	}
	return progs, nil
}

// compileFor compiles e for the probe of site s; nil when e is nil.
func compileFor(e *filter.Expr, s *Site) (*filter.Program, error) {
	if e == nil {
		return nil, nil
	}
	fp := &filter.Probe{Name: fmt.Sprintf("%s:%v", s.Probe.Target.Name, s.Probe), Fields: s.Fields}
	for _, a := range s.Args {
		fa := filter.Arg{Name: a.Name, String: a.Type.Kind == probespec.String}
		if a.Type.Kind == probespec.Int {
			fa.Size, fa.Signed = a.Type.Size, a.Type.Signed
		}
		fp.Args = append(fp.Args, fa)
	}
	return e.Compile(fp)
}

// Passes reports whether the event passes the --filter of its probe
// (Options.Filter), evaluated here as the BPF program evaluates it in the
// kernel: for a backend that cannot filter there. Every event passes
// without a filter. A string argument's address is not in the event: a
// number compared with one is taken as 0.
func (p *Plan) Passes(ev *Event) bool {
	if p.filters == nil || ev.Site == nil || ev.Site.ProbeIndex >= len(p.filters) {
		return true
	}
	f := p.filters[ev.Site.ProbeIndex]
	if f == nil {
		return true
	}
	// Room on the stack for the arguments of any event: this runs on
	// every one.
	var args [bpf.MaxArgs]filter.HitArg
	h := filter.Hit{PID: ev.PID, TID: ev.TID, Comm: ev.Comm, Args: args[:0]}
	for _, a := range ev.Args {
		ha := filter.HitArg{Num: a.Bits, Signed: a.Kind == hit.Int, Str: a.Str, Unread: a.Kind == hit.NotRead}
		if a.Kind == hit.String {
			ha.Num = 0
		}
		h.Args = append(h.Args, ha)
	}
	return f.Eval(&h)
}
