package main

import "testing"

func TestSummarize(t *testing.T) {
	out := `=== RUN   TestA
--- PASS: TestA (0.00s)
=== RUN   TestB
    b_test.go:12: requires kernel 6.6 (due to missing uprobe_multi)
--- SKIP: TestB (0.01s)
=== RUN   TestC
=== RUN   TestC/one
    c_test.go:3: requires kernel 6.6 (due to missing uprobe_multi)
=== RUN   TestC/two
    c_test.go:9: got 1, want 2
--- FAIL: TestC (0.02s)
    --- SKIP: TestC/one (0.00s)
    --- FAIL: TestC/two (0.00s)
=== RUN   TestD
--- SKIP: TestD (0.00s)
FAIL
`
	s := summarize(out)
	if s.passed != 1 || len(s.failed) != 1 || s.failed[0] != "TestC" {
		t.Errorf("summarize: %d passed, failed %v; want 1, [TestC]", s.passed, s.failed)
	}
	want := "1 passed; 1 skipped: no reason given; 2 skipped: requires kernel 6.6 (due to missing uprobe_multi)"
	if got := s.String(); got != want {
		t.Errorf("summarize(...).String() = %q, want %q", got, want)
	}
}
