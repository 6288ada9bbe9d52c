package tracefs

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sdtkit/sdtkit/internal/kernelversion"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/journal"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"golang.org/x/sys/unix"
)

// TraceOptions configure Open.
type TraceOptions struct {
	// PID, when not 0, traces that process only, the threads it
	// creates later included; the Tracer stops by itself when it exits.
	PID int
	// Cgroup, with PID, is the directory of a cgroup v2 whose processes
	// are traced too: those PID starts, born in its cgroup, and what
	// they execute (sdtattach -f). The events are then enabled for every
	// process, as without PID (the kernel puts the breakpoints in every
	// process that maps the files), each record carries the cgroup of
	// its thread (PERF_SAMPLE_CGROUP, Linux 5.7), and those of other
	// cgroups are dropped. That is the cgroup of the thread's perf_event
	// controller, which cgroup v2 gives every cgroup implicitly: where
	// the kernel has not yet given it to those below the hierarchy's
	// root, Open has it do so (see followCgroup) and says so through
	// Warn.
	Cgroup string
	// Done, when not nil, stops the Tracer once it is closed, instead of
	// the exit of PID: sdtattach -f closes it when the last process of
	// the cgroup has exited.
	Done <-chan struct{}
	// StringSize is the most bytes kept of a string argument
	// (bpf.DefaultStringSize if 0).
	StringSize int
	// RingSize is the size in bytes of the ring buffer of each CPU
	// (bpf.DefaultRingSize if 0), rounded down to a power of two of
	// pages. Each CPU has a ring of that size, not a share of it: the
	// events of a busy probe fill the ring of the CPU it fires on.
	RingSize int
	// UStack, when not 0, puts in each event (hit.Event.Stack) the
	// return addresses of the thread's user stack, at most UStack,
	// innermost first, the probe's own address first, as the kernel
	// walks it by the frame pointers (PERF_SAMPLE_CALLCHAIN, its user
	// part): UStack is at most kernel.perf_event_max_stack.
	UStack int
	// UStackCopy, when not 0, instead copies at each hit up to
	// UStackCopy bytes of the thread's user stack, rounded down to a
	// multiple of 8, from its stack pointer up, with the registers an
	// unwind starts from, into hit.Event.StackCopy
	// (PERF_SAMPLE_STACK_USER and PERF_SAMPLE_REGS_USER), for the
	// caller to unwind (package unwind): on x86-64 and arm64.
	UStackCopy int
	// Mapped, with UStack or UStackCopy and PID (but not Cgroup), is
	// called with each executable mapping the process or its
	// descendants make while traced, as the kernel reports them
	// (PERF_RECORD_MMAP2), before the events of hits that follow the
	// mapping are read: what a caller that unwinds and symbolizes the
	// stacks places their addresses with when the process exits
	// before its maps can be read (a short command's libraries).
	Mapped func(pid int, m process.Mapping)
	// FlushInterval bounds how long an event waits in a ring buffer
	// before Read returns it (attach.DefaultFlushInterval if 0).
	FlushInterval time.Duration
	// Attached, when not nil, is called once every site is enabled;
	// an error undoes everything and is Open's.
	Attached func() error
	// Warn, when not nil, is told of what is left out: arguments with
	// no fetch argument form (shown as null), semaphores not raised,
	// sites that cannot be probe events, groups of gone processes
	// removed.
	Warn func(error)
	// PerSite defines an event of its own for every site, as kernels
	// before Linux 5.7 need: they have neither the immediates nor the
	// events of several probes that sharing an event takes. Open sets it
	// on such a kernel. There is then a perf event per site and CPU,
	// and ending takes longer, the kernel waiting for an RCU grace period
	// as the last perf event of each event is closed.
	PerSite bool
}

// sharedSince is the Linux version from which sites share events.
var sharedSince = [2]int{5, 7}

// A Tracer streams the events of the probe sites of a plan, defined in
// uprobe_events in a group of the tracing process's own (OwnerGroup)
// and enabled by perf events opened on them: the uprobes live as long
// as those file descriptors, so that the sites are restored and the
// semaphores lowered when the process ends, however it ends. The
// definitions, which outlive it, are removed by Close, or by the
// RemoveStale of a later Open once the process is gone.
//
// It follows the protocol of attach.Tracer: Stop disables every event;
// Read returns the events left in the ring buffers, then io.EOF; Close
// releases everything.
type Tracer struct {
	dir    string
	events []string                // GROUP/EVENT defined
	ids    []uint32                // of the events, as events
	types  map[uint32]*eventFormat // by event id
	sites  []*siteFormat           // by site number; nil for one left out
	pid    int
	strlen int
	warn   func(error) // TraceOptions.Warn
	flush  int         // ms
	epoch  int64       // Unix time in ns when CLOCK_MONOTONIC read 0

	fds     []int // every perf event
	keeper  *keeper
	planned []journal.Planned // the sites of the events, by file
	rings   []*ring
	epfd    int
	wake    int    // eventfd that ends an epoll wait
	cgroup  uint64 // the id of TraceOptions.Cgroup, the inode of its directory
	samp    sampling
	regs    regsLayout // of samp.Regs
	smp     perfSample // the sample being decoded
	evbuf   []unix.EpollEvent
	cur     int                              // ring being read
	mapped  func(pid int, m process.Mapping) // TraceOptions.Mapped, when the events report mappings
	// loaded says the rings' heads are loaded for a pass over them,
	// and loadedDisabled that the events were disabled by then.
	loaded, loadedDisabled bool

	lost     atomic.Uint64
	skipped  atomic.Uint64
	samples  uint64 // PERF_RECORD_SAMPLEs read, events or not
	recounts int    // of the lost hits, after Stop (settleLost)
	stopOnce sync.Once
	stopped  chan struct{}
	disabled atomic.Bool // the events are disabled: drain, then EOF
	closed   atomic.Bool
	readMu   sync.Mutex // held by Read; Close takes it to unmap
	closeErr error
	closeMu  sync.Mutex
}

// An eventFormat is where the fields common to the probes of an event
// are in its records.
type eventFormat struct {
	name string // GROUP/EVENT
	site *Field // the site number, which each probe fetches as an immediate
	only int    // the site of an event of one site (TraceOptions.PerSite), whose site is nil
	comm *Field
}

// A siteFormat is how the records of one site are decoded.
type siteFormat struct {
	num  int    // site number
	id   uint32 // of its event
	site *Site
	args []*Field // by argument; nil for one left out
	// high are, by argument, the fields of the 4 bytes after a string's
	// 4-byte pointer in memory, which the kernel read as its top half
	// (Options.KernelWord); nil for the others, or nil for none.
	high []*Field
	raw  []string    // the operands of the arguments that have high
	bad  hit.ArgMask // the arguments whose high was reported not 0
}

// ErrClosed is returned by Read after Close.
var ErrClosed = errors.New("tracer closed")

// Open defines a probe for every site of sites (see Define) in the group
// of this process, after removing the groups of gone processes
// (RemoveStale), and enables them through perf events. The sites share
// one event per layout of their fields (Definition.Layout), whatever
// their probes; each probe fetches its site number as an immediate,
// which tells the records of the event apart. With o.PerSite, set on
// kernels before 5.7, every site has an event of its own instead. There
// is one perf event per event and CPU, and with o.PID, per thread of
// the process. On error nothing stays defined or enabled; an error for
// want of privilege matches ErrPermission.
func Open(sites []Site, o *TraceOptions) (*Tracer, error) {
	if o == nil {
		o = &TraceOptions{}
	}
	if !o.PerSite && kernelBefore(sharedSince) {
		po := *o
		po.PerSite = true
		o = &po
	}
	dir, err := Mount()
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	gone, err := RemoveStale(dir, self)
	if err != nil {
		return nil, permission(fmt.Errorf("remove stale uprobe events: %w", err), privileged())
	}
	for _, g := range gone {
		warn(o, fmt.Errorf("removed the uprobe events of group %s, left by a process that is gone", g))
	}
	var cgroup uint64
	if o.Cgroup != "" {
		if cgroup, err = followCgroup(o.Cgroup, o.Warn); err != nil {
			return nil, permission(err, privileged())
		}
	}
	t := &Tracer{
		dir:     dir,
		types:   make(map[uint32]*eventFormat),
		sites:   make([]*siteFormat, len(sites)),
		pid:     o.PID,
		warn:    o.Warn,
		cgroup:  cgroup,
		strlen:  cmp.Or(o.StringSize, bpf.DefaultStringSize),
		flush:   int(cmp.Or(o.FlushInterval, bpf.DefaultFlushInterval) / time.Millisecond),
		epoch:   monotonicEpoch(),
		epfd:    -1,
		wake:    -1,
		stopped: make(chan struct{}),
	}
	if err := t.setSampling(o); err != nil {
		return nil, err
	}
	if o.Mapped != nil && (o.UStack > 0 || o.UStackCopy > 0) && o.PID != 0 && cgroup == 0 {
		t.mapped = o.Mapped
	}
	if err := t.open(sites, OwnerGroup(self), o); err != nil {
		t.Close()
		// Access to tracefs is no proof of CAP_PERFMON.
		return nil, permission(err, privileged())
	}
	if o.Done != nil {
		go func() {
			select {
			case <-o.Done:
				t.Stop()
			case <-t.stopped:
			}
		}()
	}
	if o.Attached != nil {
		if err := o.Attached(); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

func warn(o *TraceOptions, err error) {
	if o.Warn != nil {
		o.Warn(err)
	}
}

func (t *Tracer) open(sites []Site, group string, o *TraceOptions) error {
	defs, nums, err := definitions(sites, group, o)
	if err != nil {
		return err
	}
	// Recorded before they are added: those added before an error are
	// removed.
	formats := make(map[string]*Format) // by GROUP/EVENT
	for _, d := range defs {
		ev := d.Group + "/" + d.Event
		if _, ok := formats[ev]; !ok {
			formats[ev] = nil
			t.events = append(t.events, ev)
		}
	}
	t.journal(defs)
	if err := Add(t.dir, defs); err != nil {
		return err
	}
	for i, d := range defs {
		ev := d.Group + "/" + d.Event
		f := formats[ev]
		if f == nil {
			if f, err = ReadFormat(t.dir, d.Group, d.Event); err != nil {
				return err
			}
			formats[ev] = f
			ef := &eventFormat{name: ev, comm: f.Field("comm"), only: nums[i]}
			if !o.PerSite {
				ef.site = f.Field(siteField)
				if ef.site == nil || ef.site.Size != 4 || ef.site.Dynamic {
					return fmt.Errorf("%s format: no 32-bit field %s", ev, siteField)
				}
			}
			t.types[f.ID] = ef
			t.ids = append(t.ids, f.ID)
		}
		sf := &siteFormat{num: nums[i], id: f.ID, site: &sites[nums[i]]}
		sf.args = make([]*Field, len(sf.site.Args))
		for j := range sf.args {
			// Those the plan reported as unreadable show as null, as
			// with the BPF backend.
			if j >= 16 || !sf.site.Reported.Has(j) {
				sf.args[j] = f.Field("arg" + strconv.Itoa(j))
			}
		}
		for _, a := range d.Args {
			if a.Name != highField(a.Index) || a.Index >= len(sf.args) {
				continue
			}
			if sf.high == nil {
				sf.high, sf.raw = make([]*Field, len(sf.args)), make([]string, len(sf.args))
			}
			sf.high[a.Index], sf.raw[a.Index] = f.Field(a.Name), a.Raw
		}
		t.sites[sf.num] = sf
	}
	if t.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return fmt.Errorf("epoll: %w", err)
	}
	if t.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fmt.Errorf("eventfd: %w", err)
	}
	if err := t.poll(t.wake); err != nil {
		return err
	}
	if err := t.enable(o); err != nil {
		return err
	}
	if t.pid != 0 && o.Done == nil {
		// Started once the events are open, which Stop disables.
		exited, stop := process.WatchExit(t.pid)
		go func() {
			select {
			case <-exited:
				t.Stop()
			case <-t.stopped:
			}
			stop()
		}()
	}
	return nil
}

// enable opens the perf events of every event, one per CPU (and per
// thread of the -p process), their records sent to a ring per CPU.
func (t *Tracer) enable(o *TraceOptions) error {
	ncpu, err := onlineCPUs()
	if err != nil {
		return err
	}
	page := os.Getpagesize()
	size := page
	for want := cmp.Or(o.RingSize, bpf.DefaultRingSize); size*2 <= want; {
		size *= 2
	}
	// Woken at a quarter full, as the BPF backend is: the reader, when
	// it gets the CPU late, still has three quarters of the ring ahead.
	watermark := uint32(size / 4)
	targets := []int{-1}
	inherit := false
	// With a cgroup, the events sample every process, as the kernel
	// then installs the breakpoints of the uprobes in every process
	// that maps the files: a process's inherited events, which limit
	// them to it and its children, do not reliably reach the mappings
	// a child makes after its fork. Decode keeps the cgroup's records.
	if t.pid != 0 && t.cgroup == 0 {
		if targets, err = threads(t.pid); err != nil {
			return err
		}
		inherit = true
	}
	if t.keeper, err = startKeeper(); err != nil {
		return err
	}
	for _, p := range t.planned {
		if err := t.keeper.journal(p); err != nil {
			return err
		}
	}
	t.rings = make([]*ring, len(ncpu))
	for n, id := range t.ids {
		samp := t.samp
		if n == 0 && t.mapped != nil {
			// The first event's reports the mappings, once each.
			samp.Maps = 1
		}
		for _, tid := range targets {
			for i, cpu := range ncpu {
				fd, err := t.keeper.open(id, tid, cpu, inherit, watermark, &samp)
				if errors.Is(err, unix.ESRCH) && tid != -1 {
					continue // a thread that exited
				}
				if err != nil {
					return fmt.Errorf("enable %s: %w", t.eventName(id), err)
				}
				t.fds = append(t.fds, fd)
				if t.rings[i] == nil {
					if t.rings[i], err = newRing(fd, size); err != nil {
						return err
					}
					if err := t.poll(fd); err != nil {
						return err
					}
					continue
				}
				if err := t.rings[i].redirect(fd); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// setSampling sets what the perf events sample, as o says.
func (t *Tracer) setSampling(o *TraceOptions) error {
	if t.cgroup != 0 {
		t.samp.Cgroup = 1
	}
	switch {
	case o.UStackCopy > 0:
		l, err := stackRegs()
		if err != nil {
			return err
		}
		t.regs = l
		t.samp.Regs = l.mask
		t.samp.Copy = uint32(max(o.UStackCopy, 8)) &^ 7
	case o.UStack > 0:
		// perf_event_open fails with EOVERFLOW past the sysctl.
		if n, err := maxStack(); err == nil && o.UStack > n {
			return fmt.Errorf("user stacks of %d frames: more than kernel.perf_event_max_stack (%d)", o.UStack, n)
		}
		t.samp.Depth = uint32(min(o.UStack, 0xffff))
	}
	return nil
}

// maxStack returns the sysctl kernel.perf_event_max_stack: the most
// frames of a perf event's callchain.
func maxStack() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_max_stack")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// journal keeps the sites of defs by file, for the keeper to journal
// before it opens the events that register them.
func (t *Tracer) journal(defs []*Definition) {
	pid := t.pid
	if t.cgroup != 0 {
		pid = 0 // the events sample every process
	}
	byPath := make(map[string]int)
	for _, d := range defs {
		j, ok := byPath[d.Path]
		if !ok {
			var st unix.Stat_t
			if unix.Stat(d.Path, &st) != nil {
				continue
			}
			j = len(t.planned)
			byPath[d.Path] = j
			t.planned = append(t.planned, journal.Planned{Path: d.Path, Dev: st.Dev, Inode: st.Ino, Ctime: st.Ctim.Nano(), PID: pid})
		}
		p := &t.planned[j]
		p.Offsets = append(p.Offsets, d.Offset)
		p.RefCtrOffsets = append(p.RefCtrOffsets, d.RefCtrOffset)
	}
}

func (t *Tracer) eventName(id uint32) string {
	if ef := t.types[id]; ef != nil {
		return ef.name
	}
	return strconv.Itoa(int(id))
}

func (t *Tracer) poll(fd int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(t.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll: %w", err)
	}
	return nil
}

// siteField is the field of every event that holds the site number.
const siteField = "site"

// kernelWord returns the size in bytes of the running kernel's unsigned
// long: that of this process's, unless this is a 32-bit process that
// uname says runs on a 64-bit machine.
func kernelWord() int {
	if strconv.IntSize == 64 {
		return 8
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		if m := unix.ByteSliceToString(u.Machine[:]); strings.Contains(m, "64") || m == "s390x" {
			return 8
		}
	}
	return 4
}

// kernelBefore reports whether the running kernel's version is before v
// (major, minor); false when it cannot be told.
func kernelBefore(v [2]int) bool {
	before, _ := kernelversion.Before(v[0], v[1])
	return before
}

// definitions defines the sites of plan, in group, and returns them with
// their site numbers. The sites whose definitions have the same Layout
// share an event, named after the provider and probe of the first
// (Namer), whatever their probes: each fetches its site number as
// siteField; with o.PerSite every site is an event of its own. Fewer
// events end faster: the kernel waits for an RCU grace period when the
// last perf event of an event is closed. The notes are read again: the
// plan keeps no operands.
func definitions(sites []Site, group string, o *TraceOptions) ([]*Definition, []int, error) {
	var defs []*Definition
	var nums []int
	var namer Namer
	names := make(map[string]string)  // event by layout
	reported := make(map[string]bool) // "probe argN", reported once
	// The sites of a file, one run after another.
	for first := 0; first < len(sites); {
		tg := sites[first].Target
		end := first + 1
		for end < len(sites) && sites[end].Target == tg {
			end++
		}
		f, err := stapsdt.Open(tg.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", tg.Name, err)
		}
		type key struct {
			off            uint64
			provider, name string
		}
		notes := make(map[key]*stapsdt.Site)
		for i := range f.Sites {
			s := &f.Sites[i]
			notes[key{s.PCOffset, s.Provider, s.Name}] = s
		}
		path, err := filepath.Abs(tg.Path)
		if err != nil {
			return nil, nil, err
		}
		var arm func(uint64) bool
		if f.Machine == elf.EM_ARM {
			if ef, err := elf.Open(tg.Path); err == nil {
				arm = ARMCode(ef)
				ef.Close()
			}
		}
		for num := first; num < end; num++ {
			ps := &sites[num]
			p := ps.Probe
			note := notes[key{ps.Offset, p.Provider, p.Name}]
			if note == nil {
				warn(o, fmt.Errorf("%s: %v: site at offset %#x no longer in the file; left out", tg.Name, p, ps.Offset))
				continue
			}
			d, err := Define(note, f.Machine, path, group, "", &Options{
				Symbols:    tg,
				Type:       f.Type,
				Comm:       true,
				Strings:    func(i int) bool { return i < len(ps.Args) && ps.Args[i].Kind == probespec.String },
				KernelWord: kernelWord(),
				ARM:        arm,
			})
			if err != nil {
				warn(o, fmt.Errorf("%s: %v: site at %#x left out: %w", tg.Name, p, note.PC, err))
				continue
			}
			for _, lo := range d.LeftOut {
				if lo.Index >= 0 && (lo.Index < 16 && ps.Reported.Has(lo.Index) || lo.Index >= len(ps.Args) || ps.Args[lo.Index].Kind == probespec.Drop) {
					continue // reported while planning, or not shown
				}
				k := fmt.Sprintf("%s %v %d", tg.Name, p, lo.Index)
				if reported[k] {
					continue
				}
				reported[k] = true
				if lo.Index < 0 {
					warn(o, fmt.Errorf("%s: %v: %v", tg.Name, p, lo))
				} else {
					warn(o, fmt.Errorf("%s: %v: arg%d %q: %w; shown as null", tg.Name, p, lo.Index, lo.Raw, lo.Err))
				}
			}
			if o.PerSite {
				d.Event = namer.Name(group, p.Provider+"_"+p.Name)
			} else {
				d.Args = slices.Insert(d.Args, 0, FetchArg{Name: siteField, Fetch: `\` + strconv.Itoa(num) + ":u32"})
				k := d.Layout()
				if d.Event = names[k]; d.Event == "" {
					d.Event = namer.Name(group, p.Provider+"_"+p.Name)
					names[k] = d.Event
				}
			}
			defs = append(defs, d)
			nums = append(nums, num)
		}
		first = end
	}
	if len(defs) == 0 {
		return nil, nil, ErrNoSites
	}
	return defs, nums, nil
}

// Lost returns the number of events dropped so far because a ring
// buffer was full, as the rings' PERF_RECORD_LOST report them; once Read
// has returned io.EOF, every hit the events counted that made no sample,
// the losses no record reported included.
func (t *Tracer) Lost() uint64 { return t.lost.Load() }

// Skipped returns the number of records that made no event: of an
// unknown event, or too short for its format. 0 in all but pathological
// cases.
func (t *Tracer) Skipped() uint64 { return t.skipped.Load() }

// Stopped returns a channel that is closed when Stop is called.
func (t *Tracer) Stopped() <-chan struct{} { return t.stopped }

// Stop disables every event, so that none is added, and lets Read
// return those left in the ring buffers before io.EOF. The uprobes are
// unregistered, and the semaphores lowered, once the ring buffers are
// drained or the Tracer closed. It returns at once; the Tracer calls it
// itself when the process of TraceOptions.PID exits.
func (t *Tracer) Stop() {
	t.stopOnce.Do(func() {
		for _, fd := range t.fds {
			unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_DISABLE, 0)
		}
		t.disabled.Store(true)
		close(t.stopped)
		t.wakeUp()
	})
}

func (t *Tracer) wakeUp() {
	if t.wake >= 0 {
		unix.Write(t.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	}
}

// Close disables and closes every event, which unregisters the uprobes,
// and removes the definitions; a Read in progress returns.
func (t *Tracer) Close() error {
	t.closed.Store(true)
	t.Stop()
	t.readMu.Lock()
	defer t.readMu.Unlock()
	t.closeMu.Lock()
	defer t.closeMu.Unlock()
	if t.dir == "" {
		return t.closeErr
	}
	var errs []error
	if err := t.release(); err != nil {
		errs = append(errs, err)
	}
	for _, fd := range []int{t.epfd, t.wake} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	t.epfd, t.wake = -1, -1
	// The events must be closed first: one in use cannot be removed.
	if err := Remove(t.dir, t.events); err != nil {
		errs = append(errs, err)
	}
	t.dir = ""
	t.closeErr = errors.Join(errs...)
	return t.closeErr
}

// release unmaps the rings and closes the perf events, then ends the
// keeper, which holds them too: the uprobes are unregistered when it
// returns.
func (t *Tracer) release() error {
	for _, r := range t.rings {
		if r != nil {
			r.close()
		}
	}
	t.rings = nil
	for _, fd := range t.fds {
		unix.Close(fd)
	}
	t.fds = nil
	if k := t.keeper; k != nil {
		t.keeper = nil
		return k.close()
	}
	return nil
}

// Read waits for the next event and stores it in ev, reusing its
// memory: ev.Site is the index of its site in those given to Open. After
// Stop it returns io.EOF once the ring buffers are empty, and after
// Close at once. Read must not be called concurrently with itself.
func (t *Tracer) Read(ev *hit.Event) error {
	t.readMu.Lock()
	defer t.readMu.Unlock()
	for {
		if t.closed.Load() {
			return io.EOF
		}
		if !t.loaded {
			// A pass over the rings: every ring's head is loaded
			// before any is read, and the mappings up to there
			// handed over, so that a hit is unwound with the
			// libraries mapped before it, whichever CPU mapped them.
			t.loaded, t.loadedDisabled = true, t.disabled.Load()
			for _, r := range t.rings {
				r.load()
				if t.mapped != nil {
					r.scan(t.scanMaps)
				}
			}
		}
		for range len(t.rings) {
			r := t.rings[t.cur]
			for rec := r.next(); rec != nil; rec = r.next() {
				if t.decode(rec, ev) {
					return nil
				}
			}
			t.cur = (t.cur + 1) % len(t.rings)
		}
		t.loaded = false
		if t.disabled.Load() && !t.loadedDisabled {
			continue // what was written up to the disable, first
		}
		if t.loadedDisabled {
			if t.settleLost() {
				continue
			}
			// Everything written before the events were disabled is
			// read: unregister the uprobes now.
			t.closeMu.Lock()
			t.release()
			t.closeMu.Unlock()
			return io.EOF
		}
		if err := t.wait(); err != nil {
			return err
		}
	}
}

// settleLost, once the events are disabled and the rings read, makes
// Lost count every hit that made no sample: those the events counted
// less the samples read. A ring reports its lost samples in a
// PERF_RECORD_LOST only once it has room for one again, with the next
// sample it takes: the last losses of a burst have no record. It
// reports whether samples came after the counts were read, and the
// rings must be read again before it is called again.
func (t *Tracer) settleLost() bool {
	var hits uint64
	for _, fd := range t.fds {
		var b [8]byte
		if n, err := unix.Read(fd, b[:]); err != nil || n != len(b) {
			return false // the losses the records reported, then
		}
		hits += le.Uint64(b[:])
	}
	t.recounts++
	for _, r := range t.rings {
		if r.pending() && t.recounts < 3 {
			return true
		}
	}
	if hits > t.samples && hits-t.samples > t.lost.Load() {
		t.lost.Store(hits - t.samples)
	}
	return false
}

// wait waits for a ring's watermark, the flush interval, a Stop or Close,
// or the exit of the -p process.
func (t *Tracer) wait() error {
	if t.evbuf == nil {
		t.evbuf = make([]unix.EpollEvent, 8)
	}
	n, err := unix.EpollWait(t.epfd, t.evbuf, t.flush)
	if errors.Is(err, unix.EINTR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("epoll: %w", err)
	}
	for _, e := range t.evbuf[:n] {
		if int(e.Fd) == t.wake {
			var b [8]byte
			unix.Read(t.wake, b[:])
		}
	}
	return nil
}

// onlineCPUs returns the CPUs perf events can be opened on.
func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	cpus, err := parseCPUList(string(b))
	if err != nil {
		return nil, fmt.Errorf("/sys/devices/system/cpu/online: %w", err)
	}
	return cpus, nil
}

// threads returns the threads of process pid.
func threads(pid int) ([]int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// monotonicEpoch returns the Unix time in nanoseconds at which
// CLOCK_MONOTONIC read zero.
func monotonicEpoch() int64 {
	var rt, mt unix.Timespec
	unix.ClockGettime(unix.CLOCK_REALTIME, &rt)
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &mt)
	return rt.Nano() - mt.Nano()
}
