package semaphore

import (
	"errors"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/process"
)

func TestAdd(t *testing.T) {
	for _, tt := range []struct {
		v     uint16
		delta int
		want  uint16
		err   error
	}{
		{0, 1, 1, nil},
		{1, -1, 0, nil},
		{0, -1, 0, ErrUnderflow},
		{65534, 1, 65535, nil},
		{65535, 1, 65535, ErrOverflow},
	} {
		got, err := add(tt.v, tt.delta)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("add(%d, %d) = %d, %v, want %d, %v", tt.v, tt.delta, got, err, tt.want, tt.err)
		}
	}
}

func TestCheck(t *testing.T) {
	const dev, inode = 0xfe00, 42
	data := process.Mapping{Start: 0x5000, End: 0x6000, Perms: "rw-p", Offset: 0x3000, Dev: dev, Inode: inode, Path: "/bin/x"}
	text := process.Mapping{Start: 0x1000, End: 0x2000, Perms: "r-xp", Offset: 0, Dev: dev, Inode: inode, Path: "/bin/x"}
	shared := data
	shared.Perms = "rw-s"
	other := data
	other.Inode = 7
	for _, tt := range []struct {
		name      string
		maps      []process.Mapping
		off, addr uint64
		ok        bool
	}{
		{"private writable", []process.Mapping{text, data}, 0x3010, 0x5010, true},
		{"odd address", []process.Mapping{data}, 0x3011, 0x5011, false},
		{"read-only", []process.Mapping{text}, 0x10, 0x1010, false},
		{"shared", []process.Mapping{shared}, 0x3010, 0x5010, false},
		{"other file", []process.Mapping{other}, 0x3010, 0x5010, false},
		{"wrong offset", []process.Mapping{data}, 0x3020, 0x5010, false},
		{"unmapped", []process.Mapping{data}, 0x3010, 0x7010, false},
		{"last byte", []process.Mapping{data}, 0x3fff, 0x5fff, false},
		{"last pair", []process.Mapping{data}, 0x3ffe, 0x5ffe, true},
	} {
		reason := check(tt.maps, dev, inode, tt.off, tt.addr)
		if (reason == "") != tt.ok {
			t.Errorf("%s: check(%#x, %#x) = %q, want ok %v", tt.name, tt.off, tt.addr, reason, tt.ok)
		}
	}
}
