package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// testPackages are the packages whose tests attach, or need root, and
// run in each guest as go test -c binaries.
var testPackages = []string{
	"pkg/bpf", "pkg/attach", "pkg/tracefs", "pkg/uprobes", "pkg/probe",
	"pkg/process", "pkg/repair", "pkg/semaphore", "pkg/launch", "pkg/sdt",
	"pkg/usdt", "pkg/dlopen", "examples/usdtcount",
}

// testArgs are the flags of a package's test binary.
var testArgs = map[string][]string{
	// TestArm64 builds a test binary with the go command and runs it
	// under qemu-user, neither of which a guest has.
	"pkg/sdt": {"-test.skip", "^TestArm64$"},
}

// shopSpec is the provider of the fixtures (see internal/cmd/vminit).
const shopSpec = `provider shop {
	probe order(int id, const char *item, unsigned long long cents);
	probe refund(long id);
};
`

// A build is what one guest arch boots with, built once a run.
type build struct {
	arch     string
	init     string // vminit
	bin      string // the static tools
	fixtures string
	tests    map[string]string // package -> go test -c binary
	scripts  string            // the repository's own test binary, of the script tests; "" without
	// ustack says why the fixtures of --ustack=dwarf were not built;
	// "" when they were (see builder.ustackFixtures).
	ustack string
}

// builder builds from the repository at repo into dir.
type builder struct {
	repo, dir string
	sdtgen    string // the host's
	stderr    io.Writer
}

// goBuild runs the go command in the repository for arch, static.
func (b *builder) goBuild(arch string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = b.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOARCH="+arch, "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// hostTools builds the host's sdtgen, which writes every arch's fixtures.
func (b *builder) hostTools() error {
	b.sdtgen = filepath.Join(b.dir, "host", "sdtgen")
	cmd := exec.Command("go", "build", "-o", b.sdtgen, "./cmd/sdtgen")
	cmd.Dir = b.repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build sdtgen: %w\n%s", err, out)
	}
	return nil
}

// forArch builds the init, the tools, the test binaries of pkgs, the
// script tests' binary (when scripts) and the fixtures of arch.
func (b *builder) forArch(arch string, pkgs []string, scripts bool) (*build, error) {
	d := filepath.Join(b.dir, arch)
	bd := &build{
		arch:     arch,
		init:     filepath.Join(d, "init"),
		bin:      filepath.Join(d, "bin"),
		fixtures: filepath.Join(d, "fx"),
		tests:    map[string]string{},
	}
	fmt.Fprintf(b.stderr, "vmtest: building for %s\n", arch)
	if err := b.goBuild(arch, "build", "-o", bd.init, "./internal/cmd/vminit"); err != nil {
		return nil, err
	}
	if err := b.goBuild(arch, "build", "-o", bd.bin+"/", "./cmd/..."); err != nil {
		return nil, err
	}
	for _, p := range pkgs {
		out := filepath.Join(d, "tests", strings.ReplaceAll(p, "/", "_")+".test")
		if err := b.goBuild(arch, "test", "-c", "-o", out, "./"+p); err != nil {
			return nil, err
		}
		bd.tests[p] = out
	}
	if scripts {
		bd.scripts = filepath.Join(d, "tests", "scripts.test")
		if err := b.goBuild(arch, "test", "-c", "-o", bd.scripts, "."); err != nil {
			return nil, err
		}
	}
	if err := b.fixtures(bd); err != nil {
		return nil, err
	}
	why, err := b.ustackFixtures(bd)
	if err != nil {
		return nil, err
	}
	if why != "" {
		fmt.Fprintf(b.stderr, "vmtest: no --ustack=dwarf fixture for %s: %s\n", arch, why)
	}
	bd.ustack = why
	return bd, nil
}

// fixtures writes the sdtgen fixtures internal/cmd/vminit's checks
// trace, each with its manifest.
func (b *builder) fixtures(bd *build) error {
	if err := os.MkdirAll(bd.fixtures, 0o755); err != nil {
		return err
	}
	spec := filepath.Join(bd.fixtures, "shop.d")
	if err := os.WriteFile(spec, []byte(shopSpec), 0o644); err != nil {
		return err
	}
	forms := []string{"--forms", "reg,mem,sib,rip,imm"}
	type fx struct {
		name string
		args []string
	}
	fxs := []fx{
		{"shop", forms},
		{"shop-sema", append([]string{"--semaphores"}, forms...)},
		{"shop-pie", append([]string{"--pie"}, forms...)},
	}
	if bd.arch == "amd64" {
		fxs = append(fxs, fx{"shop-386", append([]string{"--arch", "386"}, forms...)})
	} else {
		for i := range fxs {
			fxs[i].args = append([]string{"--arch", bd.arch}, fxs[i].args...)
		}
	}
	for _, f := range fxs {
		out := filepath.Join(bd.fixtures, f.name)
		args := append([]string{"-o", out, "--manifest", out + ".json"}, f.args...)
		if o, err := exec.Command(b.sdtgen, append(args, spec)...).CombinedOutput(); err != nil {
			return fmt.Errorf("sdtgen %s: %w: %s", strings.Join(args, " "), err, o)
		}
	}
	return nil
}
