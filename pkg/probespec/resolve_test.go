package probespec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	elfFile, err := os.ReadFile("../stapsdt/testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	writeELF := func(p string) {
		if err := os.WriteFile(p, elfFile, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeELF(filepath.Join(lib, "libfoo.so.1"))
	writeELF(filepath.Join(lib, "libfoo.so.1.2.3"))
	writeELF(filepath.Join(dir, "extra", "libbar.so"))
	// A -dev package's linker script, and a library with glob
	// characters in its name.
	os.WriteFile(filepath.Join(lib, "libfoo.so"), []byte("/* GNU ld script */\nGROUP ( libfoo.so.1 )\n"), 0o644)
	writeELF(filepath.Join(lib, "libpy[3].so.1"))
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
		{"libpy[3].so", filepath.Join(lib, "libpy[3].so.1")},
		{filepath.Join(bin, "notexec"), filepath.Join(bin, "notexec")},
	} {
		got, err := r.resolve(tt.name)
		if err != nil || got != tt.want {
			t.Errorf("resolve(%q) = %q, %v, want %q", tt.name, got, err, tt.want)
		}
	}
	// Glob characters are literal: none of these is a file.
	for _, name := range []string{"notexec", "nosuch", "", filepath.Join(dir, "nosuch"), "*foo*", "libfo?", "libpy*", "lib[f]oo", filepath.Join(lib, "libfoo.so.*")} {
		if got, err := r.resolve(name); err == nil {
			t.Errorf("resolve(%q) = %q, want an error", name, got)
		} else if !strings.ContainsRune(name, '/') && !errors.Is(err, ErrNotFound) {
			t.Errorf("resolve(%q) error = %v, want ErrNotFound", name, err)
		}
	}
}

func TestResolveScript(t *testing.T) {
	bin := t.TempDir()
	for _, tt := range []struct{ name, text, interp string }{
		{"py", "#!/usr/bin/env python3.11\nprint(1)\n", "/usr/bin/env python3.11"},
		{"sh", "#! /bin/sh -e\n", "/bin/sh -e"},
		{"bare", "#!\n", "an interpreter"},
	} {
		if err := os.WriteFile(filepath.Join(bin, tt.name), []byte(tt.text), 0o755); err != nil {
			t.Fatal(err)
		}
		r := &resolver{path: []string{bin}}
		got, err := r.resolve(tt.name)
		var se *ScriptError
		if !errors.As(err, &se) || se.Interpreter != tt.interp || se.Path != filepath.Join(bin, tt.name) {
			t.Errorf("resolve(%q) = %q, %v, want a ScriptError with interpreter %q", tt.name, got, err, tt.interp)
			continue
		}
		if want := "not an ELF file to trace"; !strings.Contains(err.Error(), want) {
			t.Errorf("resolve(%q) = %v, want an error containing %q", tt.name, err, want)
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
