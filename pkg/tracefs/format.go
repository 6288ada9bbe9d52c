package tracefs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Format is the layout of a trace event's records, as its format file
// in tracefs describes it.
type Format struct {
	ID     uint32 // the event's id: the perf tracepoint config, common_type
	Fields []Field
}

// A Field is one field of a trace event record.
type Field struct {
	Name   string
	Offset int
	Size   int
	Signed bool
	// Dynamic is a __data_loc field: a 32-bit word holding the length
	// (high 16 bits) and the offset in the record (low 16 bits) of the
	// data, such as a string with its NUL.
	Dynamic bool
}

// Field returns the field called name, nil if there is none.
func (f *Format) Field(name string) *Field {
	for i := range f.Fields {
		if f.Fields[i].Name == name {
			return &f.Fields[i]
		}
	}
	return nil
}

// ReadFormat reads the format of event group/event of the tracefs in
// dir.
func ReadFormat(dir, group, event string) (*Format, error) {
	b, err := os.ReadFile(filepath.Join(dir, "events", group, event, "format"))
	if err != nil {
		return nil, err
	}
	f, err := ParseFormat(b)
	if err != nil {
		return nil, fmt.Errorf("%s/%s format: %w", group, event, err)
	}
	return f, nil
}

// ParseFormat parses the text of an event's format file.
func ParseFormat(b []byte) (*Format, error) {
	f := &Format{}
	haveID := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if s, ok := strings.CutPrefix(l, "ID:"); ok {
			id, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("ID %q: %w", s, err)
			}
			f.ID, haveID = uint32(id), true
			continue
		}
		if !strings.HasPrefix(l, "field:") {
			continue
		}
		fd, err := parseField(l)
		if err != nil {
			return nil, err
		}
		f.Fields = append(f.Fields, fd)
	}
	if !haveID {
		return nil, fmt.Errorf("no ID")
	}
	return f, nil
}

// parseField parses a line such as
// "field:s32 arg0;	offset:20;	size:4;	signed:1;".
func parseField(l string) (Field, error) {
	var fd Field
	for part := range strings.SplitSeq(l, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			continue
		}
		var err error
		switch k {
		case "field":
			decl := strings.TrimSpace(v)
			fd.Dynamic = strings.HasPrefix(decl, "__data_loc ")
			i := strings.LastIndexAny(decl, " *")
			fd.Name = decl[i+1:]
			if j := strings.IndexByte(fd.Name, '['); j >= 0 {
				fd.Name = fd.Name[:j]
			}
		case "offset":
			fd.Offset, err = strconv.Atoi(v)
		case "size":
			fd.Size, err = strconv.Atoi(v)
		case "signed":
			fd.Signed = v == "1"
		}
		if err != nil {
			return fd, fmt.Errorf("field %q: %s: %w", l, k, err)
		}
	}
	if fd.Name == "" || fd.Offset < 0 || fd.Size <= 0 || fd.Dynamic && fd.Size != 4 {
		return fd, fmt.Errorf("field %q: malformed", l)
	}
	return fd, nil
}
