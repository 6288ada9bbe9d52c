package process

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseMaps(t *testing.T) {
	for _, tt := range []struct {
		name string
		line string
		want Mapping
	}{
		{
			name: "executable",
			line: "7fd0e0939000-7fd0e0a8f000 r-xp 00026000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6",
			want: Mapping{Start: 0x7fd0e0939000, End: 0x7fd0e0a8f000, Perms: "r-xp", Offset: 0x26000, Dev: unix.Mkdev(0xfe, 0), Inode: 326269, Path: "/usr/lib/x86_64-linux-gnu/libc.so.6"},
		},
		{
			name: "spaces in path",
			line: "55c90c808000-55c90c80a000 rw-p 00002000 08:01 42                         /opt/my app/lib  two.so",
			want: Mapping{Start: 0x55c90c808000, End: 0x55c90c80a000, Perms: "rw-p", Offset: 0x2000, Dev: unix.Mkdev(8, 1), Inode: 42, Path: "/opt/my app/lib  two.so"},
		},
		{
			name: "deleted",
			line: "7f0000000000-7f0000001000 r-xp 00000000 103:02 9999                      /tmp/old.so (deleted)",
			want: Mapping{Start: 0x7f0000000000, End: 0x7f0000001000, Perms: "r-xp", Dev: unix.Mkdev(0x103, 2), Inode: 9999, Path: "/tmp/old.so (deleted)"},
		},
		{
			name: "memfd",
			line: "7f1234560000-7f1234570000 r-xp 00001000 00:01 2051                       /memfd:jit code (deleted)",
			want: Mapping{Start: 0x7f1234560000, End: 0x7f1234570000, Perms: "r-xp", Offset: 0x1000, Dev: unix.Mkdev(0, 1), Inode: 2051, Path: "/memfd:jit code (deleted)"},
		},
		{
			name: "vdso",
			line: "7ffd2a5f1000-7ffd2a5f3000 r-xp 00000000 00:00 0                          [vdso]",
			want: Mapping{Start: 0x7ffd2a5f1000, End: 0x7ffd2a5f3000, Perms: "r-xp", Path: "[vdso]"},
		},
		{
			name: "anonymous with trailing space",
			line: "7fd0e088e000-7fd0e08b0000 rw-p 00000000 00:00 0 ",
			want: Mapping{Start: 0x7fd0e088e000, End: 0x7fd0e08b0000, Perms: "rw-p"},
		},
		{
			name: "anonymous without trailing space",
			line: "7fd0e088e000-7fd0e08b0000 ---p 00000000 00:00 0",
			want: Mapping{Start: 0x7fd0e088e000, End: 0x7fd0e08b0000, Perms: "---p"},
		},
		{
			name: "32-bit addresses",
			line: "08048000-08049000 r-xp 00000000 08:01 1234       /bin/foo",
			want: Mapping{Start: 0x08048000, End: 0x08049000, Perms: "r-xp", Dev: unix.Mkdev(8, 1), Inode: 1234, Path: "/bin/foo"},
		},
		{
			name: "vsyscall",
			line: "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
			want: Mapping{Start: 0xffffffffff600000, End: 0xffffffffff601000, Perms: "--xp", Path: "[vsyscall]"},
		},
		{
			name: "shared",
			line: "7f0000000000-7f0000100000 rw-s 00000000 00:01 1025                       /SYSV00000000 (deleted)",
			want: Mapping{Start: 0x7f0000000000, End: 0x7f0000100000, Perms: "rw-s", Dev: unix.Mkdev(0, 1), Inode: 1025, Path: "/SYSV00000000 (deleted)"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMaps(strings.NewReader(tt.line + "\n"))
			if err != nil {
				t.Fatalf("ParseMaps(%q) error: %v", tt.line, err)
			}
			if want := []Mapping{tt.want}; !reflect.DeepEqual(got, want) {
				t.Errorf("ParseMaps(%q) = %+v, want %+v", tt.line, got, want)
			}
		})
	}
}

func TestParseMapsErrors(t *testing.T) {
	for _, tt := range []struct {
		line string
		want string // substring of the error
	}{
		{"7f00-7e00 r-xp 00000000 00:00 0", "end before start"},
		{"7f00 r-xp 00000000 00:00 0", "missing '-'"},
		{"zz-7f00 r-xp 00000000 00:00 0", "start address"},
		{"7e00-7f00 r-x 00000000 00:00 0", "permissions"},
		{"7e00-7f00 r-xp 0000g000 00:00 0", "offset"},
		{"7e00-7f00 r-xp 00000000 0000 0", "missing ':'"},
		{"7e00-7f00 r-xp 00000000 00:00 abc", "inode"},
		{"7e00-7f00 r-xp 00000000 00:00", "inode"},
	} {
		_, err := ParseMaps(strings.NewReader("08048000-08049000 r-xp 00000000 08:01 1234 /bin/foo\n" + tt.line + "\n"))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("ParseMaps(%q) error = %v, want one containing %q and \"line 2\"", tt.line, err, tt.want)
		}
	}
}

func TestMappingPerms(t *testing.T) {
	for _, tt := range []struct {
		perms            string
		r, w, x, private bool
	}{
		{perms: "r-xp", r: true, x: true, private: true},
		{perms: "rw-p", r: true, w: true, private: true},
		{perms: "rw-s", r: true, w: true},
		{perms: "---p", private: true},
		{perms: ""},
	} {
		m := Mapping{Perms: tt.perms}
		got := [4]bool{m.Readable(), m.Writable(), m.Executable(), m.Private()}
		if want := [4]bool{tt.r, tt.w, tt.x, tt.private}; got != want {
			t.Errorf("Mapping{Perms: %q}: Readable, Writable, Executable, Private = %v, want %v", tt.perms, got, want)
		}
	}
}

func FuzzParseMaps(f *testing.F) {
	f.Add("55c90c808000-55c90c80a000 r--p 00000000 fe:00 247026 /usr/bin/cat\n7ffd2a5f1000-7ffd2a5f3000 r-xp 00000000 00:00 0 [vdso]\n")
	f.Add("0-0 ---- 0 0:0 0")
	f.Fuzz(func(t *testing.T, s string) {
		maps, err := ParseMaps(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range maps {
			if m.End < m.Start || len(m.Perms) != 4 {
				t.Errorf("ParseMaps(%q) gave invalid %+v", s, m)
			}
		}
	})
}
