package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/internal/testchain"
	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// hostRootTag is the 9p mount tag of the host's root.
const hostRootTag = "hostroot"

// shareRoot says whether a guest gets the host's root: only one of the
// host's arch, whose kernel can mount 9p.
func shareRoot(g guest) bool { return g.arch == runtime.GOARCH && len(g.modules) > 0 }

// initramfs writes the initramfs of guest g to path: vminit as /init,
// the tools, fixtures, modules and test binaries under /vmtest, the
// test binaries' testdata where they were built (they find it by its
// absolute path), and the plan, which leaves out the checks of known.
func initramfs(path string, g guest, img *image, bd *build, repo, busybox string, checks []string, known map[string]string, scripts string) error {
	a := archive{}
	a.file("init", bd.init, 0o755)
	// The kernel opens /dev/console for init before anything is mounted.
	a.char("dev/console", 5, 1, 0o600)
	a.char("dev/null", 1, 3, 0o666)
	// Links into /usr, as on the host, whose /usr is mounted over ours.
	for _, d := range []string{"bin", "sbin", "lib", "lib64"} {
		a.symlink(d, "usr/"+d)
	}
	a.dir("usr")
	a.dir("etc")
	if busybox != "" && !shareRoot(g) {
		a.file("usr/bin/busybox", busybox, 0o755)
		for _, c := range busyboxApplets {
			a.symlink("usr/bin/"+c, "busybox")
		}
	}
	plan := vmcheck.Plan{
		Kernel:   img.release,
		Arch:     g.arch,
		CPUs:     g.cpus,
		Bin:      "/vmtest/bin",
		Fixtures: guestFixtures,
		Checks:   checks,
		// The fixtures of --ustack=dwarf, or why there are none.
		UStackMissing: bd.ustack,
		Known:         known,
	}
	if shareRoot(g) {
		plan.HostRoot = hostRootTag
	}
	if err := addDir(a, bd.bin, plan.Bin, ""); err != nil {
		return err
	}
	if err := addDir(a, bd.fixtures, plan.Fixtures, ""); err != nil {
		return err
	}
	for _, m := range img.modules {
		dst := "/vmtest/modules/" + filepath.Base(m)
		a.file(dst, m, 0o644)
		plan.Modules = append(plan.Modules, dst)
	}
	pkgs := make([]string, 0, len(bd.tests))
	for p := range bd.tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		dst := "/vmtest/tests/" + filepath.Base(bd.tests[p])
		a.file(dst, bd.tests[p], 0o755)
		dir := filepath.Join(repo, p)
		// The package's files but its Go sources: testdata, and the
		// BPF objects of pkg/bpf that its tests load by name.
		if err := addDir(a, dir, dir, ".go"); err != nil {
			return err
		}
		t := vmcheck.Test{Name: p, Path: dst, Dir: dir, Args: testArgs[p]}
		if p == "pkg/attach" && bd.ustack == "" {
			// Its test of --ustack=dwarf traces the chain fixture
			// there is no compiler in the guest to build.
			t.Env = []string{testchain.Env + "=" + guestFixtures + "/" + ustackDir + "/chain"}
		}
		plan.Tests = append(plan.Tests, t)
	}
	if bd.scripts != "" && shareRoot(g) {
		t, err := scriptTests(repo, scripts)
		if err != nil {
			return err
		}
		a.file(t.Path, bd.scripts, 0o755)
		plan.Tests = append(plan.Tests, t)
	}
	if len(pkgs) > 0 {
		for _, d := range sharedTestdata {
			dir := filepath.Join(repo, d)
			if err := addDir(a, dir, dir, ""); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(plan, "", "\t")
	if err != nil {
		return err
	}
	a.bytes(vmcheck.PlanPath, b, 0o644)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := a.write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sharedTestdata are the fixtures of other packages than those tested
// that the tests find by the absolute path of the sources they were
// built from, as the tests' own testdata: internal/testdemo's, which the
// tests of several packages copy, and internal/testchain's sources,
// which pkg/attach's tests build with gcc in the guests that share the
// host's root.
var sharedTestdata = []string{"pkg/stapsdt/testdata", "pkg/unwind/testdata"}

// addDir adds the tree src as dst, if src exists, with the files'
// permission bits, but the files whose names end in skip (when not "").
func addDir(a archive, src, dst, skip string) error {
	if _, err := os.Stat(src); err != nil {
		return nil
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			a.dir(target)
		case skip != "" && strings.HasSuffix(path, skip):
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			a.file(target, path, uint32(fi.Mode().Perm()))
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(path)
			if err != nil {
				return err
			}
			a.symlink(target, t)
		}
		return nil
	})
}

// scriptTestsTimeout bounds the script tests in a guest, which build the
// tools with the go command first, under emulation.
const scriptTestsTimeout = 40 * time.Minute

// scriptTests returns the test of the script tests matching re, run in
// the repository as the host's root shares it (/host), with the host's
// go command, its module cache, and caches of the guest's own.
func scriptTests(repo, re string) (vmcheck.Test, error) {
	out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		return vmcheck.Test{}, fmt.Errorf("go env: %w", err)
	}
	env := strings.Fields(string(out))
	if len(env) != 2 {
		return vmcheck.Test{}, fmt.Errorf("go env GOROOT GOMODCACHE: %q", out)
	}
	return vmcheck.Test{
		Name: "scripts",
		Path: "/vmtest/tests/scripts.test",
		Dir:  "/host" + repo,
		Args: []string{"-test.run", "^TestScript$/" + re},
		Env: []string{
			"PATH=" + filepath.Join(env[0], "bin") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"HOME=/tmp/home", "GOCACHE=/tmp/go-build", "GOMODCACHE=/host" + env[1],
			"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false",
		},
		Timeout: scriptTestsTimeout,
	}, nil
}
