package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// errUnavailable marks what the host cannot provide: no qemu, no Debian
// mirror, a package that cannot be downloaded. The CI subset skips on
// it rather than fail.
var errUnavailable = errors.New("unavailable")

// unavailable wraps err as errUnavailable.
func unavailable(err error) error { return fmt.Errorf("%w: %w", errUnavailable, err) }

// An apt is a private apt configuration under dir, with the suites of
// every kernel of the matrix and both architectures, so that kernels are
// downloaded without touching the host's sources or its dpkg
// architectures.
type apt struct {
	dir string
}

// suites are the Debian suites the kernels come from.
var (
	suites         = []string{"bullseye", "bookworm", "bookworm-updates", "trixie"}
	securitySuites = []string{"bullseye-security", "bookworm-security", "trixie-security"}
)

// options are apt's options for the private configuration.
func (a *apt) options() []string {
	return []string{
		"-o", "Dir::Etc::SourceList=" + filepath.Join(a.dir, "sources.list"),
		"-o", "Dir::Etc::SourceParts=" + filepath.Join(a.dir, "sources.list.d"),
		"-o", "Dir::State::Lists=" + filepath.Join(a.dir, "lists"),
		"-o", "Dir::State::Status=/dev/null",
		"-o", "Dir::Cache=" + filepath.Join(a.dir, "cache"),
		"-o", "APT::Architectures::=amd64",
		"-o", "APT::Architectures::=arm64",
		"-o", "APT::Sandbox::User=root",
		"-o", "Debug::NoLocking=1",
	}
}

// update writes the sources from the host's Debian mirror and fetches
// the package lists, unless they are less than a day old.
func (a *apt) update(stderr io.Writer) error {
	for _, d := range []string{"sources.list.d", "lists/partial", "cache/archives/partial"} {
		if err := os.MkdirAll(filepath.Join(a.dir, d), 0o755); err != nil {
			return err
		}
	}
	src, err := hostMirrors()
	if err != nil {
		return unavailable(err)
	}
	list := src.sourcesList()
	path := filepath.Join(a.dir, "sources.list")
	old, _ := os.ReadFile(path)
	stamp := filepath.Join(a.dir, "lists", "updated")
	if fi, err := os.Stat(stamp); err == nil && bytes.Equal(old, list) && time.Since(fi.ModTime()) < 24*time.Hour {
		return nil
	}
	if err := os.WriteFile(path, list, 0o644); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "vmtest: apt-get update (kernel suites)")
	if out, err := a.run("apt-get", "-q", "update"); err != nil {
		return unavailable(fmt.Errorf("apt-get update: %w\n%s", err, out))
	}
	return os.WriteFile(stamp, nil, 0o644)
}

// run runs apt-get or apt-cache with the private configuration in dir.
func (a *apt) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, append(a.options(), args...)...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return errb.Bytes(), err
	}
	return out.Bytes(), nil
}

// latest returns the newest version of the package pkg (NAME:ARCH)
// whose version starts with prefix.
func (a *apt) latest(pkg, prefix string) (string, error) {
	out, err := a.run("apt-cache", "madison", pkg)
	if err != nil {
		return "", unavailable(fmt.Errorf("apt-cache madison %s: %w: %s", pkg, err, out))
	}
	// madison lists the newest first: "NAME | VERSION | URI SUITE ...".
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 3 {
			continue
		}
		if v := strings.TrimSpace(f[1]); strings.HasPrefix(v, prefix) {
			return v, nil
		}
	}
	return "", unavailable(fmt.Errorf("no version %s* of %s", prefix, pkg))
}

// dependsRe is the package of a kernel metapackage's Depends.
var dependsRe = regexp.MustCompile(`^Depends: (linux-image-[^ ,]+) \(= ([^)]+)\)`)

// imagePackage returns the kernel image package, with its version, that
// the metapackage pkg at version depends on.
func (a *apt) imagePackage(pkg, version string) (name, ver string, err error) {
	out, err := a.run("apt-cache", "show", pkg+"="+version)
	if err != nil {
		return "", "", unavailable(fmt.Errorf("apt-cache show %s=%s: %w: %s", pkg, version, err, out))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := dependsRe.FindStringSubmatch(sc.Text()); m != nil {
			return m[1], m[2], nil
		}
	}
	return "", "", fmt.Errorf("%s=%s depends on no kernel image", pkg, version)
}

// download downloads the package pkg (NAME:ARCH) at version into dir,
// unless it is there, and returns the .deb's path.
func (a *apt) download(dir, pkg, version string) (string, error) {
	name, arch, _ := strings.Cut(pkg, ":")
	// apt names a file NAME_VERSION_ARCH.deb, the epoch's colon escaped.
	file := fmt.Sprintf("%s_%s_%s.deb", name, strings.ReplaceAll(version, ":", "%3a"), arch)
	path := filepath.Join(dir, file)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("apt-get", append(a.options(), "-q", "download", pkg+"="+version)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", unavailable(fmt.Errorf("apt-get download %s=%s: %w\n%s", pkg, version, err, out))
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("apt-get download %s=%s: %w", pkg, version, err)
	}
	return path, nil
}
