package main

import "github.com/sdtkit/sdtkit/pkg/elfwriter"

// library emits the functions of a shared object, as generator.library
// does on x86-64: for each probe PROVIDER_NAME(k), which fires every site
// of the probe with the values of iteration k and returns the number of
// sites that fired, and sdt_fire_all(k), which calls them all and returns
// the sum. They follow the machine's C calling convention, through the
// backend's cEnter, cReturn and cCall.
func (g *archGen) library(probes []*probe) error {
	f, b := g.f, g.b
	names, err := funcNames(probes)
	if err != nil {
		return err
	}
	t0 := b.t(0)
	g.count = f.Data("", make([]byte, b.wordSize()), b.wordSize())
	fns := make([]elfwriter.Label, len(probes))
	for i, p := range probes {
		fns[i] = f.Func(names[i])
		b.cEnter()
		g.storeData(t0, g.iter, 0)
		b.mulImm(t0, 1000)
		g.storeData(t0, g.k1000, 0)
		b.imm(t0, 0)
		g.storeData(t0, g.count, 0)
		g.probe(p)
		g.loadData(t0, g.count)
		b.cReturn()
		f.End(fns[i])
		g.man.Functions = append(g.man.Functions, manifestFunction{Name: names[i], Probe: p.String(), label: fns[i]})
	}
	k, sum := b.kept(0), b.kept(1)
	fn := f.Func(fireAll)
	b.cEnter()
	b.mov(k, t0)
	b.imm(sum, 0)
	for _, l := range fns {
		b.mov(t0, k)
		b.cCall(l)
		b.add(sum, t0)
	}
	b.mov(t0, sum)
	b.cReturn()
	f.End(fn)
	g.man.Functions = append(g.man.Functions, manifestFunction{Name: fireAll, label: fn})
	return nil
}
