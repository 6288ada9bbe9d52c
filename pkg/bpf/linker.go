package bpf

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"
	"golang.org/x/sys/unix"
)

// A Linker attaches a BPF program that this package did not load, one of
// the caller's own, to probe sites, as Program.Attach attaches its own:
// by a keeper process (see Attach in the package documentation), so that
// no SIGKILL of the caller leaves a traced process patched, with each
// site's semaphore raised through ref_ctr_offset, and each site given a
// BPF cookie of the caller's choosing.
//
// A program loaded for uprobe_multi links (section uprobe.multi) is
// attached with one link per file where the kernel has them (Linux 6.6);
// any other uprobe program, such as one of section usdt or uprobe, with
// one perf-event uprobe per site.
type Linker struct {
	mu    sync.Mutex
	links linker // nil once closed
	pid   int
	multi bool // try uprobe_multi links first
}

// LinkerOptions configure a Linker. The zero value attaches in every
// process, through a keeper.
type LinkerOptions struct {
	// PID limits the uprobes to one process, as Options.PID does.
	PID int
	// PerSite attaches one perf-event uprobe per site, even where the
	// program could take a uprobe_multi link.
	PerSite bool
	// InProcess makes the links in this process, as Options.InProcess
	// does.
	InProcess bool
}

// A LinkSite is a probe site as a Linker attaches it.
type LinkSite struct {
	// Offset and RefCtrOffset are as in Site.
	Offset, RefCtrOffset uint64
}

// NewLinker returns a Linker of prog, which stays the caller's: the
// Linker holds a descriptor of its own, and the caller may close prog
// once it is made. opts may be nil.
func NewLinker(prog *ebpf.Program, opts *LinkerOptions) (*Linker, error) {
	var o LinkerOptions
	if opts != nil {
		o = *opts
	}
	if o.PID < 0 {
		return nil, fmt.Errorf("bad pid %d", o.PID)
	}
	l := &Linker{pid: o.PID}
	if !o.PerSite {
		switch err := features.HaveBPFLinkUprobeMulti(); {
		case err == nil:
			l.multi = true
		case !errors.Is(err, ErrNotSupported):
			return nil, permission(fmt.Errorf("probe uprobe_multi: %w", err))
		}
	}
	own, err := prog.Clone()
	if err != nil {
		return nil, fmt.Errorf("linker: %w", err)
	}
	if o.InProcess {
		l.links = &localLinks{prog: own}
		return l, nil
	}
	defer own.Close() // the keeper has a descriptor of its own
	kp, err := startKeeper("", -1)
	if err != nil {
		return nil, err
	}
	if err := kp.sendProg(own); err != nil {
		return nil, err
	}
	l.links = kp
	return l, nil
}

// Attach attaches the program to sites of the ELF file path, site i with
// the BPF cookie first+i. On error none of them is attached.
func (l *Linker) Attach(path string, first int, sites []LinkSite) error {
	if len(sites) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.links == nil {
		return fmt.Errorf("attach %s: %w", path, ErrClosed)
	}
	req := &attachRequest{
		Path:          path,
		PID:           l.pid,
		Multi:         l.multi,
		First:         first,
		Offsets:       make([]uint64, len(sites)),
		RefCtrOffsets: make([]uint64, len(sites)),
	}
	for i, s := range sites {
		req.Offsets[i], req.RefCtrOffsets[i] = s.Offset, s.RefCtrOffset
	}
	err := l.links.attach(req)
	if err != nil && req.Multi && errors.Is(err, unix.EINVAL) {
		// The kernel takes a uprobe_multi link only for a program
		// loaded for one, which the program may not be: from then on,
		// one perf-event uprobe per site. A link refused so was never
		// registered.
		l.multi, req.Multi = false, false
		err = l.links.attach(req)
	}
	if err != nil {
		return permission(fmt.Errorf("attach %s: %w", path, err))
	}
	return nil
}

// Close detaches the program from every site, which lowers the
// semaphores it raised, and returns once every site is restored. The
// program itself is the caller's to close.
func (l *Linker) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.links == nil {
		return nil
	}
	err := l.links.close()
	if ll, ok := l.links.(*localLinks); ok {
		err = errors.Join(err, ll.prog.Close())
	}
	l.links = nil
	return err
}
