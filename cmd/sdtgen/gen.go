package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// options are what the generated program looks like.
type options struct {
	arch       arch // amd64 when empty
	typ        elfwriter.Type
	semaphores bool
	forms      []form
	sites      int
	soname     string // the DT_SONAME of a shared object; none when empty
}

// defaultInterval is the pause between iterations, in milliseconds, when
// the program is not given INTERVAL_MS.
const defaultInterval = 100

// regPool are the registers reg arguments are placed in, in the order gcc
// passes arguments; %rbx and %rcx are kept for sib operands, %rsp and %rbp
// for mem operands.
var regPool = []elfwriter.AMD64Reg{elfwriter.RDI, elfwriter.RSI, elfwriter.RDX, elfwriter.RAX, elfwriter.R8, elfwriter.R9, elfwriter.R10, elfwriter.R11, elfwriter.R12, elfwriter.R13, elfwriter.R14, elfwriter.R15}

// sibScales are the scales sib operands use in turn.
var sibScales = []int{4, 8, 1, 2}

// sibIndex is the value of the index register (%rcx) of sib operands.
const sibIndex = 2

// frameSize is the stack space below %rbp that holds mem operands.
const frameSize = 512

// generator builds the program.
type generator struct {
	opts options
	f    *elfwriter.File
	a    *elfwriter.AMD64

	iter, iters, interval, k1000, ts, numbuf, sibArea elfwriter.Label
	printNum, atoi                                    elfwriter.Label
	usage                                             elfwriter.Label
	half32, half64                                    elfwriter.Label // 0.5, made when first needed

	count elfwriter.Label // of a shared object: the sites fired by a call

	nextForm int // the form of the next argument, in turn over all sites
	nsites   int
	man      *manifest
	sites    []*siteRecord // to fill in addresses after linking
}

// siteRecord links a manifest site to its nop.
type siteRecord struct {
	ms *manifestSite
	pc elfwriter.Label
}

// maxSites is the most probe sites of a program, over all its probes:
// as many as sdtattach attaches, in notes well under what readers take.
// Writing one takes about 1.5 KB of memory a site.
const maxSites = 1 << 20

// generate writes the program firing probes and returns it with its
// manifest.
func generate(probes []*probe, opts options) (*elfwriter.Image, *manifest, error) {
	if n := len(probes) * max(opts.sites, 1); n > maxSites {
		return nil, nil, fmt.Errorf("%d probes of %d sites each are %d sites, more than the %d a program may have", len(probes), opts.sites, n, maxSites)
	}
	if opts.arch != "" && opts.arch != "amd64" {
		return generateArch(probes, opts)
	}
	if len(opts.forms) == 0 {
		opts.forms = []form{formReg}
	}
	if opts.sites < 1 {
		opts.sites = 1
	}
	g := &generator{opts: opts, f: elfwriter.New(opts.typ), man: newManifest(opts)}
	g.a = g.f.AMD64()
	g.f.Soname = opts.soname
	for _, p := range probes {
		if err := p.check(); err != nil {
			return nil, nil, err
		}
	}
	g.data()
	if opts.typ == elfwriter.Shared {
		if err := g.library(probes); err != nil {
			return nil, nil, err
		}
	} else {
		start := g.f.Func("_start")
		g.f.SetEntry(start)
		g.start(probes)
		g.f.End(start)
	}
	g.helpers()

	im, err := g.f.Link()
	if err != nil {
		return nil, nil, err
	}
	g.man.resolve(im, g.sites)
	return im, g.man, nil
}

func (g *generator) data() {
	f := g.f
	g.iter = f.Data("", make([]byte, 8), 8)
	g.iters = f.Data("", make([]byte, 8), 8)
	g.interval = f.Data("", make([]byte, 8), 8)
	g.k1000 = f.Data("", make([]byte, 8), 8)
	g.ts = f.Data("", make([]byte, 16), 8)
	g.numbuf = f.Data("", make([]byte, 24), 8)
	g.sibArea = f.Data("", make([]byte, 16*(maxArgs+1)), 8)
	g.usage = f.Data("", []byte(usageLine), 1)
	g.printNum = f.NewLabel("")
	g.atoi = f.NewLabel("")
}

const usageLine = "usage: PROG [ITERATIONS [INTERVAL_MS]]\n"

// start emits _start: argument parsing and the iteration loop.
func (g *generator) start(probes []*probe) {
	f := g.f
	g.a.Mov(elfwriter.RSP, elfwriter.RBP)
	g.a.AddImm(elfwriter.RSP, -frameSize)
	g.a.MovImm(elfwriter.RAX, 1)
	g.a.StoreRIP(elfwriter.RAX, g.iters, 0)
	g.a.MovImm(elfwriter.RAX, defaultInterval)
	g.a.StoreRIP(elfwriter.RAX, g.interval, 0)
	argsDone := f.NewLabel("")
	for i, dst := range []elfwriter.Label{g.iters, g.interval} {
		g.a.Load(8, elfwriter.RAX, elfwriter.RBP, 0) // argc
		g.a.CmpImm(elfwriter.RAX, int32(i+2))
		g.a.J(elfwriter.CondB, argsDone)
		g.a.Load(8, elfwriter.RSI, elfwriter.RBP, int32(8*(i+2))) // argv[i+1]
		g.a.Call(g.atoi)
		g.a.StoreRIP(elfwriter.RAX, dst, 0)
	}
	f.Bind(argsDone)
	// The timespec of nanosleep: interval/1000 s, interval%1000 ms.
	g.a.LoadRIP(elfwriter.RAX, g.interval, 0)
	g.a.Xor(elfwriter.RDX, elfwriter.RDX)
	g.a.MovImm(elfwriter.RCX, 1000)
	g.a.Div(elfwriter.RCX)
	g.a.StoreRIP(elfwriter.RAX, g.ts, 0)
	g.a.MulImm(elfwriter.RDX, 1000000)
	g.a.StoreRIP(elfwriter.RDX, g.ts, 8)
	g.a.Xor(elfwriter.RAX, elfwriter.RAX)
	g.a.StoreRIP(elfwriter.RAX, g.iter, 0)

	loop := f.Here("")
	g.a.LoadRIP(elfwriter.RAX, g.iter, 0)
	g.a.AddImm(elfwriter.RAX, 1)
	g.a.StoreRIP(elfwriter.RAX, g.iter, 0)
	g.a.MulImm(elfwriter.RAX, 1000)
	g.a.StoreRIP(elfwriter.RAX, g.k1000, 0)
	if g.opts.semaphores {
		g.a.LoadRIP(elfwriter.RAX, g.iter, 0)
		g.a.Call(g.printNum)
	}
	for _, p := range probes {
		g.probe(p)
	}
	if g.opts.semaphores {
		g.write(1, f.Data("", []byte("\n"), 1), 1)
	}
	exit, sleep := f.NewLabel(""), f.NewLabel("")
	g.a.LoadRIP(elfwriter.RAX, g.iters, 0)
	g.a.Test(elfwriter.RAX, elfwriter.RAX)
	g.a.J(elfwriter.CondE, sleep) // 0 iterations: until killed
	g.a.LoadRIP(elfwriter.RCX, g.iter, 0)
	g.a.Cmp(elfwriter.RAX, elfwriter.RCX)
	g.a.J(elfwriter.CondAE, exit)
	f.Bind(sleep)
	g.a.LoadRIP(elfwriter.RAX, g.interval, 0)
	g.a.Test(elfwriter.RAX, elfwriter.RAX)
	g.a.J(elfwriter.CondE, loop)
	g.a.MovImm(elfwriter.RAX, 35) // nanosleep
	g.a.LeaRIP(elfwriter.RDI, g.ts, 0)
	g.a.Xor(elfwriter.RSI, elfwriter.RSI)
	g.a.Syscall()
	g.a.Jmp(loop)
	f.Bind(exit)
	g.exit(0)
}

func (g *generator) exit(status int64) {
	g.a.MovImm(elfwriter.RAX, 231) // exit_group
	g.a.MovImm(elfwriter.RDI, status)
	g.a.Syscall()
}

// write emits write(fd, buf, n).
func (g *generator) write(fd int64, buf elfwriter.Label, n int64) {
	g.a.MovImm(elfwriter.RAX, 1)
	g.a.MovImm(elfwriter.RDI, fd)
	g.a.LeaRIP(elfwriter.RSI, buf, 0)
	g.a.MovImm(elfwriter.RDX, n)
	g.a.Syscall()
}

// helpers emits the subroutines: atoi (string at %rsi to %rax, exiting
// with status 2 on a non-digit) and printNum (%rax in decimal to stdout).
func (g *generator) helpers() {
	f := g.f
	f.Bind(g.atoi)
	g.a.Xor(elfwriter.RAX, elfwriter.RAX)
	loop, done, bad := f.Here(""), f.NewLabel(""), f.NewLabel("")
	g.a.Load(1, elfwriter.RCX, elfwriter.RSI, 0)
	g.a.Test(elfwriter.RCX, elfwriter.RCX)
	g.a.J(elfwriter.CondE, done)
	g.a.AddImm(elfwriter.RCX, -'0')
	g.a.CmpImm(elfwriter.RCX, 9)
	g.a.J(elfwriter.CondA, bad)
	g.a.MulImm(elfwriter.RAX, 10)
	g.a.Add(elfwriter.RCX, elfwriter.RAX)
	g.a.AddImm(elfwriter.RSI, 1)
	g.a.Jmp(loop)
	f.Bind(done)
	f.Ret()
	f.Bind(bad)
	g.write(2, g.usage, int64(len(usageLine)))
	g.exit(2)

	f.Bind(g.printNum)
	g.a.LeaRIP(elfwriter.RSI, g.numbuf, 24)
	g.a.Mov(elfwriter.RSI, elfwriter.R8)
	g.a.MovImm(elfwriter.RCX, 10)
	digit := f.Here("")
	g.a.Xor(elfwriter.RDX, elfwriter.RDX)
	g.a.Div(elfwriter.RCX)
	g.a.AddImm(elfwriter.RDX, '0')
	g.a.AddImm(elfwriter.RSI, -1)
	g.a.Store(1, elfwriter.RDX, elfwriter.RSI, 0)
	g.a.Test(elfwriter.RAX, elfwriter.RAX)
	g.a.J(elfwriter.CondNE, digit)
	g.a.Mov(elfwriter.R8, elfwriter.RDX)
	g.a.Sub(elfwriter.RSI, elfwriter.RDX)
	g.a.MovImm(elfwriter.RAX, 1)
	g.a.MovImm(elfwriter.RDI, 1)
	g.a.Syscall()
	f.Ret()
}

// probe emits every site of p.
func (g *generator) probe(p *probe) {
	f := g.f
	mp, fired := newManifestProbe(f, p, g.opts.semaphores, 1)
	mp.Sites = make([]manifestSite, g.opts.sites)
	for s := range mp.Sites {
		g.site(p, &mp, &mp.Sites[s], fired)
	}
	g.man.Probes = append(g.man.Probes, mp)
}

// site emits one probe site: the semaphore test, the arguments, the nop.
func (g *generator) site(p *probe, mp *manifestProbe, ms *manifestSite, fired elfwriter.Label) {
	f := g.f
	g.nsites++
	skip := f.NewLabel("")
	if mp.sema != 0 {
		g.a.CmpwRIPZero(mp.sema)
		g.a.J(elfwriter.CondE, skip)
	}
	forms := make([]form, len(p.args))
	var sib, rip bool
	for i, a := range p.args {
		forms[i] = g.opts.forms[g.nextForm%len(g.opts.forms)].forArg(a)
		g.nextForm++
		sib = sib || forms[i] == formSIB
		rip = rip || forms[i] == formRIP
	}
	var ripSym elfwriter.Label
	var ripName string
	if rip {
		ripName = fmt.Sprintf("%s_%s_site%d", p.provider, p.name, g.nsites)
		ripSym = f.Data(ripName, make([]byte, 8*maxArgs), 8)
	}
	if sib {
		g.a.LeaRIP(elfwriter.RBX, g.sibArea, 0)
		g.a.MovImm(elfwriter.RCX, sibIndex)
	}
	ms.Argv = make([]manifestArg, len(p.args))
	var operands []string
	// Memory first, registers last, so that no load clobbers another
	// (see form.pass).
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
				r := regPool[(i+g.nsites-1)%len(regPool)]
				g.load(r, a, mp.Args[i], i)
				loc = r.Name(a.size)
			case formFloat:
				x := elfwriter.AMD64XReg(i) // %xmm15 stays free for loadFloatBits
				g.loadFloat(x, elfwriter.RAX, a, i)
				loc = x.Name()
			case formMem:
				g.load(elfwriter.RAX, a, mp.Args[i], i)
				base, disp := elfwriter.RBP, int32(-8*(i+1))
				if i%2 == 1 {
					base, disp = elfwriter.RSP, int32(8*i)
				}
				g.a.Store(8, elfwriter.RAX, base, disp)
				loc = memOperand(disp, base)
			case formSIB:
				g.load(elfwriter.RAX, a, mp.Args[i], i)
				scale := sibScales[i%len(sibScales)]
				disp := int32(16*(i+1) - sibIndex*scale)
				g.a.Store(8, elfwriter.RAX, elfwriter.RBX, int32(16*(i+1)))
				loc = offset(disp) + "(%rbx,%rcx)" // gcc leaves out a scale of 1
				if scale != 1 {
					loc = fmt.Sprintf("%s(%%rbx,%%rcx,%d)", offset(disp), scale)
				}
			case formRIP:
				g.load(elfwriter.RAX, a, mp.Args[i], i)
				g.a.StoreRIP(elfwriter.RAX, ripSym, int64(8*i))
				loc = ripName + "(%rip)"
				if i > 0 {
					loc = fmt.Sprintf("%s+%d(%%rip)", ripName, 8*i)
				}
			case formImm:
				v := a.value(1, i)
				ma.Value = &v
				loc = "$" + strconv.FormatInt(v, 10)
			}
			ma.Operand = sizePrefix(a) + loc
		}
	}
	ms.Values = siteValues(p.args, mp.Args, ms.Argv)
	for _, ma := range ms.Argv {
		operands = append(operands, ma.Operand)
	}
	pc := f.Nop()
	args := strings.Join(operands, " ")
	ms.Args = args
	f.AddNote(elfwriter.Note{Provider: p.provider, Name: p.name, Args: args, PC: pc, Semaphore: mp.sema})
	g.sites = append(g.sites, &siteRecord{ms: ms, pc: pc})
	switch {
	case g.count != 0:
		g.a.LoadRIP(elfwriter.RAX, g.count, 0)
		g.a.AddImm(elfwriter.RAX, 1)
		g.a.StoreRIP(elfwriter.RAX, g.count, 0)
	case mp.sema != 0:
		g.write(1, fired, int64(len(p.String())+1))
	}
	f.Bind(skip)
}

// load emits the loading of argument i's value on the current iteration
// into r.
func (g *generator) load(r elfwriter.AMD64Reg, a argType, mt manifestType, i int) {
	if a.str {
		g.a.LeaRIP(r, mt.label, 0)
		return
	}
	if a.float {
		g.loadFloatBits(r, a, i)
		return
	}
	g.a.LoadRIP(r, g.k1000, 0)
	if i != 0 {
		g.a.AddImm(r, int32(i))
	}
	if a.signed {
		g.a.Neg(r)
	}
}

// sizePrefix returns the size and sign of a's operand, as sys/sdt.h writes
// them: "-4@", "8@", and "8f@" for a double, which is never marked signed.
func sizePrefix(a argType) string {
	if a.float {
		return fmt.Sprintf("%df@", a.size)
	}
	if a.signed {
		return fmt.Sprintf("-%d@", a.size)
	}
	return fmt.Sprintf("%d@", a.size)
}

// offset writes a displacement as gcc does: nothing for 0.
func offset(d int32) string {
	if d == 0 {
		return ""
	}
	return strconv.Itoa(int(d))
}

func memOperand(disp int32, base elfwriter.AMD64Reg) string {
	return offset(disp) + "(" + base.Name(8) + ")"
}
