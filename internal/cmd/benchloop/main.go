// Command benchloop is the Go counterpart of scripts/bench-loop.c for
// scripts/bench-site: it fires the 3-argument probe bench:hit(i, 2i, 3i),
// defined at run time by package sdt, N times in a tight loop and prints
// the iterations, the nanoseconds they took, the nanoseconds per
// iteration and the nanoseconds of CPU time its thread spent per
// iteration, as bench-loop does. It stops itself (SIGSTOP) before the
// loop, so that the benchmark can attach a tracer and wait until the
// probe site is armed before it sends SIGCONT.
//
// Usage:
//
//	benchloop [N]
//
// N is 1000000 by default.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/sdtkit/sdtkit/pkg/sdt"
	"golang.org/x/sys/unix"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchloop:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	n := 1000000
	if len(args) > 0 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil {
			return fmt.Errorf("N: %w", err)
		}
	}
	p, err := sdt.NewProvider("bench")
	if err != nil {
		return err
	}
	hit, err := p.AddProbe("hit", sdt.Int64, sdt.Int64, sdt.Int64)
	if err != nil {
		return err
	}
	if err := p.Load(); err != nil {
		return err
	}
	defer p.Close()
	if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
		return err
	}
	// The loop's CPU time is its thread's.
	runtime.LockOSThread()
	var c0, c1 unix.Timespec
	t0 := time.Now()
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &c0)
	for i := range n {
		if hit.Enabled() {
			if err := hit.Fire(i, 2*i, 3*i); err != nil {
				return err
			}
		}
	}
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &c1)
	ns := float64(time.Since(t0).Nanoseconds())
	cpu := float64(c1.Nano() - c0.Nano())
	fmt.Printf("%d %.1f %.3f %.3f\n", n, ns, ns/float64(n), cpu/float64(n))
	return nil
}
