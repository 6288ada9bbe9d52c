package probespec

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	lib := filepath.Join(dir, "lib")
	conf := filepath.Join(dir, "ld.so.conf")
	for _, d := range []string{bin, lib, filepath.Join(dir, "conf.d"), filepath.Join(dir, "extra")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "tool"), 0o755)
	write(filepath.Join(bin, "notexec"), 0o644)
	write(filepath.Join(lib, "libfoo.so.1"), 0o644)
	write(filepath.Join(lib, "libfoo.so.1.2.3"), 0o644)
	write(filepath.Join(dir, "extra", "libbar.so"), 0o644)
	write(conf, 0o644)
	os.WriteFile(conf, []byte("# comment\ninclude conf.d/*.conf\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "conf.d", "x.conf"), []byte(filepath.Join(dir, "extra")+"\n"), 0o644)

	r := &resolver{path: []string{bin}, libPath: append([]string{lib}, ldSoConf(conf, 0)...)}
	for _, tt := range []struct {
		name, want string
	}{
		{"tool", filepath.Join(bin, "tool")},
		{"libfoo.so", filepath.Join(lib, "libfoo.so.1")},
		{"libfoo", filepath.Join(lib, "libfoo.so.1")},
		{"libfoo.so.1.2.3", filepath.Join(lib, "libfoo.so.1.2.3")},
		{"libbar.so", filepath.Join(dir, "extra", "libbar.so")},
		{filepath.Join(bin, "notexec"), filepath.Join(bin, "notexec")},
	} {
		got, err := r.resolve(tt.name)
		if err != nil || got != tt.want {
			t.Errorf("resolve(%q) = %q, %v, want %q", tt.name, got, err, tt.want)
		}
	}
	for _, name := range []string{"notexec", "nosuch", "", filepath.Join(dir, "nosuch")} {
		if got, err := r.resolve(name); err == nil {
			t.Errorf("resolve(%q) = %q, want an error", name, got)
		} else if name != filepath.Join(dir, "nosuch") && !errors.Is(err, ErrNotFound) {
			t.Errorf("resolve(%q) error = %v, want ErrNotFound", name, err)
		}
	}
}

func TestResolveHost(t *testing.T) {
	// The shell is on every machine these tools run on.
	p, err := Resolve("sh")
	if err != nil {
		t.Fatalf("Resolve(sh) = %v", err)
	}
	if filepath.Base(p) != "sh" {
		t.Errorf("Resolve(sh) = %q", p)
	}
}
