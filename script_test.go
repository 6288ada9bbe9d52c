package sdtkit_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rsc.io/script"
	"rsc.io/script/scripttest"

	sdtscript "github.com/sdtkit/sdtkit/pkg/scripttest"
)

// binDir holds the tools built from ./cmd/... for the tests, and the
// helper internal/cmd/denybpf.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sdtkit-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var build = sync.OnceValue(func() error {
	// go test puts its own go first on PATH.
	cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...", "./examples/...", "./internal/cmd/denybpf")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/... ./examples/... ./internal/cmd/denybpf: %w\n%s", err, out)
	}
	return nil
})

// buildTools builds the sdtkit commands once per test binary and returns
// the directory holding them.
func buildTools(t *testing.T) string {
	t.Helper()
	if err := build(); err != nil {
		t.Fatal(err)
	}
	return binDir
}

func TestScript(t *testing.T) {
	bin := buildTools(t)
	// The scripts' $WORK directories, in a directory of their own, where
	// KillStrays finds the fixtures a failed script left running.
	work, err := os.MkdirTemp("", "sdts-")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", work)
	t.Cleanup(func() {
		if n, err := sdtscript.KillStrays(work); n > 0 || err != nil {
			t.Logf("killed %d processes left running under %s (%v)", n, work, err)
		}
		os.RemoveAll(work)
		if err := sdtscript.RemoveUprobes(); err != nil {
			t.Error(err)
		}
	})

	engine := &script.Engine{
		Cmds:  scripttest.DefaultCmds(),
		Conds: scripttest.DefaultConds(),
		Quiet: !testing.Verbose(),
	}
	for name, cmd := range sdtscript.Cmds() {
		engine.Cmds[name] = cmd
	}
	for name, cond := range sdtscript.Conds() {
		engine.Conds[name] = cond
	}

	src, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + bin + string(filepath.ListSeparator) + os.Getenv("PATH"),
		"LC_ALL=C",
		// The source tree, for scripts that build the tools their own way.
		"SDTKIT=" + src,
	}
	for _, key := range []string{"HOME", "TMPDIR", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT", "GOFLAGS"} {
		if v, ok := os.LookupEnv(key); ok {
			env = append(env, key+"="+v)
		}
	}
	scripttest.Test(t, context.Background(), engine, env, "testdata/script/*.txt")
}

// realBinaries are files shipped with probes by Linux distributions.
// Each one that is installed is compared with readelf.
var realBinaries = []string{
	"/usr/lib/jvm/*/lib/server/libjvm.so",
	"/usr/lib/jvm/*/lib/libsaproc.so",
	"/usr/lib/x86_64-linux-gnu/libpython3.*.so.1.0",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/usr/lib/postgresql/*/bin/postgres",
	"/usr/bin/python3.11",
	"/usr/bin/gcc-12",
	"/usr/bin/x86_64-linux-gnu-ld.gold",
	// Static libraries: ar archives of objects with notes, each member
	// named as readelf names it.
	"/usr/lib/gcc/x86_64-linux-gnu/*/libstdc++.a",
	"/usr/lib/x86_64-linux-gnu/libpython3.*.a",
}

func TestRealBinaries(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("requires readelf (package binutils)")
	}
	sdtlist := filepath.Join(buildTools(t), "sdtlist")
	seen := make(map[string]bool)
	for _, pattern := range realBinaries {
		matches, _ := filepath.Glob(pattern)
		var files []string
		for _, f := range matches {
			// Distributions install the same file under several names.
			if real, err := filepath.EvalSymlinks(f); err == nil {
				f = real
			}
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
		if len(matches) == 0 {
			t.Run(pattern, func(t *testing.T) {
				t.Skipf("requires %s (not installed)", pattern)
			})
			continue
		}
		for _, file := range files {
			t.Run(strings.TrimPrefix(file, "/"), func(t *testing.T) {
				t.Parallel()
				n, err := sdtscript.Agree(t.Context(), readelf, sdtlist, file)
				switch {
				case err != nil:
					t.Error(err)
				case n == 0:
					t.Skipf("requires a build of %s with probes (readelf shows none)", file)
				default:
					t.Logf("%d probe sites agree", n)
				}
			})
		}
	}
}
