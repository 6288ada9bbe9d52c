// Package vmcheck is what the kernel matrix's two sides share: the plan
// that internal/cmd/vmtest writes into a guest's initramfs, and the
// result lines that internal/cmd/vminit, the guest's init, prints on the
// console for the host to read back.
package vmcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// PlanPath is where the plan lies in the initramfs.
const PlanPath = "/vmtest/plan.json"

// A Plan says what a guest runs.
type Plan struct {
	Kernel string `json:"kernel"` // the kernel's release, for the results
	Arch   string `json:"arch"`   // amd64 or arm64
	CPUs   int    `json:"cpus"`

	// Modules are kernel modules to load, in order, before anything else.
	Modules []string `json:"modules,omitempty"`

	// HostRoot is the 9p mount tag of the host's root, shared read-only,
	// or "" when there is none; its /usr and /etc then serve the guest.
	HostRoot string `json:"host_root,omitempty"`

	// Bin holds the static tools (sdtattach, sdtgen, ...); Fixtures the
	// sdtgen fixtures with their manifests.
	Bin      string `json:"bin"`
	Fixtures string `json:"fixtures"`

	// UStackMissing says why there are no fixtures of --ustack=dwarf
	// (Fixtures/ustack: pkg/unwind's chain, built ahead with a cross
	// compiler, and the C library it runs with); "" when they are there.
	UStackMissing string `json:"ustack_missing,omitempty"`

	// Tests are the go test -c binaries to run.
	Tests []Test `json:"tests,omitempty"`

	// Checks names the attach checks to run; all of them when empty.
	Checks []string `json:"checks,omitempty"`
	// Known are attach checks not to run, each with the known failure
	// that covers it: they are reported as skipped, saying why.
	Known map[string]string `json:"known,omitempty"`
}

// A Test is a go test -c binary and where it runs.
type Test struct {
	Name string   `json:"name"` // the package, such as pkg/bpf
	Path string   `json:"path"` // the binary
	Dir  string   `json:"dir"`  // its package directory, as go test runs it
	Args []string `json:"args,omitempty"`
	// Env is added to the guest's environment for the binary.
	Env []string `json:"env,omitempty"`
	// Timeout, when not 0, is how long the binary may run, in place of
	// the guest's default.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// Status is the outcome of a check.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// A Result is one check's outcome in one guest.
type Result struct {
	Check   string  `json:"check"`
	Status  Status  `json:"status"`
	Reason  string  `json:"reason,omitempty"`
	Seconds float64 `json:"seconds"`
	// Failed names the top-level tests that failed, of a go test check.
	Failed []string `json:"failed,omitempty"`
}

// prefix starts each result line on the console, so that the host finds
// the lines among the kernel's.
const prefix = "vmtest-result "

// DoneLine ends a guest's results: without it, the guest did not finish.
const DoneLine = "vmtest-done"

// Line returns r as one console line, without its newline.
func (r Result) Line() string {
	b, err := json.Marshal(r)
	if err != nil {
		// A Result of strings and numbers always marshals.
		panic(err)
	}
	return prefix + string(b)
}

// ParseLine returns the result that line holds, and whether it holds
// one. The line may carry console noise before the prefix.
func ParseLine(line string) (Result, bool, error) {
	i := strings.Index(line, prefix)
	if i < 0 {
		return Result{}, false, nil
	}
	var r Result
	d := json.NewDecoder(bytes.NewReader([]byte(line[i+len(prefix):])))
	if err := d.Decode(&r); err != nil {
		return Result{}, true, fmt.Errorf("result line %q: %w", line, err)
	}
	return r, true, nil
}
