package stapsdt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// An arMember is a member of a test archive.
type arMember struct {
	name string
	data string
}

// arHeader is the 60-byte header of a member named name (as stored) of
// size bytes.
func arHeader(name string, size int) string {
	return fmt.Sprintf("%-16s%-12d%-6d%-6d%-8o%-10d`\n", name, 0, 0, 0, 0o644, size)
}

// gnuArchive builds an archive as GNU ar writes it: a symbol table, the
// table of long names when a name has more than 15 bytes, then the
// members, each padded to an even length.
func gnuArchive(members ...arMember) []byte {
	var b, names strings.Builder
	b.WriteString(ArchiveMagic)
	add := func(name, data string) {
		b.WriteString(arHeader(name, len(data)) + data)
		if len(data)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	add("/", "\x00\x00\x00\x00")
	stored := make([]string, len(members))
	for i, m := range members {
		stored[i] = m.name + "/"
		if len(m.name) > 15 {
			stored[i] = fmt.Sprintf("/%d", names.Len())
			names.WriteString(m.name + "/\n")
		}
	}
	if names.Len() > 0 {
		add("//", names.String())
	}
	for i, m := range members {
		add(stored[i], m.data)
	}
	return []byte(b.String())
}

// bsdArchive builds an archive as BSD ar writes it: each name after its
// header, as #1/LEN, padded with NULs.
func bsdArchive(members ...arMember) []byte {
	var b strings.Builder
	b.WriteString(ArchiveMagic)
	for _, m := range members {
		name := m.name + strings.Repeat("\x00", 4-len(m.name)%4)
		b.WriteString(arHeader(fmt.Sprintf("#1/%d", len(name)), len(name)+len(m.data)) + name + m.data)
		if (len(name)+len(m.data))%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

func TestArchiveMembers(t *testing.T) {
	long := "a_long_member_name.o"
	type member struct{ name, data string } // as Members locate it
	for _, tt := range []struct {
		name string
		ar   []byte
		want []member
	}{
		{"gnu", gnuArchive(arMember{"a.o", "abc"}, arMember{"b.o", "de"}),
			[]member{{"a.o", "abc"}, {"b.o", "de"}}},
		{"gnu long names", gnuArchive(arMember{"a.o", "x"}, arMember{long, "yz"}, arMember{long + "2", ""}, arMember{"c.o", "!"}),
			[]member{{"a.o", "x"}, {long, "yz"}, {long + "2", ""}, {"c.o", "!"}}},
		{"bsd", bsdArchive(arMember{"a.o", "abc"}, arMember{long, "d"}),
			[]member{{"a.o", "abc"}, {long, "d"}}},
		{"empty", []byte(ArchiveMagic), nil},
		{"gnu name with a blank", []byte(ArchiveMagic + arHeader("a b.o/", 1) + "x\n"),
			[]member{{"a b.o", "x"}}},
		{"64-bit symbol table", []byte(ArchiveMagic + arHeader("/SYM64/", 2) + "\x00\x00" + arHeader("c.o/", 1) + "c\n"),
			[]member{{"c.o", "c"}}},
		{"bsd symbol table", []byte(ArchiveMagic + arHeader("__.SYMDEF SORTED", 2) + "\x00\x00" + arHeader("c.o", 1) + "c"),
			[]member{{"c.o", "c"}}},
	} {
		a, err := NewArchive(bytes.NewReader(tt.ar), int64(len(tt.ar)))
		if err != nil {
			t.Errorf("NewArchive(%s) = %v", tt.name, err)
			continue
		}
		var got []member
		for _, m := range a.Members {
			got = append(got, member{m.Name, string(tt.ar[m.Offset : m.Offset+m.Size])})
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("NewArchive(%s).Members hold %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestArchiveErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		ar   string
		want string
	}{
		{"not an archive", "\x7fELF\x02\x01\x01\x00", "not an ar archive"},
		{"short", "!<ar", "not an ar archive"},
		{"thin", "!<thin>\n" + arHeader("a.o/", 0), ErrThinArchive.Error()},
		{"truncated header", ArchiveMagic + arHeader("a.o/", 0)[:59], "member header at offset 0x8: truncated"},
		{"no terminator", ArchiveMagic + arHeader("a.o/", 0)[:58] + "\n\n", "member header at offset 0x8: no terminator"},
		{"bad size", ArchiveMagic + strings.Replace(arHeader("a.o/", 0), "0         `", "-1        `", 1), `member header at offset 0x8: size "-1        "`},
		{"size past the end", ArchiveMagic + arHeader("a.o/", 10) + "abc", "member at offset 0x8: 7 bytes past the end of the archive"},
		{"long name without a table", ArchiveMagic + arHeader("/0", 0), `member at offset 0x8: long name "/0" not in the table of long names`},
		{"long name past the table", ArchiveMagic + arHeader("//", 4) + "a/\n\n" + arHeader("/4", 0), `long name "/4" not in the table`},
		{"two tables of long names", ArchiveMagic + arHeader("//", 0) + arHeader("//", 0), "a second table of long names"},
		{"bsd name too long", ArchiveMagic + arHeader("#1/9", 4) + "a.o\x00", `BSD name length "9"`},
	} {
		_, err := NewArchive(strings.NewReader(tt.ar), int64(len(tt.ar)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewArchive(%s) = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

// The members of an archive read as the files they hold, named as
// binutils names them; the archive itself is no ELF file to Open.
func TestArchiveFile(t *testing.T) {
	demo, err := os.ReadFile("testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Open("testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "libdemo.a")
	if err := os.WriteFile(name, gnuArchive(arMember{"demo.o", string(demo)}, arMember{"README", "text\n"}, arMember{"a_long_member_name.o", string(demo)}), 0o644); err != nil {
		t.Fatal(err)
	}

	_, err = Open(name)
	if !errors.Is(err, ErrArchive) || !errors.Is(err, ErrNotELF) || err.Error() != name+": an ar archive (a static library), not an ELF file" {
		t.Errorf("Open(%s) = %v, want an error matching ErrArchive and ErrNotELF", name, err)
	}

	a, err := OpenArchive(name)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.Members) != 3 {
		t.Fatalf("OpenArchive(%s) has %d members, want 3", name, len(a.Members))
	}
	for _, i := range []int{0, 2} {
		m := a.Members[i]
		f, err := a.File(m)
		if err != nil {
			t.Errorf("File(%s) = %v", m.Name, err)
			continue
		}
		if !reflect.DeepEqual(f.Sites, want.Sites) {
			t.Errorf("File(%s).Sites = %+v, want those of testdata/demo, %+v", m.Name, f.Sites, want.Sites)
		}
	}
	if got, want := a.MemberName(a.Members[2]), name+"(a_long_member_name.o)"; got != want {
		t.Errorf("MemberName = %q, want %q", got, want)
	}
	if _, err := a.File(a.Members[1]); !errors.Is(err, ErrNotELF) || err.Error() != name+"(README): not an ELF file" {
		t.Errorf("File(README) = %v, want %s(README): %v", err, name, ErrNotELF)
	}
}

// FuzzArchive checks that no archive, however damaged, makes the reader
// panic or locate a member outside the data, out of order or over its
// header.
func FuzzArchive(f *testing.F) {
	f.Add(gnuArchive(arMember{"a.o", "abc"}, arMember{"a_long_member_name.o", "\x7fELF"}))
	f.Add(bsdArchive(arMember{"a.o", "abc"}, arMember{"b.o", ""}))
	f.Add([]byte(ArchiveMagic + arHeader("//", 4) + "a/\n\n" + arHeader("/0", 1) + "x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := NewArchive(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		end := int64(len(ArchiveMagic))
		for _, m := range a.Members {
			if m.Offset < end+headerSize || m.Size < 0 || m.Offset+m.Size > int64(len(data)) {
				t.Fatalf("member %q at %d, %d bytes: outside the data after %d (%d bytes)", m.Name, m.Offset, m.Size, end, len(data))
			}
			end = m.Offset + m.Size
			a.File(m)
		}
	})
}
