package bpf

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
	"github.com/sdtkit/sdtkit/internal/bpfhook"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"golang.org/x/sys/unix"
)

// Defaults of Options.
const (
	DefaultRingSize      = 4 << 20
	DefaultMaxSites      = 4096
	DefaultStringSize    = 64
	DefaultFlushInterval = 100 * time.Millisecond
)

// MaxStack is the most frames of Options.UStack: perf's default
// kernel.perf_event_max_stack.
const MaxStack = 127

// DefaultStackCopy is perf's default copy of the user stack for
// --call-graph dwarf, and MaxStackCopy the most bytes of
// Options.UStackCopy: python3.11's probes fire up to 10 KiB below
// _start, more with each call back into the interpreter from C, and a
// copy of 8 KiB loses their outer frames. A program that copies keeps
// room for the largest copy in each of its per-CPU scratch slots (see
// the package's Memory section), whose size the kernel bounds at 32 KiB.
const (
	DefaultStackCopy = 8192
	MaxStackCopy     = 16384
)

// MaxRingSize is the largest Options.RingSize: the ring buffer is
// allocated whole, in memory that cannot be swapped out.
const MaxRingSize = 1 << 30

// CopyRingEvents is how many events with a copy of the stack the
// default ring buffer of a program that copies holds, up to
// MaxCopyRingSize (see RingSizeFor).
const (
	CopyRingEvents  = 4096
	MaxCopyRingSize = 64 << 20
)

// RingSizeFor returns the default Options.RingSize for events with
// copies of copy bytes of the user stack (Options.UStackCopy): room for
// CopyRingEvents of them, rounded up to a power of two, and at most
// MaxCopyRingSize, 64 MiB for DefaultStackCopy and more;
// DefaultRingSize without a copy or where that is more. An event with a
// copy is 40 times the size of one without: the 4 MiB that hold about
// 20,000 of those hold 480 copies of 8 KiB, which the tracer, unwinding
// each, kept off the CPU for a few milliseconds, lets fill. Streaming a
// loop's 200,000 hits with copies of 8 KiB on a loaded 2-CPU machine
// lost a median of 24,000 events with 4 MiB, 15,600 with 16 MiB, 11,000
// with 32 MiB and 1,100 with 64 MiB.
func RingSizeFor(copy int) int {
	size := DefaultRingSize
	if copy <= 0 {
		return size
	}
	for want := CopyRingEvents * (eventHeaderSize + 32 + min(copy, MaxStackCopy) + 8); size < want && size < MaxCopyRingSize; {
		size *= 2
	}
	return size
}

// SiteLimit is the largest Options.MaxSites: the most probe sites one
// Program attaches. Its map of site specs then takes 304 MiB of kernel
// memory.
const SiteLimit = 1 << 20

// Options configure a Program. The zero value gives the defaults.
type Options struct {
	// RingSize is the size of the ring buffer in bytes, a power of two
	// and a multiple of the page size (if 0, DefaultRingSize, or with
	// UStackCopy RingSizeFor that copy). When the ring is full, events
	// are dropped and counted (see Lost). At most MaxRingSize.
	RingSize int
	// MaxSites is the most probe sites that can be attached
	// (DefaultMaxSites if 0), at most SiteLimit.
	MaxSites int
	// StringSize is the most bytes kept of a string argument, at most
	// MaxStringSize (DefaultStringSize if 0).
	StringSize int
	// FlushInterval bounds how long an event waits in the ring buffer
	// before Read returns it (DefaultFlushInterval if 0). The program
	// wakes the reader only when a quarter of the ring is filled, so
	// that busy probes cost one wakeup per batch rather than per event.
	FlushInterval time.Duration
	// PID limits tracing to one process, as this process's PID
	// namespace numbers it; 0 traces all. The kernel filters by pid
	// when it installs the breakpoints: other processes that map the
	// file are left unpatched.
	PID int
	// Cgroup, when not 0, keeps only the hits of threads in the cgroup
	// v2 of that id (the inode of its directory), whatever their
	// process: it traces a process and its descendants when they run
	// in a cgroup of their own. The check is the first thing the
	// program does, but the breakpoints are installed in every process
	// that maps the file (unless PID is set too), and each of their
	// hits costs a trap into the kernel before it is dropped.
	Cgroup uint64
	// PerSite attaches one uprobe per site even when the kernel has
	// uprobe_multi links (Linux 6.6), which attach all sites of a file
	// at once.
	PerSite bool
	// UStack is the most return addresses of the traced thread's user
	// stack each event carries (Event.Stack), up to MaxStack; 0 takes
	// none. The kernel walks the stack by its frame pointers (its perf
	// callchain code): code built without them gives a short or wrong
	// stack. It takes the program that reads strings (not NoStrings).
	UStack int
	// UStackCopy, instead, is the most bytes of the traced thread's
	// user stack each event carries a copy of, from its stack pointer
	// up, with the registers an unwind starts from (Event.StackCopy),
	// up to MaxStackCopy; 0 takes none. User space unwinds it by the
	// call-frame information of the code (package unwind). It takes the
	// program that reads strings.
	UStackCopy int
	// NoStrings loads the program that reads numbers only. It loads
	// several times faster than the one that also reads strings and
	// costs less per event; Attach refuses sites that read strings
	// (SpecOptions.Strings) with an error matching ErrNoStrings.
	NoStrings bool
	// Aggregate, when not nil, loads the program that aggregates hits in
	// the kernel (agg.bpf.c) instead of the one that streams events:
	// Collect reads what it counted, Read has nothing to read, and
	// RingSize and NoStrings do not apply.
	Aggregate *Aggregation
	// Filters are the --filter programs of the probes, by probe id: a
	// hit of a probe whose program is not nil and fails it is dropped
	// before anything else is done for it, in the kernel, streaming or
	// aggregating.
	Filters []*filter.Program
	// MaxProbes is the most probe ids, when more than those of Filters
	// or Aggregate.Probes: room for probes added with AddProbe after
	// loading, as libraries loaded later are found to have them, and
	// for the probes whose lost events LostByProbe counts.
	MaxProbes int
	// Filtering makes the program look for filters, as it does when
	// Filters has one, for those AddProbe adds.
	Filtering bool
	// NoFaults keeps the program from faulting in memory of the traced
	// thread that is not resident, which it does where the kernel runs
	// sleepable uprobe programs (Linux 6.0, with uprobe_multi links 6.6):
	// a string on a page of .rodata or of a mapped file that the thread
	// has not read yet is then not read, as on older kernels. A fault
	// can block the thread on I/O for as long as its own read of the
	// page would; a hit whose memory is resident costs the same either
	// way. Aggregating programs never fault (see Aggregate).
	NoFaults bool
	// InProcess attaches and detaches from this process. By default a
	// keeper process does it (see Attach), so that no SIGKILL of this
	// process can leave a traced process patched; InProcess saves
	// starting it, for programs that cannot run their own executable
	// again.
	InProcess bool

	pidns     *pidNS // for tests: report ids as this namespace numbers them
	noCookies bool   // for tests: as on a kernel without BPF cookies
	oldBuild  bool   // for tests: with noCookies, the builds for such kernels
	byIP      bool   // set by loadProgram: sites told apart by address (see siteip.go)
	old       bool   // set by loadProgram: the builds for kernels without cookies (see USDT_OLD in usdt.h)
}

// A Program is the loaded BPF program, its maps, and the uprobes
// attached to it.
type Program struct {
	prog      *ebpf.Program
	maps      maps
	multi     bool
	noStrings bool
	faults    bool // the program faults in memory not resident
	byIP      bool // sites are told apart by address, not by cookie
	pid       int
	cgroup    bool  // Options.Cgroup was given
	boot      int64 // Unix time in ns when CLOCK_BOOTTIME was 0

	mu    sync.Mutex // guards prog and links, and serializes Attach
	links linker
	// specs are the specs of the attached sites, by site number. Read
	// looks them up without taking mu, so that Detach, which can take
	// tens of milliseconds, does not stall it while events still arrive.
	specs atomic.Pointer[[]Spec]
	// When byIP, guarded by mu (see siteip.go): ips are the addresses
	// in site_ips, with their site numbers; placed the files whose
	// addresses follow the maps of the processes traced; procs the
	// addresses of sites in each process (linkTime: in all); held the
	// number of processes that have each site at an address.
	ips    map[uint64]uint32
	placed []*placement
	procs  map[int]map[uint64]uint32
	held   map[uint64]map[uint32]int

	ring *ring // nil when aggregating
	raw  usdtEvent
	agg  *aggState // nil when streaming
}

// Load loads the BPF program into the kernel. It needs root, or
// CAP_BPF and CAP_PERFMON, and Linux 5.8 (BPF ring buffers); without
// privilege the error matches ErrPermission, on older kernels
// ErrNotSupported. Before Linux 5.15, which brought BPF cookies, the
// program tells the sites apart by their address (see ByAddress).
func Load(opts *Options) (*Program, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.RingSize = orDefault(o.RingSize, RingSizeFor(o.UStackCopy))
	o.MaxSites = orDefault(o.MaxSites, DefaultMaxSites)
	o.StringSize = orDefault(o.StringSize, DefaultStringSize)
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.StringSize < 0 || o.StringSize > MaxStringSize {
		return nil, fmt.Errorf("string size %d not in [1, %d]", o.StringSize, MaxStringSize)
	}
	if o.MaxSites < 0 || o.MaxSites > SiteLimit {
		return nil, fmt.Errorf("site count %d not in [1, %d]", o.MaxSites, SiteLimit)
	}
	if o.RingSize < 0 || o.RingSize&(o.RingSize-1) != 0 || o.RingSize%os.Getpagesize() != 0 {
		return nil, fmt.Errorf("ring size %d not a power of two multiple of the page size", o.RingSize)
	}
	if o.RingSize > MaxRingSize {
		return nil, fmt.Errorf("ring size %d more than %d (1 GiB)", o.RingSize, MaxRingSize)
	}
	if o.PID < 0 {
		return nil, fmt.Errorf("bad pid %d", o.PID)
	}
	if o.UStack < 0 || o.UStack > MaxStack {
		return nil, fmt.Errorf("stack depth %d not in [1, %d]", o.UStack, MaxStack)
	}
	if o.UStackCopy < 0 || o.UStackCopy > MaxStackCopy {
		return nil, fmt.Errorf("stack copy of %d bytes not in [1, %d]", o.UStackCopy, MaxStackCopy)
	}
	if o.UStack > 0 && o.UStackCopy > 0 {
		return nil, errors.New("user stacks are walked in the kernel (UStack) or copied (UStackCopy), not both")
	}
	if (o.UStack > 0 || o.UStackCopy > 0) && (o.NoStrings || o.Aggregate != nil) {
		return nil, errors.New("user stacks are taken by the streaming program that reads strings: not with NoStrings or Aggregate")
	}
	// The keeper starts while the program loads.
	var kp *keeper
	if !o.InProcess {
		var err error
		if kp = takeSpare(); kp == nil {
			if kp, err = startKeeper("", -1); err != nil {
				return nil, err
			}
		}
	}
	p, err := loadProgram(&o)
	if err != nil {
		if kp != nil {
			kp.close()
		}
		return nil, err
	}
	if kp == nil {
		p.links = &localLinks{prog: p.prog}
		return p, nil
	}
	p.links = kp
	kp.w = &witness{}
	if err := kp.sendProg(p.prog); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// loadProgram loads the program and its maps.
func loadProgram(o *Options) (*Program, error) {
	if err := removeMemlock(); err != nil {
		return nil, permission(fmt.Errorf("load: %w", err))
	}
	cookies, err := checkKernel()
	if err != nil {
		return nil, err
	}
	o.byIP = !cookies || o.noCookies || bpfhook.NoCookies.Load()
	o.old = !cookies || o.oldBuild
	multi := false
	if !o.PerSite {
		switch err := features.HaveBPFLinkUprobeMulti(); {
		case err == nil:
			multi = true
		case !errors.Is(err, ErrNotSupported):
			return nil, permission(fmt.Errorf("probe uprobe_multi: %w", err))
		}
	}

	// Faulting in memory not resident takes a sleepable program, which
	// the kernel may refuse: the one that does not fault is loaded then.
	faults := !o.NoFaults && !o.old && o.Aggregate == nil && haveFaults(multi) == nil
	ps, err := prepareSpec(o, multi, faults)
	if err != nil {
		return nil, err
	}
	coll, err := ebpf.NewCollection(ps.spec)
	if err != nil && faults && !errors.Is(err, unix.EPERM) {
		faults = false
		if ps, err = prepareSpec(o, multi, false); err != nil {
			return nil, err
		}
		coll, err = ebpf.NewCollection(ps.spec)
	}
	if err != nil {
		return nil, permission(fmt.Errorf("load: %w", err))
	}
	defer coll.Close()
	p := &Program{multi: multi, noStrings: o.NoStrings && o.Aggregate == nil, faults: faults, byIP: o.byIP, pid: o.PID, cgroup: o.Cgroup != 0, boot: bootTime()}
	if o.byIP {
		p.ips, p.procs, p.held = make(map[uint64]uint32), make(map[int]map[uint64]uint32), make(map[uint64]map[uint32]int)
		p.maps.SiteIPs = coll.DetachMap(usdtMapSiteIps)
	}
	if ps.filtering {
		if err := putFilters(coll.Maps[usdtMapFilters], o.Filters); err != nil {
			return nil, err
		}
		p.maps.Filters = coll.DetachMap(usdtMapFilters)
	}
	p.prog = coll.DetachProgram(ps.name)
	p.maps.Sites = coll.DetachMap(usdtMapSites)
	p.maps.Counters = coll.DetachMap(usdtMapCounters)
	if o.Aggregate != nil {
		if p.agg, err = newAggState(coll, ps.spec, o, ps.layout); err != nil {
			p.Close()
			return nil, err
		}
		return p, nil
	}
	p.maps.Events = coll.DetachMap(usdtMapEvents)
	p.maps.ProbeLost = coll.DetachMap(usdtMapProbeLost)
	if p.ring, err = newRing(p.maps.Events.FD(), o.RingSize, o.FlushInterval); err != nil {
		p.Close()
		return nil, fmt.Errorf("ring buffer: %w", err)
	}
	return p, nil
}

// preparedSpec is the spec of the one program loadProgram loads, with
// what it needs to know of it once loaded.
type preparedSpec struct {
	spec      *ebpf.CollectionSpec
	name      string // of its program
	filtering bool
	layout    *keyLayout // aggregating only
}

// prepareSpec returns the spec of the program o asks for, with its
// sizes and constants set, for uprobe_multi links or perf-event uprobes,
// faulting memory in or not, with the other program deleted: a
// uprobe_multi program cannot be attached to a perf event, and older
// kernels reject it.
func prepareSpec(o *Options, multi, faults bool) (*preparedSpec, error) {
	spec, names, err := collectionSpec(o, faults)
	if err != nil {
		return nil, err
	}
	ps := &preparedSpec{spec: spec, name: names[0]}
	if multi {
		ps.name = names[1]
	}
	if ps.filtering, err = filterSpec(spec, o); err != nil {
		return nil, err
	}
	ns := selfPIDNS()
	if o.pidns != nil {
		ns = *o.pidns
	}
	if err := setPIDNS(spec, ns); err != nil {
		return nil, err
	}
	if err := spec.Variables[usdtVarCgroupId].Set(o.Cgroup); err != nil {
		return nil, fmt.Errorf("set %s: %w", usdtVarCgroupId, err)
	}
	if err := setByIP(spec, o); err != nil {
		return nil, err
	}
	if o.Aggregate != nil {
		if ps.layout, err = aggSpec(spec, o); err != nil {
			return nil, err
		}
	}
	for n := range spec.Programs {
		if n != ps.name {
			delete(spec.Programs, n)
		}
	}
	return ps, nil
}

// setByIP sets by_ip where the sites are told apart by address, and sizes
// site_ips: for each site, an address in one mapping of its file, or
// two; with Options.Cgroup, room for more, in the mappings of several
// processes (cgroupAddrs). Without, it keeps one entry.
func setByIP(spec *ebpf.CollectionSpec, o *Options) error {
	if err := spec.Variables[usdtVarByIp].Set(o.byIP); err != nil {
		return fmt.Errorf("set %s: %w", usdtVarByIp, err)
	}
	if o.byIP {
		n := 2 * o.MaxSites
		if o.Cgroup != 0 {
			n += min(6*o.MaxSites, cgroupAddrs)
		}
		spec.Maps[usdtMapSiteIps].MaxEntries = uint32(n)
	}
	return nil
}

// collectionSpec returns the program o asks for, faulting memory in or
// not, with the sizes and constants of o set, and the names of its
// programs for perf-event uprobes and for uprobe_multi links. The two
// programs' maps of sites and counters have the same names.
func collectionSpec(o *Options, faults bool) (*ebpf.CollectionSpec, [2]string, error) {
	if o.Aggregate != nil {
		load := specAgg
		if o.old {
			load = specAggold
		}
		spec, err := load.get()
		if err != nil {
			return nil, [2]string{}, err
		}
		spec.Maps[aggMapSites].MaxEntries = uint32(o.MaxSites)
		return spec, [2]string{aggProgAggSingle, aggProgAggMulti}, nil
	}
	names := [2]string{usdtProgUsdtSingle, usdtProgUsdtMulti}
	load := specUsdt
	switch {
	case o.NoStrings && o.old:
		load = specUsdtnumold
	case o.old:
		load = specUsdtold
	case o.NoStrings && faults:
		load = specUsdtnumfault
	case o.NoStrings:
		load = specUsdtnum
	case faults && o.UStackCopy > 0:
		load = specUsdtfault
	case faults:
		load = specUsdtleanfault
	case o.UStackCopy == 0:
		load = specUsdtlean
	}
	spec, err := load.get()
	if err != nil {
		return nil, names, err
	}
	spec.Maps[usdtMapSites].MaxEntries = uint32(o.MaxSites)
	spec.Maps[usdtMapEvents].MaxEntries = uint32(o.RingSize)
	spec.Maps[usdtMapProbeLost].MaxEntries = uint32(max(len(o.Filters), o.MaxProbes, 1))
	if v, ok := spec.Variables[usdtVarStrMax]; ok {
		if err := v.Set(uint32(o.StringSize)); err != nil {
			return nil, names, fmt.Errorf("set %s: %w", usdtVarStrMax, err)
		}
		if err := spec.Variables[usdtVarUstackMax].Set(uint32(o.UStack)); err != nil {
			return nil, names, fmt.Errorf("set %s: %w", usdtVarUstackMax, err)
		}
		if err := spec.Variables[usdtVarUstackCopy].Set(uint32(o.UStackCopy)); err != nil {
			return nil, names, fmt.Errorf("set %s: %w", usdtVarUstackCopy, err)
		}
	}
	if err := spec.Variables[usdtVarWakeupBytes].Set(uint64(o.RingSize / 4)); err != nil {
		return nil, names, fmt.Errorf("set %s: %w", usdtVarWakeupBytes, err)
	}
	return spec, names, nil
}

// maps are the maps of the programs that user space uses.
type maps struct {
	Sites    *ebpf.Map
	SiteIPs  *ebpf.Map // when byIP
	Events   *ebpf.Map // streaming only
	Counters *ebpf.Map
	Filters  *ebpf.Map // nil without filters
	// ProbeLost counts the events lost in a full ring by probe id;
	// streaming only.
	ProbeLost *ebpf.Map
}

func (m *maps) Close() error {
	var errs []error
	for _, mp := range []*ebpf.Map{m.Sites, m.SiteIPs, m.Events, m.Counters, m.Filters, m.ProbeLost} {
		if mp != nil {
			errs = append(errs, mp.Close())
		}
	}
	return errors.Join(errs...)
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// checkKernel reports a missing kernel feature that the program needs,
// and whether the kernel has BPF cookies (Linux 5.15), which the program
// does without (see ByAddress).
func checkKernel() (cookies bool, err error) {
	switch err := features.HaveMapType(ebpf.RingBuf); {
	case errors.Is(err, ErrNotSupported):
		return false, fmt.Errorf("kernel without BPF ring buffers (Linux 5.8): %w", err)
	case err != nil:
		return false, permission(fmt.Errorf("probe BPF ring buffers: %w", err))
	}
	switch err := features.HaveProgramHelper(ebpf.Kprobe, asm.FnGetAttachCookie); {
	case errors.Is(err, ErrNotSupported):
		return false, nil
	case err != nil:
		return false, permission(fmt.Errorf("probe BPF cookies: %w", err))
	}
	return true, nil
}

// bootTime returns the Unix time in nanoseconds at which CLOCK_BOOTTIME,
// the clock of the event timestamps, read zero.
func bootTime() int64 {
	var rt, bt unix.Timespec
	unix.ClockGettime(unix.CLOCK_REALTIME, &rt)
	unix.ClockGettime(unix.CLOCK_BOOTTIME, &bt)
	return rt.Nano() - bt.Nano()
}

// Read waits for the next event and stores it in ev, reusing ev.Args.
// After Close it returns an error matching ErrClosed. Read must not be
// called concurrently with itself; Close may be called concurrently to
// stop it.
func (p *Program) Read(ev *Event) error {
	if p.ring == nil {
		return errors.New("read: the program aggregates in the kernel")
	}
	return p.ring.read(func(b []byte) error {
		return decodeEvent(b, &p.raw, p.spec, p.boot, ev)
	})
}

// Buffered reports whether Read has an event to return without looking
// at the ring buffer again: false when the next Read may have to wait.
// A reader that hands events on in batches sends a batch when it is
// false. Like Read, it must not be called concurrently with Read.
func (p *Program) Buffered() bool {
	return p.ring != nil && p.ring.buffered()
}

// Faults reports whether the program reads memory of the traced thread
// that is not resident, faulting it in (see Options.NoFaults).
func (p *Program) Faults() bool {
	return p.faults
}

// spec returns the spec of a site, nil if unknown.
func (p *Program) spec(site uint32) *Spec {
	if specs := p.specs.Load(); specs != nil && int(site) < len(*specs) {
		return &(*specs)[site]
	}
	return nil
}

// Counters of usdt.bpf.c's enum counter.
const (
	lostRing = iota
	lostBusy
	lostSpec
	lostAgg
)

// Lost returns the number of events dropped so far because the ring
// buffer was full: Read was not called often enough, or the ring is too
// small for the event rate.
func (p *Program) Lost() (uint64, error) {
	return p.count(lostRing)
}

// LostByProbe returns, by probe id (the id of NewSpec), the events of
// each probe that Lost counts, for the ids below the most the program
// was loaded with (Options.MaxProbes, or the length of Options.Filters);
// Lost counts those of the probes beyond too. It is nil for a program
// that aggregates, which counts what it loses in its entries.
func (p *Program) LostByProbe() ([]uint64, error) {
	m := p.maps.ProbeLost
	if m == nil {
		return nil, nil
	}
	lost := make([]uint64, m.MaxEntries())
	var (
		id uint32
		n  uint64
	)
	it := m.Iterate()
	for it.Next(&id, &n) {
		if int(id) < len(lost) {
			lost[id] = n
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("read lost events: %w", err)
	}
	return lost, nil
}

// Skipped returns the number of probe hits that made no event for
// another reason than a full ring: the hit found every scratch slot of
// its CPU in use (hits nested more than four deep on one CPU), it
// came from a site the program has no spec for, or, aggregating, it
// found the map full and no entry to count it as lost in. It is 0 in
// all but pathological cases.
func (p *Program) Skipped() (uint64, error) {
	busy, err := p.count(lostBusy)
	if err != nil {
		return 0, err
	}
	spec, err := p.count(lostSpec)
	if err != nil {
		return 0, err
	}
	agg, err := p.count(lostAgg)
	return busy + spec + agg, err
}

// count returns the sum over the CPUs of one counter.
func (p *Program) count(c uint32) (uint64, error) {
	var vals []uint64
	if err := p.maps.Counters.Lookup(c, &vals); err != nil {
		return 0, fmt.Errorf("read counters: %w", err)
	}
	var n uint64
	for _, v := range vals {
		n += v
	}
	return n, nil
}

// Pending returns the number of bytes of events in the ring buffer that
// Read has not returned yet; 0 after Close.
func (p *Program) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog == nil || p.ring == nil {
		return 0
	}
	return p.ring.pending()
}

// Detach detaches the program from every site, which lowers the
// semaphores it raised. Events already in the ring buffer can still be
// read: a caller that stops tracing detaches, reads until Pending is 0,
// and then counts the lost events, so that none goes unaccounted for.
func (p *Program) Detach() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.detach()
}

func (p *Program) detach() error {
	if p.links == nil {
		return nil
	}
	return p.links.detach()
}

// Close detaches the program from every site, which lowers the
// semaphores it raised, and releases the program. It interrupts a
// concurrent Read. When it returns, no site is patched and no semaphore
// raised in any process; a hit made before may still run the program
// for a few milliseconds (see the package doc), which Detach waits for.
func (p *Program) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	if p.links != nil {
		errs = append(errs, p.links.close())
		p.links = nil
	}
	if p.ring != nil {
		errs = append(errs, p.ring.Close())
	}
	if p.prog != nil {
		errs = append(errs, p.prog.Close())
		p.prog = nil
	}
	if p.agg != nil {
		errs = append(errs, p.agg.close())
		p.agg = nil
	}
	errs = append(errs, p.maps.Close())
	return errors.Join(errs...)
}
