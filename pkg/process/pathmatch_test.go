package process

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPathMatcher(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libwork.so.1")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := StatID(lib)
	if err != nil {
		t.Fatal(err)
	}
	// As a process in another mount namespace would map it: another
	// path, the same file.
	mapped := Object{Path: "/opt/lib/libwork.so.1", Dev: id.Dev, Inode: id.Inode}
	other := Object{Path: "/usr/lib/libother.so", Dev: id.Dev, Inode: id.Inode + 1}
	overlay := Object{Path: "/usr/lib/libother.so", Dev: 1, Inode: 1}
	for _, tt := range []struct {
		name, resolved string
		o              Object
		want           bool
	}{
		{lib, lib, mapped, true},                      // same file
		{"libwork.so.1", "", mapped, true},            // base name
		{"libwork.so", "", mapped, true},              // without version
		{"libwork", "", mapped, true},                 // without suffix
		{"libwor", "", mapped, false},                 // not a prefix at a dot
		{"libwork.so.1", "", other, false},            //
		{"/usr/lib/libother.so", lib, overlay, true},  // the path mapped
		{"/usr/lib/libother.so/", lib, overlay, true}, // cleaned
		{"./libwork.so.1", lib, mapped, true},         // relative, by file
		{filepath.Join(dir, "x/../libwork.so.1"), lib, other, false},
	} {
		m, err := NewPathMatcher(os.Getpid(), tt.name, tt.resolved)
		if err != nil {
			t.Errorf("NewPathMatcher(%q): %v", tt.name, err)
			continue
		}
		if got := m.Match(&tt.o); got != tt.want {
			t.Errorf("%q matches %s (%d:%d): %v, want %v", tt.name, tt.o.Path, tt.o.Dev, tt.o.Inode, got, tt.want)
		}
	}
	if _, err := NewPathMatcher(os.Getpid(), "./nothing/here.so", ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a path to no file: %v, want ErrNotExist", err)
	}
}
