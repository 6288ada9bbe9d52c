package aggregate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// StackValue returns the value of a KeyUStack key for a stack, innermost
// frame first: the JSON array of its frames, as events carry them in
// "ustack".
func StackValue(frames []ndjson.Frame) ndjson.Value {
	b := []byte{'['}
	for i := range frames {
		if i > 0 {
			b = append(b, ',')
		}
		b = frames[i].AppendJSON(b)
	}
	return ndjson.Value{Kind: ndjson.JSON, Str: string(append(b, ']'))}
}

// frameJSON is the JSON of an ndjson.Frame, as it is decoded.
type frameJSON struct {
	Addr       *uint64 `json:"addr"`
	Sym        string  `json:"sym"`
	Off        uint64  `json:"off"`
	File       string  `json:"file"`
	FileOffset uint64  `json:"file_offset"`
	BuildID    string  `json:"build_id"`
}

// errNotStack is the error of StackFrames for a value that is no stack.
var errNotStack = errors.New("want an array of frames, each with its addr, or null")

// StackFrames returns the frames of a KeyUStack key's value, innermost
// first: nil for null, a stack that could not be taken.
func StackFrames(v ndjson.Value) ([]ndjson.Frame, error) {
	switch {
	case v.Kind == ndjson.Null:
		return nil, nil
	case v.Kind != ndjson.JSON:
		return nil, errNotStack
	}
	var fs []frameJSON
	if err := json.Unmarshal([]byte(v.Str), &fs); err != nil || fs == nil {
		return nil, errNotStack
	}
	frames := make([]ndjson.Frame, len(fs))
	for i, f := range fs {
		if f.Addr == nil {
			return nil, fmt.Errorf("frame %d: %w", i, errNotStack)
		}
		frames[i] = ndjson.Frame{Addr: *f.Addr, Sym: f.Sym, Off: f.Off, File: f.File, FileOffset: f.FileOffset, BuildID: f.BuildID}
	}
	return frames, nil
}

// parseStack decodes the JSON of a KeyUStack key's value, compacted, so
// that the same stack is the same value however it was written.
func parseStack(raw []byte) (ndjson.Value, error) {
	if string(raw) == "null" {
		return ndjson.Value{}, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return ndjson.Value{}, errNotStack
	}
	v := ndjson.Value{Kind: ndjson.JSON, Str: b.String()}
	if _, err := StackFrames(v); err != nil {
		return ndjson.Value{}, err
	}
	return v, nil
}

// stackSep separates the frames of a stack as Key.Format writes it,
// the callee before its caller.
const stackSep = " < "

// formatStack writes the frames of a stack innermost first, each as
// StackFrame names it, "?" when the value is no stack.
func formatStack(v ndjson.Value) string {
	frames, err := StackFrames(v)
	if err != nil || frames == nil {
		return "?"
	}
	names := make([]string, len(frames))
	for i, f := range frames {
		names[i] = termtext.String(StackFrame(f))
	}
	return strings.Join(names, stackSep)
}

// StackFrame names a frame as a stack key's value shows it: its symbol
// and the offset into it ("inner+0xc"), or where no symbol is known its
// file's base name and file offset ("libc.so.6+0x2a1ca"), or its address
// ("0x7f3a1c02a1ca").
func StackFrame(f ndjson.Frame) string {
	switch {
	case f.Sym != "":
		return f.Sym + "+0x" + strconv.FormatUint(f.Off, 16)
	case f.File != "":
		file := f.File
		if i := strings.LastIndexByte(file, '/'); i >= 0 {
			file = file[i+1:]
		}
		return file + "+0x" + strconv.FormatUint(f.FileOffset, 16)
	}
	return "0x" + strconv.FormatUint(f.Addr, 16)
}
