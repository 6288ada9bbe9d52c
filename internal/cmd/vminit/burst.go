package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// burstIterations is how often each process of a burst fires each probe.
const burstIterations = 2000

// burstTimeout bounds a burst's trace.
const burstTimeout = 90 * time.Second

// burstMain is vminit run as "vminit burst N ITERATIONS FIXTURE": it
// starts N processes of FIXTURE at once, each firing ITERATIONS times
// with no pause, and waits for them all. sdtattach -f -c runs it.
func burstMain(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: vminit burst N ITERATIONS FIXTURE")
		return 2
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(args[2], args[1], "0")
		if err := cmds[i].Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	status := 0
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			status = 1
		}
	}
	return status
}

// lostRe finds the hits sdtattach reports lost on its standard error.
var lostRe = regexp.MustCompile(`(\d+) (?:events |hits )?lost`)

// burst traces one process per vCPU firing both probes at once, counted
// with --count, and wants every hit counted, or those not counted
// reported lost.
func burst(backend string) func(e *env) (vmcheck.Status, string) {
	return func(e *env) (vmcheck.Status, string) {
		self, err := os.Executable()
		if err != nil {
			return vmcheck.Fail, err.Error()
		}
		n := max(e.plan.CPUs, 2)
		fx := e.fixture(fxShop)
		launch := fmt.Sprintf("%s burst %d %d %s", self, n, burstIterations, fx)
		o := e.toolTimeout(burstTimeout, "sdtattach", "--backend", backend, "--count", "-f", "-c", launch,
			fx+":shop:order", fx+":shop:refund")
		if o.err != nil {
			return vmcheck.Fail, o.failure()
		}
		recs, err := parseRecords(o.stdout)
		if err != nil {
			return vmcheck.Fail, err.Error()
		}
		var lost int64
		for _, r := range recs {
			if r.Lost != nil {
				lost += *r.Lost
			}
		}
		for _, m := range lostRe.FindAllStringSubmatch(o.stderr, -1) {
			l, _ := strconv.ParseInt(m[1], 10, 64)
			lost += l
		}
		want := int64(n * burstIterations)
		got := counts(recs)
		var notes []string
		for _, p := range []string{"shop:order", "shop:refund"} {
			switch {
			case got[p] == want:
			case got[p]+lost >= want && lost > 0:
				notes = append(notes, fmt.Sprintf("%s: %d of %d hits counted, %d reported lost", p, got[p], want, lost))
			default:
				msg := fmt.Sprintf("%s: %d of %d hits counted (%d processes), %d reported lost", p, got[p], want, n, lost)
				if s := firstLines(o.stderr, 3); s != "" {
					msg += " (" + s + ")"
				}
				return vmcheck.Fail, msg
			}
		}
		if note := backendNote(o.stderr); note != "" && backend == "auto" {
			notes = append(notes, note)
		}
		return vmcheck.Pass, joinNotes(notes)
	}
}
