package launch

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSearchDirs(t *testing.T) {
	l := &loader{libPath: []string{"/env"}, system: []string{"/lib"}}
	exe := &object{rpath: []string{"/exe-rpath"}}
	for _, tt := range []struct {
		name string
		o    *object
		want []string
	}{
		{"executable", exe, []string{"/exe-rpath", "/env", "/lib"}},
		{"library with rpath", &object{rpath: []string{"/r"}}, []string{"/r", "/exe-rpath", "/env", "/lib"}},
		// DT_RUNPATH turns DT_RPATH off, the executable's included.
		{"library with runpath", &object{rpath: []string{"/r"}, runpath: []string{"/run"}}, []string{"/env", "/run", "/lib"}},
		{"plain library", &object{}, []string{"/exe-rpath", "/env", "/lib"}},
	} {
		if got := l.searchDirs(tt.o, exe); !slices.Equal(got, tt.want) {
			t.Errorf("searchDirs(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestExpandOrigin(t *testing.T) {
	got := expandOrigin([]string{"$ORIGIN/../lib", "${ORIGIN}", "/opt/$LIB", "/abs"}, "/app/bin")
	want := []string{"/app/bin/../lib", "/app/bin", "/opt/$LIB", "/abs"}
	if !slices.Equal(got, want) {
		t.Errorf("expandOrigin = %q, want %q", got, want)
	}
}

func TestSplitPath(t *testing.T) {
	for _, tt := range []struct {
		in, seps string
		want     []string
	}{
		{"/a:/b::/c", ":", []string{"/a", "/b", "/c"}},
		{"liba.so libb.so:libc.so", ": ", []string{"liba.so", "libb.so", "libc.so"}},
		{"", ":", nil},
	} {
		if got := splitPath(tt.in, tt.seps); !slices.Equal(got, tt.want) {
			t.Errorf("splitPath(%q, %q) = %q, want %q", tt.in, tt.seps, got, tt.want)
		}
	}
}

// TestLibrariesSystem finds the C library of a program of the system, as
// its dynamic loader does.
func TestLibrariesSystem(t *testing.T) {
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip("requires /bin/sh")
	}
	libs, err := Libraries(sh, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) == 0 {
		t.Skipf("requires a dynamically linked /bin/sh (%s is static)", sh)
	}
	if !slices.ContainsFunc(libs, func(p string) bool { return strings.HasPrefix(filepath.Base(p), "libc.") }) {
		t.Errorf("Libraries(%s) = %q, want the C library among them", sh, libs)
	}
	pre, err := Libraries(sh, []string{"LD_PRELOAD=" + libs[0]})
	if err != nil {
		t.Fatal(err)
	}
	if pre[0] != libs[0] {
		t.Errorf("Libraries(%s) with LD_PRELOAD=%s = %q, want it first", sh, libs[0], pre)
	}
}

func TestLibrariesNotELF(t *testing.T) {
	if _, err := Libraries("libraries_test.go", nil); err == nil {
		t.Error("Libraries(libraries_test.go) = nil error, want one")
	}
}
