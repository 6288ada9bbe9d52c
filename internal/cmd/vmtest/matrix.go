package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// matrix boots every guest of c and returns their reports, printing
// each guest's table as it ends.
func matrix(c *config, stdout, stderr io.Writer) ([]*guestReport, error) {
	archs := map[string]bool{}
	for _, g := range c.guests {
		archs[g.arch] = true
	}
	if err := ensureTools(archs, stderr); err != nil {
		return nil, err
	}
	a := &apt{dir: filepath.Join(c.cache, "apt")}
	if err := a.update(stderr); err != nil {
		return nil, err
	}
	images := map[string]*image{}
	for _, g := range c.guests {
		if images[g.name()] != nil {
			continue
		}
		fmt.Fprintf(stderr, "vmtest: kernel %s\n", g.name())
		img, err := fetchKernel(a, c.cache, g.kernel)
		if err != nil {
			return nil, fmt.Errorf("kernel %s: %w", g.name(), err)
		}
		images[g.name()] = img
	}
	busybox := map[string]string{}
	for _, g := range c.guests {
		if !shareRoot(g) && busybox[g.arch] == "" {
			bb, err := fetchBusybox(a, c.cache, g.arch)
			if err != nil {
				return nil, fmt.Errorf("busybox for %s: %w", g.arch, err)
			}
			busybox[g.arch] = bb
		}
	}
	repo, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "sdtkit-vmtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	b := &builder{repo: repo, dir: work, stderr: stderr}
	if err := b.hostTools(); err != nil {
		return nil, err
	}
	builds := map[string]*build{}
	var pkgs []string
	if c.tests {
		pkgs = c.pkgs
	}
	for arch := range archs {
		bd, err := b.forArch(arch, pkgs, c.scripts != "" && arch == runtime.GOARCH)
		if err != nil {
			return nil, err
		}
		builds[arch] = bd
	}
	logs := filepath.Join(c.cache, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return nil, err
	}
	var reports []*guestReport
	for _, g := range c.guests {
		img := images[g.name()]
		initrd := filepath.Join(work, "initramfs-"+g.arch+".cpio")
		var known map[string]string
		if c.ci {
			known = knownChecks(g)
		}
		if err := initramfs(initrd, g, img, builds[g.arch], repo, busybox[g.arch], c.checks, known, c.scripts); err != nil {
			return nil, fmt.Errorf("guest %s: initramfs: %w", g, err)
		}
		fmt.Fprintf(stderr, "vmtest: booting %s (%s)\n", g, img.release)
		var echo io.Writer
		if c.verbose {
			echo = stderr
		}
		logPath := filepath.Join(logs, fmt.Sprintf("%s-%s-%d.log", g.version, g.arch, g.cpus))
		bt := runGuest(g, img, initrd, logPath, c.timeout, echo)
		applyKnown(g, bt.results)
		r := &guestReport{guest: g, image: img, seconds: bt.seconds, results: bt.results}
		if bt.err != nil {
			r.results = append(r.results, vmcheck.Result{Check: "guest", Status: vmcheck.Fail, Reason: bt.err.Error(), Seconds: bt.seconds})
		}
		reports = append(reports, r)
		fmt.Fprintf(stderr, "vmtest: %s done in %.0f s\n", g, bt.seconds)
		if err := writeTable(stdout, []*guestReport{r}); err != nil {
			return nil, err
		}
	}
	return reports, nil
}

// ensureTools installs qemu for archs, through apt-get as root, when it
// is missing, and the cross compilers of archs.
func ensureTools(archs map[string]bool, stderr io.Writer) error {
	var missing []string
	for arch := range archs {
		if _, err := exec.LookPath(qemuBinary(arch)); err != nil {
			pkg := "qemu-system-x86"
			if arch == "arm64" {
				pkg = "qemu-system-arm"
			}
			missing = append(missing, pkg)
		}
	}
	for _, t := range []struct{ cmd, pkg string }{{"dpkg-deb", "dpkg"}, {"xz", "xz-utils"}, {"zstd", "zstd"}} {
		if _, err := exec.LookPath(t.cmd); err != nil {
			missing = append(missing, t.pkg)
		}
	}
	root := os.Geteuid() == 0
	if _, err := exec.LookPath("apt-get"); err != nil {
		root = false
	}
	if len(missing) > 0 && !root {
		return unavailable(fmt.Errorf("requires %v, which only root with apt-get installs here", missing))
	}
	// The cross compilers build the fixtures of --ustack=dwarf; without
	// one, its checks skip (see builder.ustackFixtures).
	for arch := range archs {
		if ct, ok := crossTargets[arch]; ok && root {
			if _, err := exec.LookPath(ct.triple + "-gcc"); err != nil {
				missing = append(missing, ct.pkg)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "vmtest: installing %v\n", missing)
	if out, err := exec.Command("apt-get", "-q", "update").CombinedOutput(); err != nil {
		return unavailable(fmt.Errorf("apt-get update: %w\n%s", err, out))
	}
	cmd := exec.Command("apt-get", append([]string{"install", "-y", "-q", "--no-install-recommends"}, missing...)...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return unavailable(fmt.Errorf("apt-get install %v: %w\n%s", missing, err, out))
	}
	return nil
}
