package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// A knownFailure is a failure the matrix found in sdtkit or its tests
// whose fix is under way apart from the matrix. It is reported as a
// skip that says so, so that CI's guests stay green meanwhile; a check
// that fails otherwise as well stays a failure.
type knownFailure struct {
	check string
	// tests are the failing tests of a go test check it covers; none
	// for an attach check, which it covers whatever its failure.
	tests []string
	when  func(g guest) bool
	why   string
}

// before says whether g's kernel is older than major.minor.
func before(major, minor int) func(g guest) bool {
	return func(g guest) bool {
		var ma, mi int
		fmt.Sscanf(g.version, "%d.%d", &ma, &mi)
		return ma < major || ma == major && mi < minor
	}
}

func always(guest) bool { return true }

// knownFailures are the failures of sdtkit the matrix found whose fixes
// are under way.
var knownFailures = []knownFailure{}

// knownChecks returns the attach checks of g that known failures cover,
// each with why: CI's guests leave them out rather than spend their
// time on a failure known (the BPF verifier's refusal takes a minute
// under TCG).
func knownChecks(g guest) map[string]string {
	m := map[string]string{}
	for _, k := range knownFailures {
		if len(k.tests) == 0 && k.when(g) {
			m[k.check] = k.why
		}
	}
	return m
}

// applyKnown turns the failures of g's results that known failures
// cover into skips.
func applyKnown(g guest, results []vmcheck.Result) {
	for i := range results {
		r := &results[i]
		if r.Status != vmcheck.Fail {
			continue
		}
		covered := map[string]bool{}
		var whys []string
		for _, k := range knownFailures {
			if k.check != r.Check || !k.when(g) {
				continue
			}
			if len(k.tests) == 0 {
				whys = append(whys, k.why)
				break
			}
			var mine []string
			for _, t := range r.Failed {
				if slices.Contains(k.tests, t) {
					mine = append(mine, t)
				}
			}
			if len(mine) > 0 {
				for _, t := range mine {
					covered[t] = true
				}
				whys = append(whys, strings.Join(mine, ", ")+": "+k.why)
			}
		}
		if len(whys) == 0 {
			continue
		}
		if len(r.Failed) > 0 && len(covered) != len(r.Failed) {
			continue
		}
		r.Status = vmcheck.Skip
		rest := r.Reason
		if i := strings.Index(rest, "; "); len(r.Failed) > 0 && strings.HasPrefix(rest, "failed: ") && i >= 0 {
			rest = rest[i+2:] // the failed tests are named in whys
		}
		r.Reason = "known failure: " + strings.Join(whys, "; ") + " (" + rest + ")"
	}
}
