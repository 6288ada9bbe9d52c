package main

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// fireAll is the entry point of a shared object that fires every probe.
const fireAll = "sdt_fire_all"

// funcNames returns the name of the function of each probe in a shared
// object, PROVIDER_NAME; two probes whose functions would have one name
// are an error.
func funcNames(probes []*probe) ([]string, error) {
	seen := map[string]bool{fireAll: true}
	names := make([]string, len(probes))
	for i, p := range probes {
		names[i] = p.provider + "_" + p.name
		if seen[names[i]] {
			return nil, fmt.Errorf("--shared: %s: function %s defined twice", p, names[i])
		}
		seen[names[i]] = true
	}
	return names, nil
}

// calleeSaved are the registers the System V ABI has a function preserve
// that the probe sites use.
var calleeSaved = []elfwriter.AMD64Reg{elfwriter.RBP, elfwriter.RBX, elfwriter.R12, elfwriter.R13, elfwriter.R14, elfwriter.R15}

// library emits the functions of a shared object: for each probe
// PROVIDER_NAME(k), which fires every site of the probe with the values
// of iteration k and returns the number of sites that fired, and
// sdt_fire_all(k), which calls them all and returns the sum. They follow
// the System V calling convention, so a C program can call them.
func (g *generator) library(probes []*probe) error {
	f := g.f
	names, err := funcNames(probes)
	if err != nil {
		return err
	}
	count := f.Data("", make([]byte, 8), 8)
	var fns []elfwriter.Label
	for i, p := range probes {
		name := names[i]
		fn := f.Func(name)
		for _, r := range calleeSaved {
			g.a.Push(r)
		}
		// Mem operands live below %rbp, and at %rsp upwards.
		g.a.Mov(elfwriter.RSP, elfwriter.RBP)
		g.a.AddImm(elfwriter.RSP, -frameSize)
		g.a.StoreRIP(elfwriter.RDI, g.iter, 0)
		g.a.MulImm(elfwriter.RDI, 1000)
		g.a.StoreRIP(elfwriter.RDI, g.k1000, 0)
		g.a.Xor(elfwriter.RAX, elfwriter.RAX)
		g.a.StoreRIP(elfwriter.RAX, count, 0)
		g.count = count
		g.probe(p)
		g.a.LoadRIP(elfwriter.RAX, count, 0)
		g.a.Mov(elfwriter.RBP, elfwriter.RSP)
		for i := len(calleeSaved) - 1; i >= 0; i-- {
			g.a.Pop(calleeSaved[i])
		}
		f.Ret()
		f.End(fn)
		fns = append(fns, fn)
		g.man.Functions = append(g.man.Functions, manifestFunction{Name: name, Probe: p.String(), label: fn})
	}
	// %rbx keeps k and %r12 the sum across the calls.
	fn := f.Func(fireAll)
	g.a.Push(elfwriter.RBX)
	g.a.Push(elfwriter.R12)
	g.a.Mov(elfwriter.RDI, elfwriter.RBX)
	g.a.Xor(elfwriter.R12, elfwriter.R12)
	for _, l := range fns {
		g.a.Mov(elfwriter.RBX, elfwriter.RDI)
		g.a.Call(l)
		g.a.Add(elfwriter.RAX, elfwriter.R12)
	}
	g.a.Mov(elfwriter.R12, elfwriter.RAX)
	g.a.Pop(elfwriter.R12)
	g.a.Pop(elfwriter.RBX)
	f.Ret()
	f.End(fn)
	g.man.Functions = append(g.man.Functions, manifestFunction{Name: fireAll, label: fn})
	return nil
}
