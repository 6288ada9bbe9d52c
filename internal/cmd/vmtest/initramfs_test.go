package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testchain"
	"github.com/sdtkit/sdtkit/internal/testdemo"
)

// TestSharedTestdata checks that the initramfs holds the fixtures the
// tests look for outside their own package, where they look.
func TestSharedTestdata(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{testchain.Source(), filepath.Dir(testdemo.Source())} {
		rel, err := filepath.Rel(repo, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(sharedTestdata, rel) {
			t.Errorf("sharedTestdata = %q, want %s in it", sharedTestdata, rel)
		}
	}
}
