package stapsdt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiles reads a file, an archive and what is neither as Files yields
// them: names, sites, the data of members, and errors in order.
func TestFiles(t *testing.T) {
	demo, err := os.ReadFile("testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libdemo.a")
	ar := gnuArchive(arMember{"demo.o", string(demo)}, arMember{"README", "text\n"}, arMember{"b.o", string(demo)})
	if err := os.WriteFile(lib, ar, 0o644); err != nil {
		t.Fatal(err)
	}
	thin := filepath.Join(dir, "thin.a")
	if err := os.WriteFile(thin, []byte("!<thin>\n"+arHeader("a.o/", 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	type yielded struct {
		name  string // "" for no NamedFile
		sites int
		data  bool
		err   string // a part of the error, "" for none
	}
	for _, tt := range []struct {
		name string
		want []yielded
	}{
		{"testdata/demo", []yielded{{name: "testdata/demo", sites: 3}}},
		{lib, []yielded{
			{name: lib + "(demo.o)", sites: 3, data: true},
			{err: lib + "(README): not an ELF file"},
			{name: lib + "(b.o)", sites: 3, data: true},
		}},
		{thin, []yielded{{err: ErrThinArchive.Error()}}},
		{filepath.Join(dir, "missing"), []yielded{{err: "no such file or directory"}}},
	} {
		var got []yielded
		for nf, err := range Files(tt.name) {
			var y yielded
			if nf != nil {
				y = yielded{name: nf.Name, sites: len(nf.File.Sites), data: nf.Data != nil}
				if nf.Data != nil {
					b := make([]byte, 4)
					if _, err := nf.Data.ReadAt(b, 0); err != nil || string(b) != "\x7fELF" {
						t.Errorf("Files(%s): %s: Data reads % x, %v; want the member's ELF magic", tt.name, nf.Name, b, err)
					}
				}
			}
			if err != nil {
				y.err = err.Error()
			}
			got = append(got, y)
		}
		if len(got) != len(tt.want) {
			t.Errorf("Files(%s) yields %+v, want %+v", tt.name, got, tt.want)
			continue
		}
		for i, w := range tt.want {
			g := got[i]
			if g.name != w.name || g.sites != w.sites || g.data != w.data || (w.err == "") != (g.err == "") || !strings.Contains(g.err, w.err) {
				t.Errorf("Files(%s) yield %d = %+v, want %+v", tt.name, i, g, w)
			}
		}
	}
}

// A loop that stops early ends the iteration: an iterator that yields
// once more makes the loop panic.
func TestFilesStop(t *testing.T) {
	demo, err := os.ReadFile("testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "libdemo.a")
	if err := os.WriteFile(lib, gnuArchive(arMember{"a.o", string(demo)}, arMember{"b.o", string(demo)}), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for range Files(lib) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("Files(%s) yielded %d files before the break, want 1", lib, n)
	}
}
