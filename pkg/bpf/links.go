package bpf

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// A linker creates and closes the uprobe links of a Program: in this
// process (localLinks) or in the keeper process (keeper).
type linker interface {
	// attach attaches prog to the sites of one file; on error none of
	// them is attached.
	attach(req *attachRequest) error
	// detach closes every link attached so far.
	detach() error
	// close detaches and releases the linker.
	close() error
}

// An attachRequest is one Program.Attach: what the links need to know,
// and nothing of the argument specs.
type attachRequest struct {
	Path  string
	PID   int
	Multi bool
	First int // the cookie of the first site
	// High, when not nil, is the high half of each site's cookie, in
	// step with Offsets, the low half being First+i: the probe id of
	// the site, which agg.bpf.c counts a hit by without the site's
	// spec (see its handle).
	High []uint32
	// NoCookies attaches without cookies, which the kernel lacks: the
	// program tells the sites apart by their address.
	NoCookies     bool
	Offsets       []uint64
	RefCtrOffsets []uint64
	// Symbol, when not "", is the one place attached, a function of
	// Path, instead of Offsets.
	Symbol string
}

// cookie returns the BPF cookie of the site at Offsets[i].
func (r *attachRequest) cookie(i int) uint64 {
	c := uint64(uint32(r.First + i))
	if i < len(r.High) {
		c |= uint64(r.High[i]) << 32
	}
	return c
}

// localLinks holds the links of a Program in this process.
type localLinks struct {
	prog  *ebpf.Program
	links []link.Link // held by their descriptors
	multi []bool      // in step with links: a uprobe_multi link
}

func (l *localLinks) attach(req *attachRequest) error {
	if l.prog == nil {
		return fmt.Errorf("attach %s: %w", req.Path, ErrClosed)
	}
	links, err := attachLinks(l.prog, req)
	if err != nil {
		return err
	}
	for _, k := range links {
		l.links = append(l.links, k)
		l.multi = append(l.multi, req.Multi)
	}
	return nil
}

// detach closes every link.
func (l *localLinks) detach() error {
	var errs []error
	for _, k := range l.links {
		errs = append(errs, k.Close())
	}
	l.links, l.multi = nil, nil
	return errors.Join(errs...)
}

// unpin lets every link go through pins, where it can (see pinDir): the
// kernel releases those in the background, whatever happens to this
// process, and closes the others, perf-event links, before it returns
// (such a link, released from a pin, lets its perf event go through yet
// another deferred step of the kernel, which nothing shows the end of).
func (l *localLinks) unpin(pins *pinDir) error {
	var errs []error
	for i, k := range l.links {
		if l.multi[i] && pins.hold(k) == nil {
			continue
		}
		errs = append(errs, k.Close())
	}
	l.links, l.multi = nil, nil
	return errors.Join(append(errs, pins.release())...)
}

func (l *localLinks) close() error { return l.detach() }

// attachLinks attaches prog to the sites of req: one uprobe_multi link,
// or one perf-event uprobe per site. On error it closes the links it
// made.
func attachLinks(prog *ebpf.Program, req *attachRequest) ([]link.Link, error) {
	ex, err := link.OpenExecutable(req.Path)
	if err != nil {
		return nil, err
	}
	if req.Symbol != "" {
		var l link.Link
		if req.Multi {
			l, err = ex.UprobeMulti([]string{req.Symbol}, prog, &link.UprobeMultiOptions{PID: uint32(req.PID)})
		} else {
			l, err = ex.Uprobe(req.Symbol, prog, &link.UprobeOptions{PID: req.PID})
		}
		if err != nil {
			return nil, err
		}
		return []link.Link{l}, nil
	}
	if req.Multi {
		var cookies []uint64
		if !req.NoCookies {
			cookies = make([]uint64, len(req.Offsets))
			for i := range cookies {
				cookies[i] = req.cookie(i)
			}
		}
		l, err := ex.UprobeMulti(nil, prog, &link.UprobeMultiOptions{
			PID:           uint32(req.PID),
			Addresses:     req.Offsets,
			RefCtrOffsets: req.RefCtrOffsets,
			Cookies:       cookies,
		})
		if err != nil {
			return nil, err
		}
		return []link.Link{l}, nil
	}
	links := make([]link.Link, 0, len(req.Offsets))
	for i, off := range req.Offsets {
		var cookie uint64
		if !req.NoCookies {
			cookie = req.cookie(i)
		}
		l, err := ex.Uprobe("", prog, &link.UprobeOptions{
			Address:      off,
			RefCtrOffset: req.RefCtrOffsets[i],
			Cookie:       cookie,
			PID:          req.PID,
		})
		if err != nil {
			for _, l := range links {
				l.Close()
			}
			return nil, fmt.Errorf("offset %#x: %w", off, err)
		}
		links = append(links, l)
	}
	return links, nil
}
