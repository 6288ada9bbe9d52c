package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// siteRegs are the registers a site's arguments take.
type siteRegs struct {
	arg      []reg // of each reg argument, or the index of each sib argument
	sibBase  reg
	sibIndex reg // shared by the sib arguments, unless the machine needs one each
	ripBase  reg
}

// allocate gives registers to the arguments of a site, whose forms it
// may change: sib and rip bases and indexes first, from the end of the
// pool, then each reg argument the next free register from its turn in
// the pool (its pair too for an 8-byte value on a 4-byte machine). A reg
// argument for which none is left takes mem, as a compiler spills it.
func (g *archGen) allocate(args []argType, forms []form) siteRegs {
	b := g.b
	pool := b.pool()
	used := make(map[reg]bool)
	last := func() reg {
		for j := len(pool) - 1; j >= 0; j-- {
			if !used[pool[j]] {
				used[pool[j]] = true
				return pool[j]
			}
		}
		panic("sdtgen: no register left for a base or index")
	}
	sr := siteRegs{arg: make([]reg, len(args))}
	if slices.Contains(forms, formSIB) {
		sr.sibBase = last()
		if !b.sibIndexPerArg() {
			sr.sibIndex = last()
		}
	}
	for i, f := range forms {
		if f == formSIB && b.sibIndexPerArg() {
			sr.arg[i] = last()
		}
	}
	if slices.Contains(forms, formRIP) {
		sr.ripBase = last()
	}
	for i, a := range args {
		if forms[i] != formReg {
			continue
		}
		forms[i] = formMem
		for j := range pool {
			r := pool[(i+g.nsites-1+j)%len(pool)]
			if used[r] {
				continue
			}
			if a.size > b.wordSize() {
				hi, ok := b.pair(r)
				if !ok || used[hi] {
					continue
				}
				used[hi] = true
			}
			used[r] = true
			sr.arg[i], forms[i] = r, formReg
			break
		}
	}
	return sr
}

// site emits one probe site: the semaphore test, the arguments, the nop,
// as generator.site does.
func (g *archGen) site(p *probe, mp *manifestProbe, ms *manifestSite, fired elfwriter.Label) {
	f, b := g.f, g.b
	g.nsites++
	skip := f.NewLabel("")
	if mp.sema != 0 {
		b.addr(b.tmp(), mp.sema, 0)
		b.load(2, b.tmp(), b.tmp(), 0)
		b.brImm(condEQ, b.tmp(), 0, skip)
	}
	forms := make([]form, len(p.args))
	for i, a := range p.args {
		forms[i] = b.form(g.opts.forms[g.nextForm%len(g.opts.forms)].forArg(a), a, g.opts.typ)
		g.nextForm++
	}
	sr := g.allocate(p.args, forms)
	var ripSym elfwriter.Label
	var ripName string
	if slices.Contains(forms, formRIP) {
		ripName = fmt.Sprintf("%s_%s_site%d", p.provider, p.name, g.nsites)
		ripSym = f.Data(ripName, make([]byte, 8*maxArgs), 8)
		b.addr(sr.ripBase, ripSym, 0)
	}
	if slices.Contains(forms, formSIB) {
		b.addr(sr.sibBase, g.sibArea, 0)
		if !b.sibIndexPerArg() {
			b.imm(sr.sibIndex, sibIndex)
		}
	}
	ms.Argv = make([]manifestArg, len(p.args))
	for pass := 0; pass < 3; pass++ {
		for i, a := range p.args {
			if forms[i].pass() != pass {
				continue
			}
			ma := &ms.Argv[i]
			ma.Form = forms[i].String()
			var loc string
			switch forms[i] {
			case formReg:
				r := sr.arg[i]
				g.value(r, a, mp.Args[i], i)
				if hi, ok := b.pair(r); ok && a.size > b.wordSize() {
					b.highHalf(hi, r, a.signed)
				}
				loc = b.regOperand(r, a)
			case formFloat:
				loc = b.floatReg(a, i, g.k1000)
			case formMem:
				base, disp := b.memSlot(i)
				g.storeArg(a, mp.Args[i], i, base, disp)
				loc = b.memOperand(base, disp)
			case formSIB:
				g.storeArg(a, mp.Args[i], i, sr.sibBase, int64(16*(i+1)))
				if b.sibIndexPerArg() {
					b.imm(sr.arg[i], int64(16*(i+1)))
					loc = b.sibOperand(sr.sibBase, sr.arg[i], 0, 1)
					break
				}
				scale := b.sibScale(i)
				loc = b.sibOperand(sr.sibBase, sr.sibIndex, int64(16*(i+1)-sibIndex*scale), scale)
			case formRIP:
				g.storeArg(a, mp.Args[i], i, sr.ripBase, int64(8*i))
				loc = b.symOperand(ripName, int64(8*i), sr.ripBase)
			case formImm:
				v := a.value(1, i)
				ma.Value = &v
				loc = b.immOperand(v)
			}
			ma.Operand = sizePrefix(a) + loc
		}
	}
	ms.Values = siteValues(p.args, mp.Args, ms.Argv)
	operands := make([]string, len(ms.Argv))
	for i, ma := range ms.Argv {
		operands[i] = ma.Operand
	}
	if ripName != "" {
		b.symBase(sr.ripBase)
	}
	pc := f.Nop()
	ms.Args = strings.Join(operands, " ")
	f.AddNote(elfwriter.Note{Provider: p.provider, Name: p.name, Args: ms.Args, PC: pc, Semaphore: mp.sema})
	g.sites = append(g.sites, &siteRecord{ms: ms, pc: pc})
	switch {
	case g.count != 0:
		g.loadData(b.t(0), g.count)
		b.addImm(b.t(0), 1)
		g.storeData(b.t(0), g.count, 0)
	case mp.sema != 0:
		g.write(1, fired, int64(len(p.String())+1))
	}
	f.Bind(skip)
}

// value loads the value of argument i on the current iteration into r.
func (g *archGen) value(r reg, a argType, mt manifestType, i int) {
	switch {
	case a.str:
		g.b.addr(r, mt.label, 0)
	case a.float:
		g.b.floatBits(r, a, i, g.k1000)
	default:
		placeInt(g.b, r, a, i, g.k1000)
	}
}

// storeArg stores the value of argument i at disp(base), through tmp.
func (g *archGen) storeArg(a argType, mt manifestType, i int, base reg, disp int64) {
	if a.float {
		g.b.storeFloat(a, i, base, disp, g.k1000)
		return
	}
	g.value(g.b.tmp(), a, mt, i)
	g.b.storeInt(g.b.tmp(), a, base, disp)
}
