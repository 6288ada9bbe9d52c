package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// busyboxApplets are the commands the tests run (sh, true, sleep, ...)
// that a guest without the host's root gets from busybox.
var busyboxApplets = []string{"sh", "true", "false", "sleep", "cat", "echo", "env", "kill", "ls"}

// fetchBusybox returns Debian's static busybox for arch, downloaded and
// unpacked into cache once.
func fetchBusybox(a *apt, cache, arch string) (string, error) {
	pkg := "busybox-static:" + arch
	version, err := a.latest(pkg, "")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "busybox", arch+"_"+version)
	bin := filepath.Join(dir, "busybox")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	deb, err := a.download(filepath.Join(cache, "debs"), pkg, version)
	if err != nil {
		return "", err
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("dpkg-deb", "-x", deb, tmp).CombinedOutput(); err != nil {
		return "", fmt.Errorf("dpkg-deb -x %s: %w: %s", deb, err, out)
	}
	for _, p := range []string{"bin/busybox", "usr/bin/busybox"} {
		if _, err := os.Stat(filepath.Join(tmp, p)); err == nil {
			return bin, copyFile(filepath.Join(tmp, p), bin)
		}
	}
	return "", fmt.Errorf("%s: no busybox", deb)
}
