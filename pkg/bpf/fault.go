package bpf

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"
)

// Reading memory that is not resident.
//
// bpf_probe_read_user cannot fault: a string on a page of .rodata or of
// a mapped file that the traced thread has not read yet reads as an
// error. A sleepable program may call bpf_copy_from_user, which faults
// the page in as the thread would; the programs built with USDT_FAULTS
// (usdtfault, usdtnumfault) do so only after bpf_probe_read_user failed,
// so that a hit whose memory is resident costs what it did. A uprobe
// program can be sleepable from Linux 6.0, one for uprobe_multi links
// from 6.6; on older kernels, or where loading it fails, the program
// that does not fault is loaded and such an argument is not read.

// haveFaults reports whether the kernel loads a sleepable uprobe program
// that calls bpf_copy_from_user, for uprobe_multi links or for
// perf-event uprobes: nil if so, an error matching ErrNotSupported if
// not, another error if the probe itself failed.
func haveFaults(multi bool) error {
	i := 0
	if multi {
		i = 1
	}
	faultProbes.once[i].Do(func() { faultProbes.err[i] = probeFaults(multi) })
	return faultProbes.err[i]
}

// faultProbes holds the results of probeFaults for perf-event uprobes
// [0] and uprobe_multi links [1], which do not change while the process
// runs.
var faultProbes struct {
	once [2]sync.Once
	err  [2]error
}

func probeFaults(multi bool) error {
	at := ebpf.AttachNone
	if multi {
		at = ebpf.AttachTraceUprobeMulti
	}
	prog, err := ebpf.NewProgramWithOptions(&ebpf.ProgramSpec{
		Type:       ebpf.Kprobe,
		AttachType: at,
		Flags:      unix.BPF_F_SLEEPABLE,
		License:    "Dual MIT/GPL",
		Instructions: asm.Instructions{
			// bpf_copy_from_user(fp-8, 8, NULL)
			asm.Mov.Reg(asm.R1, asm.RFP),
			asm.Add.Imm(asm.R1, -8),
			asm.Mov.Imm(asm.R2, 8),
			asm.Mov.Imm(asm.R3, 0),
			asm.FnCopyFromUser.Call(),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		},
	}, ebpf.ProgramOptions{LogDisabled: true})
	switch {
	case err == nil:
		return prog.Close()
	case errors.Is(err, unix.EPERM):
		return permission(fmt.Errorf("probe sleepable uprobes: %w", err))
	default:
		// The kernel refuses the flag, the program type or the
		// helper, with EINVAL or EACCES.
		return fmt.Errorf("kernel without sleepable uprobes (Linux 6.0; uprobe_multi 6.6): %w: %w", ErrNotSupported, err)
	}
}
