package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// testTimeout bounds one test binary; the binary's own -test.timeout is
// a little shorter, so that it says which test hung.
const testTimeout = 10 * time.Minute

// runTest runs a go test -c binary, verbose, and sums its top-level
// results up as one result: failed tests by name, skips by reason.
func runTest(e *env, t vmcheck.Test) vmcheck.Result {
	start := time.Now()
	timeout := cmp.Or(t.Timeout, testTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := append([]string{"-test.v", "-test.count=1", "-test.timeout=" + (timeout - 30*time.Second).String()}, t.Args...)
	cmd := exec.CommandContext(ctx, t.Path, args...)
	cmd.Dir = t.Dir
	cmd.Env = append(os.Environ(), t.Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	s := summarize(out.String())
	if err != nil && len(s.failed) == 0 && s.running != "" {
		// The binary exited in the middle of a test (log.Fatal,
		// a panic in another goroutine, a timeout).
		s.failed = []string{s.running}
	}
	r := vmcheck.Result{Check: "go test " + t.Name, Seconds: time.Since(start).Seconds()}
	switch {
	case len(s.failed) > 0 || err != nil:
		r.Status, r.Failed = vmcheck.Fail, s.failed
		why := []string{}
		if len(s.failed) > 0 {
			why = append(why, "failed: "+strings.Join(s.failed, ", "))
		}
		if err != nil {
			why = append(why, err.Error())
		}
		r.Reason = strings.Join(append(why, s.String()), "; ")
		// The whole output goes to the console log, where the host
		// keeps it.
		fmt.Fprintf(os.Stdout, "vminit: go test %s:\n%s\n", t.Name, tail(out.String(), 400))
	case s.passed == 0 && len(s.skips) > 0:
		r.Status, r.Reason = vmcheck.Skip, s.String()
	default:
		r.Status, r.Reason = vmcheck.Pass, s.String()
	}
	return r
}

// A testSummary counts the results of go test -v.
type testSummary struct {
	running string // the top-level test that ran last
	passed  int
	failed  []string
	skips   map[string]int // reason -> tests and subtests skipped for it
}

var (
	resultLine = regexp.MustCompile(`^(\s*)--- (PASS|FAIL|SKIP): (\S+)`)
	runLine    = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+(\S+)`)
	// A test's log line: "    file_test.go:NN: message".
	logLine = regexp.MustCompile(`^\s+\S+\.go:\d+: (.*)$`)
)

// summarize reads go test -v output: top-level tests count as passed or
// failed, and every skip, subtests too, by its reason, the last line
// the test logged before it skipped.
func summarize(out string) testSummary {
	s := testSummary{skips: map[string]int{}}
	last := map[string]string{} // test -> its last log line
	current := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if m := runLine.FindStringSubmatch(line); m != nil {
			current = m[1]
			s.running, _, _ = strings.Cut(m[1], "/")
			continue
		}
		if m := logLine.FindStringSubmatch(line); m != nil && current != "" {
			last[current] = m[1]
			continue
		}
		m := resultLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		top := m[1] == ""
		switch m[2] {
		case "PASS":
			if top {
				s.passed++
			}
		case "FAIL":
			if top {
				s.failed = append(s.failed, m[3])
			}
		case "SKIP":
			reason := last[m[3]]
			if reason == "" {
				reason = "no reason given"
			}
			s.skips[reason]++
		}
	}
	return s
}

// String says how many passed and why tests skipped.
func (s testSummary) String() string {
	msg := fmt.Sprintf("%d passed", s.passed)
	reasons := make([]string, 0, len(s.skips))
	for r := range s.skips {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		msg += fmt.Sprintf("; %d skipped: %s", s.skips[r], r)
	}
	return msg
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
