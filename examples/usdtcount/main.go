// Usdtcount counts the hits of a USDT probe by the string of its second
// argument, with a BPF program of its own (count.bpf.c, written with
// libbpf's BPF_USDT) loaded by cilium/ebpf and attached by package usdt:
//
//	usdtcount [-p PID] [-d DURATION] PATH PROVIDER NAME
//
// It counts for DURATION (default 5s), or until interrupted, then prints
// the ten most frequent strings, one "COUNT STRING" line each, most
// frequent first: the functions python runs most, for
// usdtcount /usr/bin/python3 python function__entry.
package main

// Regenerating takes clang-19 and libbpf's headers (libbpf-dev); the
// kernel's asm/ headers come from Debian's multiarch directory, whose
// types are those of both targets.
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang-19 -target amd64,arm64 -type key count count.bpf.c -- -I../../pkg/usdt/include -idirafter /usr/include/x86_64-linux-gnu -O2 -g -Wall -Werror

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/pkg/usdt"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("usdtcount: ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("usdtcount", flag.ContinueOnError)
	pid := fs.Int("p", 0, "count in this process only")
	d := fs.Duration("d", 5*time.Second, "how long to count")
	if err := fs.Parse(args); err != nil || fs.NArg() != 3 {
		return errors.New("usage: usdtcount [-p PID] [-d DURATION] PATH PROVIDER NAME")
	}
	var objs countObjects
	if err := loadCountObjects(&objs, nil); err != nil {
		return err
	}
	defer objs.Close()
	l, err := usdt.Attach(objs.Count, fs.Arg(0), fs.Arg(1), fs.Arg(2), &usdt.Options{PID: *pid, Specs: objs.SdtUsdtSpecs})
	if err != nil {
		return err
	}
	defer l.Close()
	fmt.Fprintf(stderr, "usdtcount: counting at %d sites\n", l.Sites())
	ctx, cancel := context.WithTimeout(ctx, *d)
	defer cancel()
	<-ctx.Done()
	counts := make(map[string]uint64)
	var k countKey
	var n uint64
	for it := objs.Counts.Iterate(); it.Next(&k, &n); {
		counts[string(bytes.TrimRight(k.Name[:], "\x00"))] = n
	}
	top := slices.SortedFunc(maps.Keys(counts), func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
	for _, name := range top[:min(len(top), 10)] {
		fmt.Fprintf(stdout, "%d %s\n", counts[name], name)
	}
	return nil
}
