package usdt

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/rlimit"
)

// dlopenRoom is the number of specs LoadCollection keeps room for beyond
// the sites found, when a Probe follows the libraries loaded.
const dlopenRoom = 1024

// A Probe is what LoadCollection attaches a program of the collection
// to: the arguments of Attach, the program by its name in the spec.
type Probe struct {
	Program              string
	Path, Provider, Name string
	// Options may be nil; their Specs is the collection's map of specs.
	Options *Options
}

// A Collection is a collection loaded by LoadCollection, with its
// programs attached. Close detaches them and closes the collection.
type Collection struct {
	Collection *ebpf.Collection
	// Links are the attachments, one per Probe, in their order.
	Links []*Link
}

// LoadCollection loads spec, whose programs read their arguments through
// include/bpf/usdt.bpf.h, and attaches its programs to the probes, each
// as Attach does, with the collection's map of specs (SpecMap): its
// entries sized, before loading, to hold the specs of every site found,
// and more for the libraries a Probe with Options.Dlopen follows, should
// BPF_USDT_MAX_SPEC_CNT give fewer. opts, which may be nil, are those of
// ebpf.NewCollectionWithOptions. spec is not changed.
func LoadCollection(spec *ebpf.CollectionSpec, probes []Probe, opts *ebpf.CollectionOptions) (*Collection, error) {
	// What the arguments lack is said on every kernel.
	for _, p := range probes {
		if spec.Programs[p.Program] == nil {
			return nil, fmt.Errorf("load collection: no program %q", p.Program)
		}
		if p.Path == "" && (p.Options == nil || p.Options.PID == 0) {
			return nil, fmt.Errorf("load collection: %s: no file and no process", p.Program)
		}
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, fmt.Errorf("load collection: %w", err)
	}
	if err := checkKernel(); err != nil {
		return nil, fmt.Errorf("load collection: %w", err)
	}
	c := &Collection{}
	fail := func(err error) (*Collection, error) {
		c.Close()
		return nil, fmt.Errorf("load collection: %w", err)
	}
	type pending struct {
		r *resolution
		o Options
	}
	var ps []pending
	need := 0
	for _, p := range probes {
		var o Options
		if p.Options != nil {
			o = *p.Options
		}
		if o.Warn == nil {
			o.Warn = func(error) {}
		}
		l := &Link{cookie: o.Cookie, warn: o.Warn}
		c.Links = append(c.Links, l)
		r, err := l.resolve(p.Path, p.Provider, p.Name, &o)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", p.Program, err))
		}
		ps = append(ps, pending{r, o})
		need += r.n
		if l.follow != nil {
			need += dlopenRoom
		}
	}
	spec = spec.Copy()
	if ms := spec.Maps[SpecMap]; ms != nil && ms.MaxEntries < uint32(need) {
		ms.MaxEntries = uint32(need)
	}
	var co ebpf.CollectionOptions
	if opts != nil {
		co = *opts
	}
	coll, err := ebpf.NewCollectionWithOptions(spec, co)
	if err != nil {
		return fail(err)
	}
	c.Collection = coll
	specs := coll.Maps[SpecMap]
	for i, p := range probes {
		if err := c.Links[i].start(coll.Programs[p.Program], ps[i].r, specs, false, &ps[i].o); err != nil {
			return fail(fmt.Errorf("%s: %w", p.Program, err))
		}
	}
	return c, nil
}

// Close detaches the programs from every site, as Link.Close does, and
// closes the collection.
func (c *Collection) Close() error {
	var errs []error
	for _, l := range c.Links {
		errs = append(errs, l.Close())
	}
	c.Links = nil
	if c.Collection != nil {
		c.Collection.Close()
		c.Collection = nil
	}
	return errors.Join(errs...)
}
