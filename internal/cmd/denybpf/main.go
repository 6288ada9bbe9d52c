// Denybpf runs a command under a seccomp filter that makes the bpf system
// call fail with EPERM, as the default seccomp profile of a container
// runtime does: a machine where BPF programs may not be loaded, while
// everything else, tracefs and perf events included, is as it was.
//
// Usage:
//
//	denybpf CMD [ARG...]
//
// The filter holds for CMD and every process it starts. The script tests
// use it to see sdtattach choose its tracefs backend.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: denybpf CMD [ARG...]")
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "denybpf: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	path, err := exec.LookPath(args[0])
	if err != nil {
		return err
	}
	arch, ok := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("%s: no seccomp filter for this machine", runtime.GOARCH)
	}
	// Offsets 0 and 4 of struct seccomp_data are the system call's number
	// and the audit architecture.
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 3, K: arch},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 1, K: unix.SYS_BPF},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	// A filter installed by prctl holds for the calling thread only: the
	// one that then calls execve.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_NO_NEW_PRIVS: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_SECCOMP: %w", err)
	}
	return syscall.Exec(path, args, os.Environ())
}
