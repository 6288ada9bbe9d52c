package bpf

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// buildFixture compiles testdata/fx.c as a PIE into the test's directory.
func buildFixture(t *testing.T) string {
	t.Helper()
	return buildC(t, "fx", "-fPIE", "-pie")
}

// buildC compiles testdata/NAME.c with gcc -O2 and flags into the test's
// directory.
func buildC(t *testing.T, name string, flags ...string) string {
	t.Helper()
	requireAMD64(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	if _, err := os.Stat("/usr/include/sys/sdt.h"); err != nil {
		if _, err := os.Stat("/usr/include/x86_64-linux-gnu/sys/sdt.h"); err != nil {
			t.Skip("requires sys/sdt.h (systemtap-sdt-dev)")
		}
	}
	exe := filepath.Join(t.TempDir(), name)
	args := append([]string{"-O2", "-o", exe, "testdata/" + name + ".c"}, flags...)
	out, err := exec.Command("gcc", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return exe
}

// readELF returns n bytes of path at link-time address addr.
func readELF(t *testing.T, path string, addr uint64, n int) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Vaddr <= addr && addr+uint64(n) <= p.Vaddr+p.Filesz {
			b := make([]byte, n)
			if _, err := p.ReadAt(b, int64(addr-p.Vaddr)); err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("%s: no segment holds %#x", path, addr)
	return nil
}

// TestPIE checks every operand form on a position-independent
// executable, whose symbol-relative arguments need the load bias.
func TestPIE(t *testing.T) {
	requireRoot(t)
	exe := buildFixture(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ss, f := sites(t, exe, func(p *stapsdt.Site) ArgMask {
				if p.Name == "all" && !m.noStrings {
					return 1<<9 | 1<<10
				}
				return 0
			})
			var evs []Event
			if p := load(t, m.options(Options{StringSize: 16})); !p.ByAddress() {
				if err := p.Attach(exe, ss); err != nil {
					t.Fatalf("Attach: %v", err)
				}
				ch := events(t, p)
				cmd := run(t, exe, "2")
				evs = collect(t, ch, cmd.Process.Pid, 4)
			} else {
				// A PIE has no address for every process: only
				// in a process given by pid.
				if err := p.Attach(exe, ss); !errors.Is(err, ErrNoCookies) || !errors.Is(err, ErrNotSupported) {
					t.Fatalf("Attach(PIE, every process) by address = %v, want ErrNoCookies and ErrNotSupported", err)
				}
				cmd := startFixture(t, exe)
				p := load(t, m.options(Options{StringSize: 16, PID: cmd.Process.Pid}))
				if err := p.Attach(exe, ss); err != nil {
					t.Fatalf("Attach: %v", err)
				}
				// The sites are attached one after the other
				// while the fixture runs: two of each, from the
				// first of "all" whose "glob" follows.
				ch := events(t, p)
				for n := map[string]int{}; n["all"] < 2 || n["glob"] < 2; {
					ev := collect(t, ch, cmd.Process.Pid, 1)
					if len(ev) == 0 {
						break
					}
					name := f.Sites[ev[0].Probe].Name
					if name == "glob" && n["all"] == 0 || n[name] == 2 {
						continue
					}
					if name == "all" && n["glob"] < n["all"] {
						n, evs = map[string]int{}, nil // no glob after it
					}
					n[name]++
					evs = append(evs, ev[0])
				}
			}

			var all *stapsdt.Site
			for i := range f.Sites {
				if f.Sites[i].Name == "all" {
					all = &f.Sites[i]
				}
			}
			ripWord := binary.NativeEndian.Uint64(readELF(t, exe, all.PC+x86NopLen-16, 8))
			want := map[string][]Value{
				"all": {
					{Kind: Int, Bits: u64(-5), Size: 8},                               // -8@%rax
					{Kind: Uint, Bits: 10, Size: 8},                                   // 8@(%rbx)
					{Kind: Uint, Bits: 30, Size: 8},                                   // 8@16(%rbx)
					{Kind: Uint, Bits: 40, Size: 8},                                   // 8@(%rbx,%rcx,8)
					{Kind: Uint, Bits: 10, Size: 8},                                   // 8@0(,%rbx,1)
					{Kind: Uint, Bits: 0x1122334455667788, Size: 8},                   // 8@gvar(%rip)
					{Kind: Int, Bits: u64(-7), Size: 4},                               // -4@$-7
					{Kind: Uint, Bits: 0x12, Size: 1},                                 // 1@%dh
					{Kind: Int, Bits: u64(-16), Size: 1},                              // -1@%dl
					{Kind: String, Size: 8, Str: "hello, usdt"},                       // 8@%rsi
					{Kind: String, Size: 8, Str: "0123456789abcdef", Truncated: true}, // 8@%rdi
					{Kind: Uint, Bits: ripWord, Size: 8},                              // 8@-16(%rip)
				},
				"glob": {{Kind: Int, Bits: u64(-42), Size: 8}}, // -8@g2(%rip)
			}
			n := map[string]int{}
			for _, ev := range evs {
				name := f.Sites[ev.Probe].Name
				n[name]++
				w := want[name]
				if len(ev.Args) != len(w) {
					t.Fatalf("%s: %d args, want %d", name, len(ev.Args), len(w))
				}
				for i, a := range ev.Args {
					if m.noStrings && w[i].Kind == String {
						// The address only: no string is read.
						if a.Kind != Uint || a.Bits == 0 || a.Size != 8 {
							t.Errorf("%s arg %d = %+v, want a Uint address", name, i+1, a)
						}
						continue
					}
					if a.Kind == String {
						if a.Bits == 0 {
							t.Errorf("%s arg %d: string at address 0", name, i+1)
						}
						a.Bits = 0
					}
					if a != w[i] {
						t.Errorf("%s arg %d (%s) = %+v, want %+v", name, i+1, f.Sites[ev.Probe].Args, a, w[i])
					}
				}
			}
			if n["all"] != 2 || n["glob"] != 2 {
				t.Errorf("events per probe = %v, want 2 each", n)
			}
		})
	}
}

func u64(v int64) uint64 { return uint64(v) }

// startFixture starts exe firing its probes every 10 ms until the test
// ends, and returns once it runs exe.
func startFixture(t *testing.T, exe string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(exe, "0", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	waitExec(t, cmd.Process.Pid, exe)
	return cmd
}

// TestBias checks what the load bias is computed from: the instruction
// pointer a uprobe program sees is the address of the probe itself, not
// the address after the breakpoint. A constant argument of link-time
// address 0 yields the bias, and one byte read at the site's link-time
// address yields the breakpoint the kernel placed there.
func TestBias(t *testing.T) {
	requireRoot(t)
	exe := buildFixture(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			for _, tt := range []struct {
				path  string
				probe string
				pie   bool
			}{
				{demo, "tick", false},
				{exe, "all", true},
			} {
				// Started first: a PIE has an address, which the
				// program may tell its site by, in a process only.
				cmd := exec.Command(tt.path, "0", "10")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				waitExec(t, cmd.Process.Pid, tt.path)
				o := m.options(Options{})
				if tt.pie && (m.noCookies || kernelBefore(5, 15)) {
					o.PID = cmd.Process.Pid
				}
				p := load(t, o)
				f, err := stapsdt.Open(tt.path)
				if err != nil {
					t.Fatal(err)
				}
				var pr stapsdt.Site
				for _, pr = range f.Sites {
					if pr.Name == tt.probe {
						break
					}
				}
				var s Spec
				s.raw.Pc, s.raw.Nargs = pr.PC, 2
				s.raw.Args[0] = usdtArg{Kind: argConst, Flags: flagBias, Base: -1, Index: -1, Size: 8}
				s.raw.Args[1] = usdtArg{Kind: argMem, Flags: flagBias, Val: pr.PC, Base: -1, Index: -1, Size: 1}
				if err := p.Attach(tt.path, []Site{{Offset: pr.PCOffset, Spec: s}}); err != nil {
					t.Fatal(err)
				}
				evs := collect(t, events(t, p), cmd.Process.Pid, 1)
				base := mapBase(t, cmd.Process.Pid, tt.path)
				cmd.Process.Kill()
				cmd.Wait()
				p.Close()
				if len(evs) == 0 {
					continue
				}
				want := uint64(0)
				if tt.pie {
					want = base
				}
				if got := evs[0].Args[0].Bits; got != want {
					t.Errorf("%s: bias = %#x, want %#x (mapped at %#x)", tt.path, got, want, base)
				}
				if got := evs[0].Args[1].Bits; got != 0xcc {
					t.Errorf("%s: byte at probe = %#x, want 0xcc (int3)", tt.path, got)
				}
			}
		})
	}
}

// mapBase returns the address at which file offset 0 of path is mapped
// in process pid.
func mapBase(t *testing.T, pid int, path string) uint64 {
	t.Helper()
	abs, _ := filepath.Abs(path)
	abs, _ = filepath.EvalSymlinks(abs)
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fs := strings.Fields(sc.Text())
		if len(fs) == 6 && fs[5] == abs && fs[2] == "00000000" {
			start, _, _ := strings.Cut(fs[0], "-")
			v, err := strconv.ParseUint(start, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("%s not mapped in process %d", abs, pid)
	return 0
}

// TestPID checks that Options.PID limits events to one process.
func TestPID(t *testing.T) {
	requireRoot(t)
	exe := buildFixture(t)
	var cmds [2]*exec.Cmd
	for i := range cmds {
		cmds[i] = exec.Command(exe, "0", "5")
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
		defer cmds[i].Wait()
		defer cmds[i].Process.Kill()
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			p := load(t, m.options(Options{PID: cmds[0].Process.Pid}))
			ss, _ := sites(t, exe, nil)
			if err := p.Attach(exe, ss); err != nil {
				t.Fatal(err)
			}
			ch := events(t, p)
			n := map[uint32]int{}
			for end := time.After(300 * time.Millisecond); ; {
				select {
				case ev := <-ch:
					n[ev.PID]++
					continue
				case <-end:
				}
				break
			}
			if n[uint32(cmds[0].Process.Pid)] == 0 || n[uint32(cmds[1].Process.Pid)] != 0 {
				t.Errorf("events by pid = %v, want only from %d", n, cmds[0].Process.Pid)
			}
		})
	}
}
