package bpf

import (
	"strings"
	"testing"
)

// Options out of range are refused before anything is asked of the
// kernel, so this needs no privilege.
func TestLoadBadOptions(t *testing.T) {
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{MaxSites: SiteLimit + 1}, "site count 1048577 not in [1, 1048576]"},
		{Options{MaxSites: -1}, "site count -1 not in [1, 1048576]"},
		{Options{StringSize: MaxStringSize + 1}, "string size 255 not in [1, 254]"},
		{Options{RingSize: 3 << 12}, "ring size 12288 not a power of two multiple of the page size"},
		{Options{PID: -2}, "bad pid -2"},
	} {
		p, err := Load(&tt.opts)
		if p != nil {
			p.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%+v) = %v, want %s", tt.opts, err, tt.want)
		}
	}
}

func TestRingSizeFor(t *testing.T) {
	for _, tt := range []struct{ copy, want int }{
		{0, DefaultRingSize},
		{64, DefaultRingSize},
		{512, 4 << 20},
		{2048, 16 << 20},
		{4096, 32 << 20},
		{DefaultStackCopy, 64 << 20},
		{MaxStackCopy, MaxCopyRingSize},
		{MaxStackCopy + 1, MaxCopyRingSize},
	} {
		if got := RingSizeFor(tt.copy); got != tt.want {
			t.Errorf("RingSizeFor(%d) = %d, want %d", tt.copy, got, tt.want)
		}
	}
}
