package jsonfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.json")
	for _, v := range []map[string]int{{"x": 1}, {"x": 2}} {
		if err := Write(path, v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "{\"x\":2}\n" {
		t.Errorf("file = %q, %v, want the last record", b, err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	if err := Write(path, func() {}); err == nil {
		t.Error("Write of a func: no error")
	}
}
