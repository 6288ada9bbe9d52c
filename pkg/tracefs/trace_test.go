package tracefs

import (
	"slices"
	"testing"
)

func TestParseFormat(t *testing.T) {
	const text = `name: all
ID: 2326
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;
	field:__data_loc char[] comm;	offset:16;	size:4;	signed:1;
	field:s32 arg0;	offset:20;	size:4;	signed:1;
	field:u64 arg2;	offset:28;	size:8;	signed:0;

print fmt: "(%lx)", REC->__probe_ip
`
	f, err := ParseFormat([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if f.ID != 2326 {
		t.Errorf("ID = %d, want 2326", f.ID)
	}
	for _, tt := range []struct {
		name string
		want Field
	}{
		{"comm", Field{Name: "comm", Offset: 16, Size: 4, Signed: true, Dynamic: true}},
		{"arg0", Field{Name: "arg0", Offset: 20, Size: 4, Signed: true}},
		{"arg2", Field{Name: "arg2", Offset: 28, Size: 8}},
		{"common_pid", Field{Name: "common_pid", Offset: 4, Size: 4, Signed: true}},
	} {
		got := f.Field(tt.name)
		if got == nil || *got != tt.want {
			t.Errorf("Field(%q) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if f.Field("arg1") != nil {
		t.Errorf("Field(arg1) = %+v, want nil", f.Field("arg1"))
	}
	if _, err := ParseFormat([]byte("format:\n")); err == nil {
		t.Error("ParseFormat without ID: no error")
	}
}

func TestParseMountinfo(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"42 23 0:13 / /sys/kernel/tracing rw,relatime - tracefs nodev rw\n", "/sys/kernel/tracing"},
		{"1 0 0:1 / / rw - ext4 /dev/sda rw\n7 1 0:9 / /mnt/my\\040trace rw shared:2 - tracefs tracefs rw\n", "/mnt/my trace"},
		{"1 0 0:1 / / rw - ext4 /dev/sda rw\n", ""},
	} {
		if got := parseMountinfo([]byte(tt.in)); got != tt.want {
			t.Errorf("parseMountinfo(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGroupOwner(t *testing.T) {
	for _, tt := range []struct {
		group string
		pid   int
		ok    bool
	}{
		{"sdtkit_123", 123, true},
		{OwnerGroup(7), 7, true},
		{"sdtkit_test", 0, false},
		{"sdtkit_test_123", 0, false},
		{"sdtkit_0123", 0, false},
		{"sdtkit_123_x", 0, false},
		{"sdtkit_", 0, false},
		{"sdt_123", 0, false},
		{"sdtkit_99999999999", 0, false},
	} {
		pid, ok := groupOwner(tt.group)
		if pid != tt.pid || ok != tt.ok {
			t.Errorf("groupOwner(%q) = %d, %v, want %d, %v", tt.group, pid, ok, tt.pid, tt.ok)
		}
	}
}

func TestParseEvents(t *testing.T) {
	in := "p:sdtkit_1/a /bin/x:0x10 arg0=%di:s32\nr:g/b /bin/y:0x20\n\np:sdtkit_1/c /bin/x:0x30(0x40)\n"
	want := []string{"sdtkit_1/a", "g/b", "sdtkit_1/c"}
	if got := parseEvents([]byte(in)); !slices.Equal(got, want) {
		t.Errorf("parseEvents = %q, want %q", got, want)
	}
}

func TestParseCPUList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
	}{
		{"0\n", []int{0}},
		{"0-3\n", []int{0, 1, 2, 3}},
		{"0,2-3,8\n", []int{0, 2, 3, 8}},
	} {
		got, err := parseCPUList(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("parseCPUList(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := parseCPUList("3-1"); err == nil {
		t.Error("parseCPUList(3-1): no error")
	}
}
