package attach

import (
	"testing"

	"github.com/sdtkit/sdtkit/pkg/bpf"
)

// TestLimits checks that the limits are the BPF program's.
func TestLimits(t *testing.T) {
	for _, tt := range []struct {
		name      string
		got, want int
	}{
		{"DefaultStringSize", DefaultStringSize, bpf.DefaultStringSize},
		{"MaxStringSize", MaxStringSize, bpf.MaxStringSize},
		{"DefaultRingSize", DefaultRingSize, bpf.DefaultRingSize},
		{"MaxRingSize", MaxRingSize, bpf.MaxRingSize},
		{"DefaultMaxKeys", DefaultMaxKeys, bpf.DefaultMaxKeys},
		{"MaxKeys", MaxKeys, bpf.MaxKeys},
		{"MaxKeyParts", MaxKeyParts, bpf.MaxKeyParts},
		{"the room for libraries' sites", dlopenRoom, 4096},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}
