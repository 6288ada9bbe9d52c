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
var calleeSaved = []elfwriter.Reg{elfwriter.RBP, elfwriter.RBX, elfwriter.R12, elfwriter.R13, elfwriter.R14, elfwriter.R15}

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
			f.Push(r)
		}
		// Mem operands live below %rbp, and at %rsp upwards.
		f.MovReg(elfwriter.RSP, elfwriter.RBP)
		f.AddImm(elfwriter.RSP, -frameSize)
		f.StoreRIP(elfwriter.RDI, g.iter, 0)
		f.MulImm(elfwriter.RDI, 1000)
		f.StoreRIP(elfwriter.RDI, g.k1000, 0)
		f.XorReg(elfwriter.RAX, elfwriter.RAX)
		f.StoreRIP(elfwriter.RAX, count, 0)
		g.count = count
		g.probe(p)
		f.LoadRIP(elfwriter.RAX, count, 0)
		f.MovReg(elfwriter.RBP, elfwriter.RSP)
		for i := len(calleeSaved) - 1; i >= 0; i-- {
			f.Pop(calleeSaved[i])
		}
		f.Ret()
		f.End(fn)
		fns = append(fns, fn)
		g.man.Functions = append(g.man.Functions, manifestFunction{Name: name, Probe: p.String(), label: fn})
	}
	// %rbx keeps k and %r12 the sum across the calls.
	fn := f.Func(fireAll)
	f.Push(elfwriter.RBX)
	f.Push(elfwriter.R12)
	f.MovReg(elfwriter.RDI, elfwriter.RBX)
	f.XorReg(elfwriter.R12, elfwriter.R12)
	for _, l := range fns {
		f.MovReg(elfwriter.RBX, elfwriter.RDI)
		f.Call(l)
		f.AddReg(elfwriter.RAX, elfwriter.R12)
	}
	f.MovReg(elfwriter.R12, elfwriter.RAX)
	f.Pop(elfwriter.R12)
	f.Pop(elfwriter.RBX)
	f.Ret()
	f.End(fn)
	g.man.Functions = append(g.man.Functions, manifestFunction{Name: fireAll, label: fn})
	return nil
}
