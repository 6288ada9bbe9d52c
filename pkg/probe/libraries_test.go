package probe

import (
	"os"
	"testing"
)

// Libraries a process does not map yet are searched by PROVIDER:NAME as
// if it mapped them, each once, and by PATH by their base name.
func TestFindLibraries(t *testing.T) {
	for _, spec := range []string{"demo:tick", "demo:demo:tick"} {
		sel, err := Find(specs(t, spec), &Options{PID: os.Getpid(), Libraries: []string{demo, demo}})
		if err != nil {
			t.Fatalf("Find(%s) with Libraries = %v", spec, err)
		}
		if len(sel.Probes) != 1 || sel.Probes[0].Target.Name != demo || len(sel.Probes[0].Sites) != 2 {
			t.Errorf("Find(%s) with Libraries = %d probes, want demo:tick of %s with 2 sites", spec, len(sel.Probes), demo)
		}
	}
	if _, err := Find(specs(t, "demo:tick"), &Options{PID: os.Getpid(), Libraries: []string{"missing.so"}}); err == nil {
		t.Error("Find with a missing library = nil error, want one")
	}
}
