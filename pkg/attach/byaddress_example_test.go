package attach_test

import (
	"testing"

	"github.com/sdtkit/sdtkit/internal/bpfhook"
)

// TestExamplesByAddress runs the examples as on a kernel without BPF
// cookies, the sites told apart by their address: they print the same.
func TestExamplesByAddress(t *testing.T) {
	bpfhook.NoCookies.Store(true)
	defer bpfhook.NoCookies.Store(false)
	TestExamples(t)
}
