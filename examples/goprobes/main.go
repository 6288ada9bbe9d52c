// Command goprobes is a Go program with USDT probes defined at run time
// by package sdt, to trace with sdtattach, bpftrace or any USDT tracer.
//
// Usage:
//
//	goprobes [-n N] [-i INTERVAL] [-wait]
//
// It defines provider goapp with two probes and fires them N times (0:
// until killed), every INTERVAL:
//
//	goapp:request(int64 id, string path, int32 status)
//	goapp:stats(int8, uint8, int16, uint16, int32, uint32, int64, uint64, string, int64, int64, int64)
//
// On firing k (1-based) request carries id k, path "/item/K" and status
// -K; stats carries -k, k, -k*100, k*100, -k*100000, k*100000, -k<<40,
// k<<40, "stats K", k+9, k+10 and k+11, each truncated to its size. With
// -wait it first waits until a tracer is attached to request. It prints
// "ready PID" on stderr once its probes are loaded and "done" at the end.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sdtkit/sdtkit/pkg/sdt"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "goprobes:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("goprobes", flag.ContinueOnError)
	n := fs.Int("n", 0, "fire the probes `N` times (0: until killed)")
	interval := fs.Duration("i", time.Second, "fire every `INTERVAL`")
	wait := fs.Bool("wait", false, "wait for a tracer to attach to goapp:request first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := sdt.NewProvider("goapp")
	if err != nil {
		return err
	}
	request, err := p.AddProbe("request", sdt.Int64, sdt.String, sdt.Int32)
	if err != nil {
		return err
	}
	stats, err := p.AddProbe("stats",
		sdt.Int8, sdt.Uint8, sdt.Int16, sdt.Uint16, sdt.Int32, sdt.Uint32,
		sdt.Int64, sdt.Uint64, sdt.String, sdt.Int64, sdt.Int64, sdt.Int64)
	if err != nil {
		return err
	}
	if err := p.Load(); err != nil {
		return err
	}
	defer p.Close()
	fmt.Fprintln(os.Stderr, "ready", os.Getpid())
	for *wait && !request.Enabled() {
		time.Sleep(10 * time.Millisecond)
	}
	for k := int64(1); *n == 0 || k <= int64(*n); k++ {
		if request.Enabled() {
			if err := request.Fire(k, fmt.Sprintf("/item/%d", k), -k); err != nil {
				return err
			}
		}
		if stats.Enabled() {
			err := stats.Fire(-k, k, -k*100, k*100, -k*100000, k*100000, -k<<40, k<<40,
				fmt.Sprintf("stats %d", k), k+9, k+10, k+11)
			if err != nil {
				return err
			}
		}
		if *n == 0 || k < int64(*n) {
			time.Sleep(*interval)
		}
	}
	fmt.Fprintln(os.Stderr, "done")
	return nil
}
