package main

import (
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// archGen builds the program for a machine other than x86-64 through a
// backend; it does what generator does, in the same order, so that the
// programs of every machine behave alike.
type archGen struct {
	opts options
	f    *elfwriter.File
	b    backend

	iter, iters, interval, k1000, ts, numbuf, sibArea elfwriter.Label
	printNum, atoi, usage                             elfwriter.Label

	count elfwriter.Label // of a shared object: the sites fired by a call

	nextForm int
	nsites   int
	man      *manifest
	sites    []*siteRecord
}

// generateArch is generate for opts.arch, which is not amd64.
func generateArch(probes []*probe, opts options) (*elfwriter.Image, *manifest, error) {
	if len(opts.forms) == 0 {
		opts.forms = []form{formReg}
	}
	if opts.sites < 1 {
		opts.sites = 1
	}
	f := elfwriter.NewFor(opts.arch.machine(), opts.typ)
	f.Soname = opts.soname
	g := &archGen{opts: opts, f: f, b: opts.arch.newBackend(f), man: newManifest(opts)}
	for _, p := range probes {
		if err := p.check(); err != nil {
			return nil, nil, err
		}
	}
	probes = g.sized(probes)
	g.data()
	if opts.typ == elfwriter.Shared {
		if err := g.library(probes); err != nil {
			return nil, nil, err
		}
	} else {
		g.printNum, g.atoi = f.NewLabel(""), f.NewLabel("")
		start := f.Func("_start")
		f.SetEntry(start)
		g.start(probes)
		f.End(start)
		g.helpers()
	}

	im, err := f.Link()
	if err != nil {
		return nil, nil, err
	}
	g.man.resolve(im, g.sites)
	return im, g.man, nil
}

// sized returns probes with their argument types as the machine's C ABI
// has them: long and pointers of its word size (4 bytes on ILP32), and
// plain char unsigned where the ABI says so (aarch64, s390x), as
// sys/sdt.h then marks them.
func (g *archGen) sized(probes []*probe) []*probe {
	var out []*probe
	for _, p := range probes {
		q := &probe{provider: p.provider, name: p.name}
		for _, a := range p.args {
			if a.size == 8 && !a.float && (a.str || wordSized(a.ctype)) {
				a.size = g.b.wordSize()
			}
			if plainChar(a.ctype) && !g.b.charSigned() {
				a.signed = false
			}
			q.args = append(q.args, a)
		}
		out = append(out, q)
	}
	return out
}

// wordTypedefs are the typedefs of the size of a pointer.
var wordTypedefs = map[string]bool{
	"intptr_t": true, "uintptr_t": true, "ptrdiff_t": true, "size_t": true,
	"ssize_t": true, "off_t": true, "time_t": true, "ulong_t": true,
}

// wordSized reports whether C type t is a pointer or a long, which have
// the size of a word, or a typedef of one; long long does not.
func wordSized(t string) bool {
	if strings.Contains(t, "*") {
		return true
	}
	longs := 0
	for _, w := range strings.Fields(t) {
		longs += strings.Count(" "+w+" ", " long ")
		if wordTypedefs[w] {
			return true
		}
	}
	return longs == 1
}

// plainChar reports whether C type t is char, neither signed nor
// unsigned.
func plainChar(t string) bool {
	w := strings.Fields(t)
	return slices.Contains(w, "char") && !slices.Contains(w, "signed") && !slices.Contains(w, "unsigned") && !strings.Contains(t, "*")
}

func (g *archGen) data() {
	f, w := g.f, g.b.wordSize()
	g.iter = f.Data("", make([]byte, w), w)
	g.iters = f.Data("", make([]byte, w), w)
	g.interval = f.Data("", make([]byte, w), w)
	g.k1000 = f.Data("", make([]byte, w), w)
	g.ts = f.Data("", make([]byte, 2*w), w)
	g.numbuf = f.Data("", make([]byte, 24), 8)
	g.sibArea = f.Data("", make([]byte, 16*(maxArgs+1)), 8)
	g.usage = f.Data("", []byte(usageLine), g.b.dataAlign())
}

// loadData loads the counter at l into r.
func (g *archGen) loadData(r reg, l elfwriter.Label) {
	g.b.addr(r, l, 0)
	g.b.load(g.b.wordSize(), r, r, 0)
}

// storeData stores r into the counter at l+off.
func (g *archGen) storeData(r reg, l elfwriter.Label, off int64) {
	g.b.addr(g.b.tmp(), l, off)
	g.b.store(g.b.wordSize(), r, g.b.tmp(), 0)
}

// start emits _start: argument parsing and the iteration loop, as
// generator.start does.
func (g *archGen) start(probes []*probe) {
	f, b := g.f, g.b
	t0, t1, t2, t3 := b.t(0), b.t(1), b.t(2), b.t(3)
	b.enter()
	b.imm(t0, 1)
	g.storeData(t0, g.iters, 0)
	b.imm(t0, defaultInterval)
	g.storeData(t0, g.interval, 0)
	argsDone := f.NewLabel("")
	for i, dst := range []elfwriter.Label{g.iters, g.interval} {
		b.argc(t0)
		b.brImm(condLO, t0, int64(i+2), argsDone)
		b.argv(t1, i+1)
		b.call(g.atoi)
		g.storeData(t0, dst, 0)
	}
	f.Bind(argsDone)
	// The timespec of nanosleep: interval/1000 s, interval%1000 ms.
	g.loadData(t0, g.interval)
	b.imm(t3, 1000)
	b.divu(t0, t2, t3)
	g.storeData(t0, g.ts, 0)
	b.mulImm(t2, 1000000)
	g.storeData(t2, g.ts, int64(b.wordSize()))
	b.imm(t0, 0)
	g.storeData(t0, g.iter, 0)

	loop := f.Here("")
	g.loadData(t0, g.iter)
	b.addImm(t0, 1)
	g.storeData(t0, g.iter, 0)
	b.mulImm(t0, 1000)
	g.storeData(t0, g.k1000, 0)
	if g.opts.semaphores {
		g.loadData(t0, g.iter)
		b.call(g.printNum)
	}
	for _, p := range probes {
		g.probe(p)
	}
	if g.opts.semaphores {
		g.write(1, f.Data("", []byte("\n"), b.dataAlign()), 1)
	}
	exit, sleep := f.NewLabel(""), f.NewLabel("")
	g.loadData(t0, g.iters)
	b.brImm(condEQ, t0, 0, sleep) // 0 iterations: until killed
	g.loadData(t1, g.iter)
	b.br(condHS, t1, t0, exit)
	f.Bind(sleep)
	g.loadData(t0, g.interval)
	b.brImm(condEQ, t0, 0, loop)
	b.addr(t0, g.ts, 0)
	b.imm(t1, 0)
	b.syscall(sysNanosleep)
	b.jmp(loop)
	f.Bind(exit)
	g.exit(0)
}

func (g *archGen) exit(status int64) {
	g.b.imm(g.b.t(0), status)
	g.b.syscall(sysExitGroup)
}

// write emits write(fd, buf, n).
func (g *archGen) write(fd int64, buf elfwriter.Label, n int64) {
	b := g.b
	b.imm(b.t(0), fd)
	b.addr(b.t(1), buf, 0)
	b.imm(b.t(2), n)
	b.syscall(sysWrite)
}

// helpers emits atoi (the string at t1 to t0, exiting with status 2 on a
// non-digit) and printNum (t0 in decimal to standard output).
func (g *archGen) helpers() {
	f, b := g.f, g.b
	t0, t1, t2, t3 := b.t(0), b.t(1), b.t(2), b.t(3)
	f.Bind(g.atoi)
	b.imm(t0, 0)
	loop, done, bad := f.Here(""), f.NewLabel(""), f.NewLabel("")
	b.load(1, t2, t1, 0)
	b.brImm(condEQ, t2, 0, done)
	b.addImm(t2, -'0')
	b.brImm(condHI, t2, 9, bad)
	b.mulImm(t0, 10)
	b.add(t0, t2)
	b.addImm(t1, 1)
	b.jmp(loop)
	f.Bind(done)
	b.ret()
	f.Bind(bad)
	g.write(2, g.usage, int64(len(usageLine)))
	g.exit(2)

	f.Bind(g.printNum)
	b.addr(t1, g.numbuf, 24)
	b.imm(t3, 10)
	digit := f.Here("")
	b.divu(t0, t2, t3)
	b.addImm(t2, '0')
	b.addImm(t1, -1)
	b.store(1, t2, t1, 0)
	b.brImm(condNE, t0, 0, digit)
	b.addr(t2, g.numbuf, 24)
	b.sub(t2, t1)
	b.imm(t0, 1)
	b.syscall(sysWrite)
	b.ret()
}

// probe emits every site of p.
func (g *archGen) probe(p *probe) {
	f := g.f
	mp, fired := newManifestProbe(f, p, g.opts.semaphores, g.b.dataAlign())
	mp.Sites = make([]manifestSite, g.opts.sites)
	for s := range mp.Sites {
		g.site(p, &mp, &mp.Sites[s], fired)
	}
	g.man.Probes = append(g.man.Probes, mp)
}
