package vmcheck

import (
	"reflect"
	"testing"
)

func TestParseLine(t *testing.T) {
	r := Result{Check: "go test pkg/bpf", Status: Fail, Reason: "failed: TestA", Seconds: 1.5, Failed: []string{"TestA"}}
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{r.Line(), true},
		{"[   12.5] a kernel line ending in " + r.Line(), true},
		{"[   12.5] reboot: Restarting system", false},
	} {
		got, ok, err := ParseLine(tt.line)
		if err != nil || ok != tt.ok {
			t.Errorf("ParseLine(%q) = %v, %v, want ok %v", tt.line, ok, err, tt.ok)
			continue
		}
		if ok && !reflect.DeepEqual(got, r) {
			t.Errorf("ParseLine(%q) = %+v, want %+v", tt.line, got, r)
		}
	}
	if _, ok, err := ParseLine("vmtest-result {"); !ok || err == nil {
		t.Errorf("ParseLine of a cut line = %v, %v, want true and an error", ok, err)
	}
}
