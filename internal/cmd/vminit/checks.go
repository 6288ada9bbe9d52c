package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// A check is one attach check, run on every guest of its arch.
type check struct {
	name string
	arch string // "" for every arch
	run  func(e *env) (vmcheck.Status, string)
}

// The fixtures internal/cmd/vmtest writes with sdtgen, each with its
// manifest NAME.json, from the provider of shop.d:
//
//	provider shop {
//		probe order(int id, const char *item, unsigned long long cents);
//		probe refund(long id);
//	};
const (
	fxShop = "shop"      // every operand form
	fxSema = "shop-sema" // --semaphores
	fxPIE  = "shop-pie"  // --pie
	fx386  = "shop-386"  // --arch 386, on x86-64 guests
)

// streamProbes are the probes a stream check attaches, with the types
// that read the string.
var streamProbes = []string{"shop:order(s32,str,u64)", "shop:refund"}

// aggIterations is how often the fixture fires for an aggregation.
const aggIterations = 50

// checks run in this order. --latency comes first: on a kernel just
// booted with many CPUs, per-CPU map memory is not there yet.
var checks = []check{
	{"latency", "", latency("auto")},
	{"stream", "", stream(fxShop, "auto")},
	{"stream-bpf", "", stream(fxShop, "bpf")},
	{"stream-tracefs", "", stream(fxShop, "tracefs")},
	{"count", "", count("auto", "", aggIterations)},
	{"count-tracefs", "", count("tracefs", "", aggIterations)},
	{"hist", "", hist("auto")},
	{"hist-tracefs", "", hist("tracefs")},
	{"latency-tracefs", "", latency("tracefs")},
	// On iteration k, order's arg0 is -k*1000: k from 10 to 50 pass.
	{"filter", "", count("auto", "arg0 <= -10000", aggIterations-9)},
	{"filter-tracefs", "", count("tracefs", "arg0 <= -10000", aggIterations-9)},
	{"semaphores", "", stream(fxSema, "auto")},
	{"semaphores-tracefs", "", stream(fxSema, "tracefs")},
	{"pie", "", stream(fxPIE, "auto")},
	{"burst", "", burst("auto")},
	{"burst-tracefs", "", burst("tracefs")},
	{"i386", "amd64", stream(fx386, "auto")},
	{"i386-tracefs", "amd64", stream(fx386, "tracefs")},
	// Each backend forced: the BPF backend's refusal, then a fall back
	// to tracefs, would take minutes under TCG. pkg/attach's tests
	// check the same on x86-64, with the host's compiler.
	{"ustack-dwarf-bpf", "arm64", ustackDwarf("bpf")},
	{"ustack-dwarf-tracefs", "arm64", ustackDwarf("tracefs")},
}

// selected returns the checks the plan names, all when it names none.
func selected(p *vmcheck.Plan) []check {
	if len(p.Checks) == 0 {
		return checks
	}
	var cs []check
	for _, c := range checks {
		if slices.Contains(p.Checks, c.name) {
			cs = append(cs, c)
		}
	}
	return cs
}

// stream traces the first iterations of fx, every event streamed, and
// checks every value against the fixture's manifest.
func stream(fx, backend string) func(e *env) (vmcheck.Status, string) {
	return func(e *env) (vmcheck.Status, string) {
		m, err := readManifest(e.fixture(fx + ".json"))
		if err != nil {
			return vmcheck.Fail, err.Error()
		}
		args := append([]string{"--backend", backend, "-c", e.fixture(fx) + " 3 1"}, streamProbes...)
		o := e.tool("sdtattach", args...)
		if o.err != nil {
			return vmcheck.Fail, o.failure()
		}
		recs, err := parseRecords(o.stdout)
		if err != nil {
			return vmcheck.Fail, err.Error()
		}
		nulls, err := compareEvents(m, recs, func(probe string, arg int) bool {
			return formGap(o.stderr, probe, arg)
		})
		if err != nil {
			return vmcheck.Fail, withWarnings(err.Error(), o.stderr)
		}
		var notes []string
		if n := backendNote(o.stderr); n != "" && backend == "auto" {
			notes = append(notes, n)
		}
		if nulls > 0 {
			notes = append(notes, fmt.Sprintf("%d values null: the tracefs backend has no fetch argument for base+index operands (warned)", nulls))
		}
		return vmcheck.Pass, joinNotes(notes)
	}
}

// formGap says whether sdtattach warned that arg of probe is shown as
// null because no fetch argument has its form.
func formGap(stderr, probe string, arg int) bool {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, probe) && strings.Contains(l, fmt.Sprintf("arg%d ", arg)) &&
			strings.Contains(l, "no such form") && strings.Contains(l, "shown as null") {
			return true
		}
	}
	return false
}

// withWarnings adds sdtattach's warnings of values shown as null to msg.
func withWarnings(msg, stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "null") {
			msg += "; " + strings.TrimPrefix(l, "sdtattach: ")
		}
	}
	return msg
}

// aggregate runs sdtattach with the aggregation flags agg over n
// iterations of the fixture and returns its records.
func (e *env) aggregate(backend string, n int, agg []string, probes ...string) ([]record, vmcheck.Status, string) {
	args := append([]string{"--backend", backend}, agg...)
	args = append(args, "-c", fmt.Sprintf("%s %d 0", e.fixture(fxShop), n))
	o := e.tool("sdtattach", append(args, probes...)...)
	if o.err != nil {
		return nil, vmcheck.Fail, o.failure()
	}
	recs, err := parseRecords(o.stdout)
	if err != nil {
		return nil, vmcheck.Fail, err.Error()
	}
	note := ""
	if backend == "auto" {
		note = backendNote(o.stderr)
	}
	return recs, vmcheck.Pass, note
}

// count counts the hits of both probes, or of order alone with a
// filter, and wants each count to be want.
func count(backend, filter string, want int64) func(e *env) (vmcheck.Status, string) {
	return func(e *env) (vmcheck.Status, string) {
		agg, probes := []string{"--count"}, []string{"shop:order", "shop:refund"}
		if filter != "" {
			agg, probes = append(agg, "--filter", filter), probes[:1]
		}
		recs, st, why := e.aggregate(backend, aggIterations, agg, probes...)
		if st != vmcheck.Pass {
			return st, why
		}
		got := counts(recs)
		for _, p := range probes {
			if got[p] != want {
				return vmcheck.Fail, fmt.Sprintf("%s counted %d, want %d", p, got[p], want)
			}
		}
		return vmcheck.Pass, why
	}
}

// hist draws order's arg0 and wants every hit in it.
func hist(backend string) func(e *env) (vmcheck.Status, string) {
	return func(e *env) (vmcheck.Status, string) {
		recs, st, why := e.aggregate(backend, aggIterations, []string{"--hist", "arg0"}, "shop:order")
		if st != vmcheck.Pass {
			return st, why
		}
		if got := counts(recs)["shop:order"]; got != aggIterations {
			return vmcheck.Fail, fmt.Sprintf("histogram of %d hits, want %d", got, aggIterations)
		}
		return vmcheck.Pass, why
	}
}

// latency pairs each order with the refund that follows it.
func latency(backend string) func(e *env) (vmcheck.Status, string) {
	return func(e *env) (vmcheck.Status, string) {
		recs, st, why := e.aggregate(backend, aggIterations, []string{"--latency", "shop:order,shop:refund"})
		if st != vmcheck.Pass {
			return st, why
		}
		var pairs int64
		for _, r := range recs {
			if r.From != "" && r.Count != nil {
				pairs += *r.Count
			}
		}
		if pairs != aggIterations {
			return vmcheck.Fail, fmt.Sprintf("%d pairs, want %d", pairs, aggIterations)
		}
		return vmcheck.Pass, why
	}
}
