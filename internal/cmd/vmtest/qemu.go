package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// guestMemory is each guest's memory: the initramfs unpacked, and
// per-CPU maps of 16 CPUs.
const guestMemory = "3G"

// qemuBinary returns the qemu of arch.
func qemuBinary(arch string) string {
	if arch == "arm64" {
		return "qemu-system-aarch64"
	}
	return "qemu-system-x86_64"
}

// qemuArgs returns the command line that boots g's kernel with initrd,
// under TCG: nested KVM is not to be had on every host, and TCG boots
// the same everywhere.
func qemuArgs(g guest, img *image, initrd string) []string {
	// All vCPUs round-robin in one thread. One thread per vCPU on fewer
	// host cores starves the guest's timers and RCU, and a vCPU waiting
	// for another whose thread the host does not run looks stuck to the
	// guest ("soft lockup - CPU#0 stuck for 22s", 2 vCPUs on 6.1 in go
	// test pkg/process); in one thread a vCPU that spins is kicked out
	// for the others, and while the host keeps qemu waiting the guest's
	// clock waits too (qemu stopped 30 s mid-check: no gap, no lockup).
	// And with one thread per vCPU, a vCPU can run a breakpoint the
	// kernel's text_poke_bp has already taken back (a static key flipped
	// as sdtattach opens or closes perf events, in __schedule): "Oops:
	// int3", seen with 2 vCPUs on 6.12.
	accel := "tcg,thread=single"
	// A soft lockup panics, and the panic reboots, which ends qemu: a
	// guest stuck in its kernel ends at once, not at the timeout.
	cmdline := "panic=-1 softlockup_panic=1 rdinit=/init loglevel=4 mitigations=off rcupdate.rcu_cpu_stall_suppress=1"
	args := []string{
		"-accel", accel,
		"-smp", strconv.Itoa(g.cpus),
		"-m", guestMemory,
		"-nodefaults", "-display", "none", "-monitor", "none",
		"-serial", "stdio", "-no-reboot",
		"-kernel", img.vmlinuz, "-initrd", initrd,
	}
	switch g.arch {
	case "arm64":
		// GICv2 takes at most 8 CPUs.
		args = append(args, "-M", "virt,gic-version=3", "-cpu", "cortex-a72")
		cmdline += " console=ttyAMA0"
	default:
		args = append(args, "-M", "pc", "-cpu", "max")
		cmdline += " console=ttyS0"
	}
	if shareRoot(g) {
		args = append(args, "-virtfs",
			"local,path=/,mount_tag="+hostRootTag+",security_model=none,readonly=on")
	}
	return append(args, "-append", cmdline)
}

// A boot is the outcome of one guest's run.
type boot struct {
	results []vmcheck.Result
	done    bool // the guest printed vmtest-done
	err     error
	seconds float64
}

// runGuest boots g, writes its console to logPath (and to echo when not
// nil) and collects its results, killing it after timeout.
func runGuest(g guest, img *image, initrd, logPath string, timeout time.Duration, echo io.Writer) boot {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := append([]string{"-n", "10", qemuBinary(g.arch)}, qemuArgs(g, img, initrd)...)
	cmd := exec.CommandContext(ctx, "nice", args...)
	log, err := os.Create(logPath)
	if err != nil {
		return boot{err: err}
	}
	defer log.Close()
	fmt.Fprintf(log, "# nice %v\n", args)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return boot{err: err}
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return boot{err: fmt.Errorf("%s: %w", qemuBinary(g.arch), err)}
	}
	var b boot
	var oops string // the kernel's last BUG or panic line
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(log, line)
		if echo != nil {
			fmt.Fprintln(echo, line)
		}
		if r, ok, err := vmcheck.ParseLine(line); ok {
			if err != nil {
				r = vmcheck.Result{Check: "console", Status: vmcheck.Fail, Reason: err.Error()}
			}
			b.results = append(b.results, r)
		} else if strings.HasSuffix(line, vmcheck.DoneLine) {
			b.done = true
		} else if strings.Contains(line, "BUG:") || strings.Contains(line, "Kernel panic") {
			oops = strings.TrimSpace(line)
		}
	}
	err = cmd.Wait()
	b.seconds = time.Since(start).Seconds()
	if oops != "" {
		logPath = oops + "; console: " + logPath
	}
	switch {
	case ctx.Err() != nil:
		b.err = fmt.Errorf("timed out after %v (%s)", timeout, logPath)
	case !b.done && err != nil:
		b.err = fmt.Errorf("qemu: %w (%s)", err, logPath)
	case !b.done:
		b.err = fmt.Errorf("the guest stopped before its checks ended (%s)", logPath)
	}
	return b
}
