package attach

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/dlopen"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// dlopenRoom is the number of sites a Tracer or Aggregator with
// Options.Dlopen keeps room for beyond those of its plan, and
// dlopenProbes the number of probes.
const (
	dlopenRoom   = bpf.DefaultMaxSites
	dlopenProbes = 1024
)

// A grower is what follows the libraries loaded: the events of a Tracer
// (bpfEvents) or an Aggregator.
type grower interface {
	// prepare readies probe number id, whose sites are like s, before
	// they are attached: its filter, how it is aggregated. An error
	// leaves the probe out.
	prepare(id int, s *Site) error
	// publish makes the sites about to be attached known, numbered from
	// the next site number, before their first event; on failure to
	// attach, unpublish forgets them.
	publish(sites []*Site)
	unpublish(sites []*Site)
	// remapped has the symbolizers of the stacks of process pid, which
	// is stopped in the dynamic loader, read its maps again before it
	// runs on: it may have mapped libraries, and may exit before its
	// stacks are read.
	remapped(pid int)
}

// newDlopenFollower follows the loads of the process of Options.PID
// and, with Options.Cgroup, of the processes of that cgroup that share
// its loader, for the PROVIDER:NAME specifications of p. It returns nil
// and no error where the process has no loader to follow (see
// dlopen.Loader).
func newDlopenFollower(p *Plan) (*dlopen.Follower, error) {
	o := &p.opts
	do := &dlopen.Options{PID: o.PID, Specs: p.specs, Warn: o.Warn, DebugDirs: o.DebugDirs}
	if p.cgroup != 0 {
		do.Cgroup, do.CgroupDir = p.cgroup, o.Cgroup
	}
	return dlopen.New(do)
}

// follow has f, made by newDlopenFollower, attach with prog the probes
// of the libraries loaded, for g: at each stop it has g read the maps
// of the process again (see grower), relocates prog (see
// bpf.Program.Relocate) and grows the plan by the probes found.
func (p *Plan) follow(f *dlopen.Follower, prog *bpf.Program, g grower) {
	f.Start(p.Probes, func(pid int, probes []*probe.Probe) {
		g.remapped(pid)
		relocated := func(err error) {
			if err != nil {
				f.Warn(fmt.Errorf("process %d: %w; the probes of the files it maps anew may miss hits", pid, err))
			}
		}
		if p.cgroup == 0 {
			relocated(prog.Relocate())
			if len(probes) > 0 {
				p.grow(prog, probes, g, pid, f.Warn)
			}
			return
		}
		// Each process of the cgroup maps the files where it will: its
		// addresses once its files are attached, after those of the
		// processes it forked, which map what it mapped before it
		// executed a program.
		if len(probes) > 0 {
			p.grow(prog, probes, g, pid, f.Warn)
		}
		p.retain(prog, f.Warn)
		relocated(prog.RelocateProcess(pid))
	})
}

// retain has a program that tells the sites apart by their address keep
// those of the processes of the cgroup only: those forked since are
// read, those exited forgotten (see bpf.Program.Retain).
func (p *Plan) retain(prog *bpf.Program, warn func(error)) {
	if !prog.ByAddress() {
		return
	}
	dir := p.opts.Cgroup
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return
	}
	var live []int
	for _, w := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(w); err == nil {
			live = append(live, pid)
		}
	}
	if err := prog.Retain(live); err != nil {
		warn(fmt.Errorf("cgroup %s: %w; the probes of the files its processes map may miss hits", dir, err))
	}
}

// grow plans the sites of probes, new to the plan, has g prepare each
// probe, attaches them with prog and adds them to the plan. A probe g
// refuses (a filter or a key it lacks) is left out with a warning, as
// are the files that cannot be attached.
func (p *Plan) grow(prog *bpf.Program, probes []*probe.Probe, g grower, pid int, warn func(error)) {
	base := len(p.Probes) // only grow adds to them
	var kept []*probe.Probe
	for _, pr := range probes {
		var errs []error
		quiet := &planner{types: p.opts.Types, warn: func(err error) { errs = append(errs, err) }}
		_, sites := quiet.plan([]*probe.Probe{pr})
		if len(sites) == 0 {
			for _, err := range errs {
				warn(err)
			}
			continue
		}
		if err := g.prepare(base+len(kept), sites[0]); err != nil {
			warn(fmt.Errorf("%s: %v: loaded by process %d, not attached: %w", pr.Target.Name, pr, pid, unnamed(err)))
			continue
		}
		kept = append(kept, pr)
	}
	if len(kept) == 0 {
		return
	}
	pl := &planner{types: p.opts.Types, warn: warn, base: base}
	atts, sites := pl.plan(kept)
	p.mu.Lock()
	p.Probes = append(p.Probes, kept...)
	p.mu.Unlock()
	n := 0
	for _, a := range atts {
		next := sites[n : n+len(a.sites)]
		n += len(a.sites)
		g.publish(next)
		if err := prog.Attach(a.Target.Path, a.sites); err != nil {
			g.unpublish(next)
			warn(fmt.Errorf("%s: loaded by process %d: %w", a.Target.Name, pid, err))
			continue
		}
		p.mu.Lock()
		p.Attachments = append(p.Attachments, a)
		p.Sites = append(p.Sites, next...)
		p.mu.Unlock()
	}
}

// unnamed returns err without the name of the probe it is of, for a
// message that names it first: the error of a key or of a filter.
func unnamed(err error) error {
	var ke *KeyError
	if errors.As(err, &ke) {
		c := *ke
		c.Probe = nil
		return &c
	}
	var fe *filter.Error
	if errors.As(err, &fe) {
		c := *fe
		c.Probe = ""
		return fmt.Errorf("filter: %w", &c)
	}
	return err
}

// mayReadStrings reports whether sites added for Options.Dlopen may read
// strings: a PROVIDER:NAME specification gives str, or Options.Types,
// whose char * arguments are strings, is given.
func (p *Plan) mayReadStrings() bool {
	if !p.following() {
		return false
	}
	if p.opts.Types != nil {
		return true
	}
	for _, s := range p.specs {
		if s.Path != "" {
			continue
		}
		for _, t := range s.Types {
			if t.Kind == probespec.String {
				return true
			}
		}
	}
	return false
}
