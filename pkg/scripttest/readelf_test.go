package scripttest

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseReadelf(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []Note
	}{
		{
			name: "wide",
			in: `
Displaying notes found in: .note.gnu.build-id
  Owner                Data size 	Description
  GNU                  0x00000014	NT_GNU_BUILD_ID (unique build ID bitstring)	    Build ID: 0123
    Provider: not a probe

Displaying notes found in: .note.stapsdt
  Owner                Data size 	Description
  stapsdt              0x00000033	NT_STAPSDT (SystemTap probe descriptors)	    Provider: python
    Name: audit
    Location: 0x000000000042512a, Base: 0x00000000008cc5a0, Semaphore: 0x0000000000a84276
    Arguments: 8@%rbx 8@%r15
  stapsdt              0x00000036	NT_STAPSDT (SystemTap probe descriptors)	    Provider: python
    Name: gc__start
    Location: 0x00000000004287f3, Base: 0x00000000008cc5a0, Semaphore: 0x0000000000a8426e
`,
			want: []Note{
				{Provider: "python", Name: "audit", Location: 0x42512a, Base: 0x8cc5a0, Semaphore: 0xa84276, Args: "8@%rbx 8@%r15"},
				{Provider: "python", Name: "gc__start", Location: 0x4287f3, Base: 0x8cc5a0, Semaphore: 0xa8426e},
			},
		},
		{
			name: "narrow32",
			in: `
Displaying notes found in: .note.stapsdt
  Owner                Data size	Description
  stapsdt              0x00000028	NT_STAPSDT (SystemTap probe descriptors)
    Provider: p
    Name: one
    Location: 0x000011ad, Base: 0x00002008, Semaphore: 0x00000000
    Arguments: 
`,
			want: []Note{{Provider: "p", Name: "one", Location: 0x11ad, Base: 0x2008}},
		},
		{
			name: "archive",
			in: `
File: lib.a(a.o)

Displaying notes found in: .note.stapsdt
  Owner                Data size 	Description
  stapsdt              0x00000031	NT_STAPSDT (SystemTap probe descriptors)	    Provider: a
    Name: one
    Location: 0x0000000000000004, Base: 0x0000000000000000, Semaphore: 0x0000000000000000
    Arguments: -4@%edi

File: lib.a(b.o)

Displaying notes found in: .note.gnu.property
  Owner                Data size 	Description
  GNU                  0x00000010	NT_GNU_PROPERTY_TYPE_0	      Properties: x86 ISA needed: x86-64-baseline

File: lib.a(c.o)

Displaying notes found in: .note.stapsdt
  Owner                Data size 	Description
  stapsdt              0x0000002c	NT_STAPSDT (SystemTap probe descriptors)	    Provider: c
    Name: two
    Location: 0x0000000000000000, Base: 0x0000000000000000, Semaphore: 0x0000000000000000
`,
			want: []Note{
				{File: "lib.a(a.o)", Provider: "a", Name: "one", Location: 4, Args: "-4@%edi"},
				{File: "lib.a(c.o)", Provider: "c", Name: "two"},
			},
		},
	} {
		got, err := ParseReadelf(strings.NewReader(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseReadelf(%s) = %+v, %v, want %+v", tt.name, got, err, tt.want)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want [2]int
	}{
		{"6.18.44-fc-v669", [2]int{6, 18}},
		{"4.20", [2]int{4, 20}},
		{"5.4.0-generic", [2]int{5, 4}},
		{"6.6-rc1", [2]int{6, 6}},
	} {
		if got, err := parseVersion(tt.in); err != nil || got != tt.want {
			t.Errorf("parseVersion(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"6", "x.1", "6.x"} {
		if _, err := parseVersion(in); err == nil {
			t.Errorf("parseVersion(%q) succeeded, want error", in)
		}
	}
}

func TestJSONField(t *testing.T) {
	doc := []byte(`{"pc":18446744073709551615,"name":"one","armed":false,"argv":[{"kind":"memory"}]}`)
	for _, tt := range []struct{ path, want string }{
		{"pc", "18446744073709551615"},
		{"name", "one"},
		{"armed", "false"},
		{"argv.0.kind", "memory"},
		{"argv.0", `{"kind":"memory"}`},
	} {
		if got, err := jsonField(doc, tt.path); err != nil || got != tt.want {
			t.Errorf("jsonField(%s) = %q, %v, want %q", tt.path, got, err, tt.want)
		}
	}
	for _, path := range []string{"missing", "argv.1", "name.x"} {
		if _, err := jsonField(doc, path); err == nil {
			t.Errorf("jsonField(%s) succeeded, want error", path)
		}
	}
}

func TestCompare(t *testing.T) {
	notes := []Note{
		{Provider: "p", Name: "one", Location: 0x1139, Base: 0x2004, Args: "-4@%edi"},
		{Provider: "p", Name: "two", Location: 0x1140, Base: 0x2004, Semaphore: 0x4010},
	}
	prelinked := uint64(0x1139)
	for _, tt := range []struct {
		name  string
		sites []site
		want  string // substring of the error; "" for agreement
	}{
		{
			name: "same",
			sites: []site{
				{Provider: "p", Name: "one", PC: 0x1139, Base: 0x2004, Args: "-4@%edi"},
				{Provider: "p", Name: "two", PC: 0x1140, Base: 0x2004, Semaphore: 0x4010},
			},
		},
		{
			name: "note_pc",
			sites: []site{
				{Provider: "p", Name: "one", PC: 0x401139, NotePC: &prelinked, Base: 0x2004, Args: "-4@%edi"},
				{Provider: "p", Name: "two", PC: 0x1140, Base: 0x2004, Semaphore: 0x4010},
			},
		},
		{
			name:  "missing",
			sites: []site{{Provider: "p", Name: "one", PC: 0x1139, Base: 0x2004, Args: "-4@%edi"}},
			want:  "readelf shows 2 notes, sdtlist 1 lines",
		},
		{
			name: "semaphore",
			sites: []site{
				{Provider: "p", Name: "one", PC: 0x1139, Base: 0x2004, Args: "-4@%edi"},
				{Provider: "p", Name: "two", PC: 0x1140, Base: 0x2004},
			},
			want: `note 1 (p:two): semaphore: readelf "0x4010", sdtlist "0x0"`,
		},
		{
			name: "args",
			sites: []site{
				{Provider: "p", Name: "one", PC: 0x1139, Base: 0x2004, Args: "-4@%esi"},
				{Provider: "p", Name: "two", PC: 0x1140, Base: 0x2004, Semaphore: 0x4010},
			},
			want: `note 0 (p:one): args: readelf "-4@%edi", sdtlist "-4@%esi"`,
		},
	} {
		err := compare("f", notes, tt.sites)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("compare(%s) = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("compare(%s) = %v, want error containing %q", tt.name, err, tt.want)
		}
	}
}

// The members of an archive are compared by name too; readelf names no
// other file.
func TestCompareFile(t *testing.T) {
	member := []Note{{File: "lib.a(a.o)", Provider: "p", Name: "one"}}
	plain := []Note{{Provider: "p", Name: "one"}}
	for _, tt := range []struct {
		name  string
		notes []Note
		file  string // of the one site
		want  string
	}{
		{"member", member, "lib.a(a.o)", ""},
		{"other member", member, "lib.a(b.o)", `note 0 (p:one): file: readelf "lib.a(a.o)", sdtlist "lib.a(b.o)"`},
		{"archive", member, "lib.a", `file: readelf "lib.a(a.o)", sdtlist "lib.a"`},
		{"plain", plain, "./prog", ""},
	} {
		err := compare("f", tt.notes, []site{{File: tt.file, Provider: "p", Name: "one"}})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("compare(%s) = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("compare(%s) = %v, want error containing %q", tt.name, err, tt.want)
		}
	}
}
