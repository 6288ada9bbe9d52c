package scripttest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/kernelversion"
	"github.com/sdtkit/sdtkit/internal/testenv"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
	"golang.org/x/sys/unix"
	"rsc.io/script"
)

// SDTHeader reports whether gcc compiles a file that includes <sys/sdt.h>
// (package systemtap-sdt-dev on Debian).
func SDTHeader() script.Cond {
	return script.OnceCondition("gcc can compile #include <sys/sdt.h>", func() (bool, error) {
		cmd := exec.Command("gcc", "-fsyntax-only", "-x", "c", "-")
		cmd.Stdin = strings.NewReader("#include <sys/sdt.h>\nvoid f(void) { STAP_PROBE(p, q); }\n")
		return cmd.Run() == nil, nil
	})
}

// M32 reports whether gcc can build and link 32-bit x86 programs with
// probes, which needs the multilib runtime (package gcc-12-multilib on
// Debian). sys/sdt.h is the same for both; Debian installs it only in the
// x86_64 multiarch directory, so it is searched there last, as the m32
// script does.
func M32() script.Cond {
	return script.OnceCondition("gcc -m32 -idirafter /usr/include/x86_64-linux-gnu builds and links a program with <sys/sdt.h>", func() (bool, error) {
		dir, err := os.MkdirTemp("", "sdtkit-m32-")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("gcc", "-m32", "-idirafter", "/usr/include/x86_64-linux-gnu", "-x", "c", "-o", filepath.Join(dir, "a.out"), "-")
		cmd.Stdin = strings.NewReader("#include <sys/sdt.h>\nint main(void) { STAP_PROBE(p, q); return 0; }\n")
		return cmd.Run() == nil, nil
	})
}

// Run386 reports whether the kernel runs 32-bit x86 programs (IA32
// emulation, which a kernel may have built in and still refuse, as with
// ia32_emulation=0 or a hypervisor's guest kernel): it runs a tiny
// static i386 program that exits with status 0.
func Run386() script.Cond {
	return script.OnceCondition("the kernel runs 32-bit x86 programs (IA32 emulation)", func() (bool, error) {
		if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
			return false, nil
		}
		dir, err := os.MkdirTemp("", "sdtkit-386-")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(dir)
		exe := filepath.Join(dir, "exit0")
		if err := os.WriteFile(exe, tiny386(), 0o755); err != nil {
			return false, err
		}
		return exec.Command(exe).Run() == nil, nil
	})
}

// tiny386 returns a static ELF32 i386 executable of one segment whose
// code is exit(0): mov $1,%eax; xor %ebx,%ebx; int $0x80.
func tiny386() []byte {
	const base, ehsize, phsize = 0x08048000, 52, 32
	code := []byte{0xb8, 1, 0, 0, 0, 0x31, 0xdb, 0xcd, 0x80}
	b := make([]byte, ehsize+phsize, ehsize+phsize+len(code))
	le := binary.LittleEndian
	copy(b, "\x7fELF\x01\x01\x01") // ELFCLASS32, little-endian, version 1
	le.PutUint16(b[16:], 2)        // ET_EXEC
	le.PutUint16(b[18:], 3)        // EM_386
	le.PutUint32(b[20:], 1)        // EV_CURRENT
	le.PutUint32(b[24:], base+ehsize+phsize)
	le.PutUint32(b[28:], ehsize) // e_phoff
	le.PutUint16(b[40:], ehsize)
	le.PutUint16(b[42:], phsize)
	le.PutUint16(b[44:], 1) // e_phnum
	p := b[ehsize:]
	le.PutUint32(p[0:], 1) // PT_LOAD
	le.PutUint32(p[8:], base)
	le.PutUint32(p[12:], base)
	le.PutUint32(p[16:], uint32(ehsize+phsize+len(code)))
	le.PutUint32(p[20:], uint32(ehsize+phsize+len(code)))
	le.PutUint32(p[24:], 5) // PF_R|PF_X
	le.PutUint32(p[28:], 0x1000)
	return append(b, code...)
}

// Tracefs reports whether uprobe events can be created through tracefs,
// mounting it at /sys/kernel/tracing when it is not mounted yet.
func Tracefs() script.Cond {
	return script.OnceCondition("running as root and tracefs (with uprobe_events) is mounted or mountable", func() (bool, error) {
		if os.Geteuid() != 0 {
			return false, nil
		}
		_, err := tracefs()
		return err == nil, nil
	})
}

// Died reports whether the kernel has oopsed since boot
// (testenv.KernelDied), after which making uprobes may hang: scripts
// that make them skip with [died].
func Died() script.Cond {
	return script.Condition("the kernel has oopsed since boot (taint flag D): making uprobes may hang", func(*script.State) (bool, error) {
		return testenv.KernelDied() != "", nil
	})
}

// Nop5Optimized reports whether the kernel turns a uprobe on x86-64's
// 5-byte nop into a call through its trampoline once hit, instead of
// trapping: whether it has the uprobe system call (Linux 6.18), which
// fails with ENXIO when called from anywhere but that trampoline.
func Nop5Optimized() script.Cond {
	return script.OnceCondition("x86-64 and the kernel optimizes uprobes on the 5-byte nop (the uprobe system call, Linux 6.18)", func() (bool, error) {
		if runtime.GOARCH != "amd64" {
			return false, nil
		}
		const sysUprobe = 336
		_, _, errno := unix.RawSyscall(sysUprobe, 0, 0, 0)
		return errno == unix.ENXIO, nil
	})
}

// Unsafe reports whether SDTKIT_TEST_UNSAFE is set: scripts then also
// run their checks that can crash a kernel with a known bug, which a
// shared machine or CI should not risk.
func Unsafe() script.Cond {
	return script.BoolCondition("SDTKIT_TEST_UNSAFE is set: run the checks that can crash a kernel with a known bug", os.Getenv("SDTKIT_TEST_UNSAFE") != "")
}

// Kernel reports whether the running kernel is at least the version given
// as suffix, such as [kernel:4.20].
func Kernel() script.Cond {
	return script.PrefixCondition("running kernel version >= <suffix> (MAJOR.MINOR)", func(_ *script.State, suffix string) (bool, error) {
		want, err := parseVersion(suffix)
		if err != nil {
			return false, err
		}
		major, minor, err := kernelversion.Running()
		if err != nil {
			return false, err
		}
		return major > want[0] || major == want[0] && minor >= want[1], nil
	})
}

// parseVersion reads MAJOR.MINOR from the start of a kernel release such
// as "6.18.4-generic".
func parseVersion(s string) ([2]int, error) {
	var v [2]int
	major, rest, ok := strings.Cut(s, ".")
	if !ok {
		return v, fmt.Errorf("version %q: want MAJOR.MINOR", s)
	}
	minor := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = rest[:i]
	}
	var err error
	if v[0], err = strconv.Atoi(major); err != nil {
		return v, fmt.Errorf("version %q: %w", s, err)
	}
	if v[1], err = strconv.Atoi(minor); err != nil {
		return v, fmt.Errorf("version %q: %w", s, err)
	}
	return v, nil
}

// Probe reports whether the program named by the suffix PROG:PROVIDER:NAME,
// a path or a name looked up in the script's PATH, has that USDT probe,
// such as [probe:/usr/bin/python3:python:function__entry]: runtimes are
// built with their probes or without, as their distribution chose.
func Probe() script.Cond {
	return script.PrefixCondition("PROG (a path, or a name in PATH) has the USDT probe PROVIDER:NAME (suffix PROG:PROVIDER:NAME)", func(s *script.State, suffix string) (bool, error) {
		prog, probe, ok := strings.Cut(suffix, ":")
		provider, name, ok2 := strings.Cut(probe, ":")
		if !ok || !ok2 || prog == "" || provider == "" || name == "" {
			return false, fmt.Errorf("%q: want PROG:PROVIDER:NAME", suffix)
		}
		path := prog
		if !strings.Contains(prog, "/") {
			var err error
			if path, err = lookPath(s, prog); err != nil {
				return false, nil
			}
		}
		// A file that is no ELF, or whose notes are damaged, is one
		// without the probe, as far as a script's skip is concerned.
		f, _ := stapsdt.Open(path)
		if f == nil {
			return false, nil
		}
		for _, p := range f.Sites {
			if p.Provider == provider && p.Name == name {
				return true, nil
			}
		}
		return false, nil
	})
}

// DebugFile reports whether the file named by the suffix has a separate
// debug file under /usr/lib/debug, found by build-id or .gnu_debuglink
// as package symbolize finds it, such as
// [debugfile:/lib/x86_64-linux-gnu/libc.so.6]: distributions ship
// those in packages of their own (Debian's libc6-dbg).
func DebugFile() script.Cond {
	return script.PrefixCondition("the file named by the suffix has a separate debug file under /usr/lib/debug (build-id or .gnu_debuglink)", func(_ *script.State, path string) (bool, error) {
		obj, err := symbolize.Open(path, nil)
		if err != nil {
			return false, nil
		}
		return obj.DebugPath != "", nil
	})
}

// User reports whether the user, and the group if given, named by the
// suffix USER[:GROUP] exist, such as [user:nobody:nogroup]: servers that
// refuse to run as root, as PostgreSQL does, are run as such a user.
func User() script.Cond {
	return script.PrefixCondition("the user USER and the group GROUP exist (suffix USER[:GROUP])", func(_ *script.State, suffix string) (bool, error) {
		name, group, hasGroup := strings.Cut(suffix, ":")
		if name == "" || hasGroup && group == "" {
			return false, fmt.Errorf("%q: want USER[:GROUP]", suffix)
		}
		if _, err := user.Lookup(name); err != nil {
			if errors.As(err, new(user.UnknownUserError)) {
				return false, nil
			}
			return false, err
		}
		if hasGroup {
			if _, err := user.LookupGroup(group); err != nil {
				if errors.As(err, new(user.UnknownGroupError)) {
					return false, nil
				}
				return false, err
			}
		}
		return true, nil
	})
}
