package bpf

import "testing"

func TestAttachRequestCookie(t *testing.T) {
	for _, tt := range []struct {
		req  attachRequest
		i    int
		want uint64
	}{
		{attachRequest{First: 0}, 0, 0},
		{attachRequest{First: 3}, 2, 5},
		{attachRequest{First: 3, High: []uint32{7, 0}}, 0, 7<<32 | 3},
		{attachRequest{First: 3, High: []uint32{7, 0}}, 1, 4},
		{attachRequest{First: 4095, High: []uint32{0xffffffff}}, 0, 0xffffffff<<32 | 4095},
	} {
		if got := tt.req.cookie(tt.i); got != tt.want {
			t.Errorf("attachRequest{First: %d, High: %v}.cookie(%d) = %#x, want %#x", tt.req.First, tt.req.High, tt.i, got, tt.want)
		}
	}
}
