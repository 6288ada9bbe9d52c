package testdemo

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/fixture"
)

// Native writes a program for the host's machine that fires the probes
// of the DTrace provider file src, as package fixture generates it with
// opts (whose Arch it sets), into a directory of t's, and returns its
// path: a fixture for the tests that run on every machine, where the
// demo is x86-64. It skips t on a machine package fixture does not
// write programs for.
func Native(t testing.TB, src string, opts fixture.Options) string {
	t.Helper()
	if !slices.Contains(fixture.Arches(), runtime.GOARCH) {
		t.Skipf("requires a machine package fixture writes programs for (%v), not %s", fixture.Arches(), runtime.GOARCH)
	}
	providers, err := dtrace.Parse("native.d", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	opts.Arch = runtime.GOARCH
	prog, err := fixture.Generate(providers, opts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "native")
	if err := os.WriteFile(path, prog.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
