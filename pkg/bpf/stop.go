package bpf

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"
)

// A Stopper stops the threads of a process that reach a function, with
// SIGSTOP sent from a uprobe there (bpf_send_signal_thread, Linux 5.5),
// and reports each: the thread cannot run another instruction of its
// own until the process gets SIGCONT, which its reader sends once done
// with it. sdtattach -c stops its command in the dynamic loader's
// _dl_debug_state so, after dlopen has mapped a library and before the
// library runs, to attach to its probes.
type Stopper struct {
	objs     stopObjects
	rd       *ringbuf.Reader
	guard    *keeper // makes, holds and lets go the uprobe
	exited   <-chan struct{}
	detached bool
}

// StopperOptions say whose threads a Stopper stops.
type StopperOptions struct {
	// PID is the process whose threads are stopped, or 0 with Cgroup.
	PID int
	// Cgroup, the id of a cgroup v2, has the threads of that cgroup
	// stopped, in every process that maps the file; CgroupDir is its
	// directory.
	Cgroup    uint64
	CgroupDir string
}

// A Stop is a thread that reached the function.
type Stop struct {
	PID, TID int // as the initial PID namespace numbers them
	// Err is why the thread could not be sent SIGSTOP, nil once sent:
	// it then runs on.
	Err error
}

// NewStopper attaches a Stopper to the function symbol of the ELF file
// path, in the process of o.PID only or, with o.Cgroup, in every process
// that maps the file, the threads of that cgroup alone being stopped (see
// Options.Cgroup).
//
// A guard process makes, holds and lets go the uprobe, as a keeper does
// those of a Program: no SIGKILL of this process can interrupt the
// kernel while it puts breakpoints in, or takes them out of, the
// processes that map the file. Should this process die while a thread
// is stopped, the guard lets the uprobe go and, once the kernel has
// released it, sends SIGCONT to the process of o.PID, or to the stopped
// processes of o.CgroupDir.
func NewStopper(path, symbol string, o *StopperOptions) (*Stopper, error) {
	pid, cgroup := o.PID, o.Cgroup
	if cgroup != 0 && o.CgroupDir == "" {
		return nil, errors.New("stopper: a cgroup without its directory")
	}
	if err := removeMemlock(); err != nil {
		return nil, fmt.Errorf("stopper: %w", err)
	}
	// A uprobe_multi link (Linux 6.6) where the kernel has them, as the
	// probe sites are attached: it needs no perf event, which a container
	// with CAP_BPF and CAP_PERFMON may not open on another process.
	multi := features.HaveBPFLinkUprobeMulti() == nil
	spec, err := loadStop()
	if err != nil {
		return nil, fmt.Errorf("stopper: %w", err)
	}
	if multi {
		spec.Programs["stop_thread"].AttachType = ebpf.AttachTraceUprobeMulti
	}
	ns := selfPIDNS()
	for name, v := range map[string]uint64{"cgroup_id": cgroup, "pidns_dev": ns.dev, "pidns_ino": ns.ino} {
		if err := spec.Variables[name].Set(v); err != nil {
			return nil, fmt.Errorf("stopper: set %s: %w", name, err)
		}
	}
	s := &Stopper{}
	if s.guard, err = startGuard(o); err != nil {
		return nil, fmt.Errorf("stopper: %w", err)
	}
	s.exited = s.guard.exited
	if err := spec.LoadAndAssign(&s.objs, nil); err != nil {
		s.Close()
		return nil, permission(fmt.Errorf("stopper: %w", err))
	}
	err = s.guard.sendProg(s.objs.StopThread)
	// The program goes with the uprobe (see waitGone).
	s.objs.StopThread.Close()
	if err == nil {
		err = s.guard.attach(&attachRequest{Path: path, Symbol: symbol, PID: pid, Multi: multi})
	}
	if err == nil {
		s.rd, err = ringbuf.NewReader(s.objs.Stops)
	}
	if err != nil {
		s.Close()
		return nil, permission(fmt.Errorf("stopper: %s in %s: %w", symbol, path, err))
	}
	return s, nil
}

// startGuard starts the guard of the Stopper's processes.
func startGuard(o *StopperOptions) (*keeper, error) {
	if o.Cgroup != 0 {
		return startKeeper(o.CgroupDir, -1)
	}
	fd, err := unix.PidfdOpen(o.PID, 0)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", o.PID, err)
	}
	defer unix.Close(fd)
	return startKeeper("-", fd)
}

// Read waits for the next thread to stop. After Detach it returns the
// stops made until then, then ErrClosed; after Close ErrClosed.
func (s *Stopper) Read() (Stop, error) {
	rec, err := s.rd.Read()
	if errors.Is(err, ringbuf.ErrClosed) || errors.Is(err, ringbuf.ErrFlushed) {
		return Stop{}, ErrClosed
	}
	if err != nil {
		return Stop{}, err
	}
	if len(rec.RawSample) < 16 {
		return Stop{}, fmt.Errorf("stopper: record of %d bytes", len(rec.RawSample))
	}
	raw := rec.RawSample
	st := Stop{PID: int(binary.NativeEndian.Uint32(raw)), TID: int(binary.NativeEndian.Uint32(raw[4:]))}
	if e := int32(binary.NativeEndian.Uint32(raw[8:])); e != 0 {
		st.Err = fmt.Errorf("bpf_send_signal_thread: %w", unix.Errno(-e))
	}
	return st, nil
}

// Detach detaches the uprobe, once no thread is in its program: no
// thread stops from then on, and Read returns the stops made before, so
// that none is left without its SIGCONT.
func (s *Stopper) Detach() error {
	var err error
	if s.guard != nil {
		err = s.guard.detachGuard()
		s.detached = true
	}
	// Read returns what is in the ring, then ErrFlushed.
	if ferr := s.rd.Flush(); err == nil {
		err = ferr
	}
	return err
}

// GuardExited returns a channel that is closed when the guard process
// has exited: on Abandon or Close, or before, killed, leaving the
// processes stopped unguarded should this process die. The uprobe goes
// with the guard.
func (s *Stopper) GuardExited() <-chan struct{} { return s.exited }

// Abandon lets the uprobe go without waiting until it is gone, which
// takes the kernel tens of milliseconds: for a Stopper whose processes
// have all exited, which no further stop can concern. Read then returns
// ErrClosed; Close is still to be called.
func (s *Stopper) Abandon() {
	if s.guard != nil {
		s.guard.abandon()
		s.guard = nil
	}
	s.rd.Flush()
}

// Close detaches the uprobe; a Read in progress returns ErrClosed. After
// Detach, it tells the guard that every stop Read returned was let run
// on: should this process die between the two, the guard lets the
// processes it guards run on.
func (s *Stopper) Close() error {
	var errs []error
	if s.guard != nil {
		if s.detached {
			errs = append(errs, s.guard.continued())
		} else {
			errs = append(errs, s.guard.close())
		}
		s.guard = nil
	}
	if s.rd != nil {
		errs = append(errs, s.rd.Close())
	}
	errs = append(errs, s.objs.Close())
	return errors.Join(errs...)
}
