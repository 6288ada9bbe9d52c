package bpf

import (
	"fmt"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// initPIDNSIno is the inode of the initial PID namespace
// (PROC_PID_INIT_INO), the same on every system.
const initPIDNSIno = 0xeffffffc

// A pidNS names a PID namespace as bpf_get_ns_current_pid_tgid takes
// it: the device of nsfs in the kernel's encoding of dev_t, and the
// inode. The zero pidNS is the initial namespace.
type pidNS struct {
	dev, ino uint64
}

// pidNSOf returns the namespace whose nsfs file st describes.
func pidNSOf(st *unix.Stat_t) pidNS {
	if st.Ino == initPIDNSIno {
		return pidNS{}
	}
	// The kernel compares with its own dev_t (MKDEV: major << 20 |
	// minor), which is not the encoding stat gives user space.
	dev := uint64(unix.Major(uint64(st.Dev)))<<20 | uint64(unix.Minor(uint64(st.Dev)))
	return pidNS{dev: dev, ino: st.Ino}
}

// selfPIDNS returns the PID namespace of this process. Without /proc
// there is nothing to name it by: the programs then report the kernel's
// own ids, those of the initial namespace.
func selfPIDNS() pidNS {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil {
		return pidNS{}
	}
	return pidNSOf(&st)
}

// setPIDNS makes the program of spec report pids and tids as ns numbers
// them (see current_pid_tgid in usdt.h).
func setPIDNS(spec *ebpf.CollectionSpec, ns pidNS) error {
	for name, v := range map[string]uint64{usdtVarPidnsDev: ns.dev, usdtVarPidnsIno: ns.ino} {
		if err := spec.Variables[name].Set(v); err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
	}
	return nil
}
