package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// An image is a kernel ready to boot: its vmlinuz and the modules the
// guest loads, in the order they load.
type image struct {
	pkg     string // the Debian package and version it came from
	release string // as uname -r says
	vmlinuz string
	modules []string
}

// fetchKernel downloads k's newest Debian package of its series into
// cache and extracts the kernel and the modules k needs, once.
func fetchKernel(a *apt, cache string, k kernel) (*image, error) {
	meta := k.metapackage()
	version, err := a.latest(meta, k.version+".")
	if err != nil {
		return nil, err
	}
	name, ver, err := a.imagePackage(meta, version)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, "kernels", name+"_"+ver)
	img := &image{pkg: name + " " + ver, vmlinuz: filepath.Join(dir, "vmlinuz")}
	stamp := filepath.Join(dir, "modules.order")
	if b, err := os.ReadFile(stamp); err == nil {
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) >= 2 && lines[0] == "want "+strings.Join(k.modules, " ") {
			img.release = strings.TrimPrefix(lines[1], "release ")
			for _, m := range lines[2:] {
				img.modules = append(img.modules, filepath.Join(dir, "modules", m+".ko"))
			}
			return img, nil
		}
	}
	deb, err := a.download(filepath.Join(cache, "debs"), name+":"+k.arch, ver)
	if err != nil {
		return nil, err
	}
	if err := extract(deb, dir, k.modules, img); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return img, nil
}

// extract unpacks deb into a scratch directory, keeps the kernel and
// the modules of want with their dependencies in dir, and records them.
func extract(deb, dir string, want []string, img *image) error {
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Join(dir, "modules"), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("dpkg-deb", "-x", deb, tmp).CombinedOutput(); err != nil {
		return fmt.Errorf("dpkg-deb -x: %w: %s", err, out)
	}
	kernels, _ := filepath.Glob(filepath.Join(tmp, "boot", "vmlinuz-*"))
	if len(kernels) != 1 {
		return fmt.Errorf("%s: %d kernels in /boot, want 1", deb, len(kernels))
	}
	img.release = strings.TrimPrefix(filepath.Base(kernels[0]), "vmlinuz-")
	if err := copyFile(kernels[0], img.vmlinuz); err != nil {
		return err
	}
	var modTree string
	for _, d := range []string{"lib/modules", "usr/lib/modules"} {
		if p := filepath.Join(tmp, d, img.release); isDir(p) {
			modTree = p
		}
	}
	order := []string{}
	if len(want) > 0 {
		if modTree == "" {
			return fmt.Errorf("%s: no modules of %s", deb, img.release)
		}
		mods, err := resolveModules(modTree, want)
		if err != nil {
			return err
		}
		for _, m := range mods {
			path := filepath.Join(dir, "modules", m.name+".ko")
			if err := os.WriteFile(path, m.data, 0o644); err != nil {
				return err
			}
			img.modules = append(img.modules, path)
			order = append(order, m.name)
		}
	}
	stamp := "want " + strings.Join(want, " ") + "\nrelease " + img.release + "\n" + strings.Join(order, "\n")
	return os.WriteFile(filepath.Join(dir, "modules.order"), []byte(stamp+"\n"), 0o644)
}

// A module is a kernel module, uncompressed.
type module struct {
	name string
	data []byte
}

// resolveModules returns the modules of want found under tree, each
// after the modules it depends on.
func resolveModules(tree string, want []string) ([]module, error) {
	index := map[string]string{}
	err := filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if name, ok := moduleName(d.Name()); ok {
			index[name] = path
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Modules built into the kernel: 6.12's virtio_pci.
	builtin := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(tree, "modules.builtin")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if name, ok := moduleName(filepath.Base(l)); ok {
				builtin[name] = true
			}
		}
	}
	var mods []module
	seen := map[string]bool{}
	var visit func(name string, from string) error
	visit = func(name, from string) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		path, ok := index[name]
		if !ok && builtin[name] {
			return nil
		}
		if !ok {
			if from == "" {
				return fmt.Errorf("module %s: not in %s", name, tree)
			}
			return fmt.Errorf("module %s, which %s depends on: not in %s", name, from, tree)
		}
		data, err := readModule(path)
		if err != nil {
			return err
		}
		deps, err := moduleDepends(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, d := range deps {
			if err := visit(d, name); err != nil {
				return err
			}
		}
		mods = append(mods, module{name, data})
		return nil
	}
	for _, w := range want {
		if err := visit(w, ""); err != nil {
			return nil, err
		}
	}
	return mods, nil
}

// moduleName returns the name the kernel gives the module file base.
func moduleName(base string) (string, bool) {
	for _, ext := range []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"} {
		if n, ok := strings.CutSuffix(base, ext); ok {
			return strings.ReplaceAll(n, "-", "_"), true
		}
	}
	return "", false
}

// readModule returns the module at path, uncompressed.
func readModule(path string) ([]byte, error) {
	var tool string
	switch filepath.Ext(path) {
	case ".ko":
		return os.ReadFile(path)
	case ".xz":
		tool = "xz"
	case ".zst":
		tool = "zstd"
	case ".gz":
		tool = "gzip"
	}
	out, err := exec.Command(tool, "-dc", path).Output()
	if err != nil {
		return nil, fmt.Errorf("%s -dc %s: %w", tool, path, err)
	}
	return out, nil
}

// moduleDepends returns the depends= list of a module's .modinfo.
func moduleDepends(data []byte) ([]string, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, fmt.Errorf("no .modinfo")
	}
	info, err := sec.Data()
	if err != nil {
		return nil, err
	}
	for _, kv := range bytes.Split(info, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok {
			if len(v) == 0 {
				return nil, nil
			}
			deps := strings.Split(string(v), ",")
			for i, d := range deps {
				deps[i] = strings.ReplaceAll(d, "-", "_")
			}
			return deps, nil
		}
	}
	return nil, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// copyFile copies src to dst.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
