package symbolize_test

import (
	"path/filepath"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

func TestCache(t *testing.T) {
	dir := t.TempDir()
	prog := buildProg(t, dir)
	cp := filepath.Join(t.TempDir(), "copy")
	copyFile(t, prog, cp)

	c := symbolize.NewCache(nil, 0)
	a, err := c.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Open(cp)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || c.Len() != 1 || c.Bytes() <= 0 {
		t.Errorf("two paths of one build: objects %p %p, Len() = %d, Bytes() = %d, want one object kept", a, b, c.Len(), c.Bytes())
	}

	// A bound below any object keeps none, and objects are read all the
	// same.
	small := symbolize.NewCache(nil, 1)
	for range 2 {
		o, err := small.Open(prog)
		if err != nil || o.Len() == 0 {
			t.Fatalf("Open(%s) = %d symbols, %v", prog, o.Len(), err)
		}
	}
	if small.Len() != 0 || small.Bytes() != 0 {
		t.Errorf("Len() = %d, Bytes() = %d with a bound of 1 byte, want 0", small.Len(), small.Bytes())
	}

	// A bound of one object's size keeps the last used.
	other := filepath.Join(t.TempDir(), "other")
	buildProg(t, filepath.Dir(other), "-DOTHER", "-Wl,--build-id=0xabcdef01")
	one := symbolize.NewCache(nil, c.Bytes()+c.Bytes()/2)
	for _, p := range []string{prog, filepath.Join(filepath.Dir(other), "prog")} {
		if _, err := one.Open(p); err != nil {
			t.Fatal(err)
		}
	}
	if one.Len() != 1 {
		t.Errorf("Len() = %d with room for one object, want 1", one.Len())
	}
}
