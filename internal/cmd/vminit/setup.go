package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// readPlan reads the plan at path.
func readPlan(path string) (*vmcheck.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	var p vmcheck.Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	return &p, nil
}

// A mount is one file system init mounts.
type mount struct {
	source, target, fstype string
	flags                  uintptr
	data                   string
	optional               bool // a kernel without it still runs the checks
}

var mounts = []mount{
	{"proc", "/proc", "proc", 0, "", false},
	{"sysfs", "/sys", "sysfs", 0, "", false},
	{"devtmpfs", "/dev", "devtmpfs", 0, "", false},
	{"tmpfs", "/tmp", "tmpfs", 0, "mode=1777", false},
	{"tmpfs", "/run", "tmpfs", 0, "mode=755", false},
	{"tracefs", "/sys/kernel/tracing", "tracefs", 0, "", true},
	{"debugfs", "/sys/kernel/debug", "debugfs", 0, "", true},
	{"bpffs", "/sys/fs/bpf", "bpf", 0, "", true},
	{"cgroup2", "/sys/fs/cgroup", "cgroup2", 0, "", true},
}

// setup makes the guest a place to trace in: file systems, modules,
// the host's root.
func setup(p *vmcheck.Plan) error {
	for _, m := range mounts {
		if err := os.MkdirAll(m.target, 0o755); err != nil && !m.optional {
			return fmt.Errorf("mkdir %s: %w", m.target, err)
		}
		if err := unix.Mount(m.source, m.target, m.fstype, m.flags, m.data); err != nil {
			if m.optional {
				fmt.Printf("vminit: mount %s: %v\n", m.target, err)
				continue
			}
			return fmt.Errorf("mount %s on %s: %w", m.fstype, m.target, err)
		}
	}
	for _, mod := range p.Modules {
		if err := loadModule(mod); err != nil {
			return err
		}
	}
	if p.HostRoot != "" {
		if err := mountHostRoot(p.HostRoot); err != nil {
			return err
		}
	}
	if err := loopbackUp(); err != nil {
		// The tests that serve on 127.0.0.1 fail and say why.
		fmt.Printf("vminit: %v\n", err)
	}
	os.Setenv("PATH", p.Bin+":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	os.Setenv("HOME", "/root")
	os.Setenv("TMPDIR", "/tmp")
	return os.MkdirAll("/root", 0o700)
}

// loadModule loads the kernel module at path.
func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("module: %w", err)
	}
	defer f.Close()
	if err := unix.FinitModule(int(f.Fd()), "", 0); err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("load module %s: %w", path, err)
	}
	return nil
}

// mountHostRoot mounts the host's root, shared over 9p with tag, on
// /host, read-only, and its /usr and /etc over the guest's: the
// initramfs links /bin, /lib and /lib64 into /usr, as the host does.
func mountHostRoot(tag string) error {
	if err := os.MkdirAll("/host", 0o755); err != nil {
		return err
	}
	opts := "trans=virtio,version=9p2000.L,msize=262144,cache=loose"
	if err := unix.Mount(tag, "/host", "9p", unix.MS_RDONLY, opts); err != nil {
		return fmt.Errorf("mount the host's root (9p %s): %w", tag, err)
	}
	for _, dir := range []string{"/usr", "/etc"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := unix.Mount("/host"+dir, dir, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind the host's %s: %w", dir, err)
		}
	}
	return nil
}

// loopbackUp brings the loopback interface up, which no init of the
// kernel's does: sdtattach --listen serves on 127.0.0.1.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}
