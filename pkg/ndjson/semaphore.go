package ndjson

import (
	"encoding/json"
	"strconv"
)

// A Semaphore is one semaphore of a probe in a process, as sdtsema prints
// it. The package documentation gives each field's meaning.
type Semaphore struct {
	PID      int    `json:"pid"`
	File     string `json:"file"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	Address  uint64 `json:"address"`
	Offset   uint64 `json:"offset"`
	Sites    int    `json:"sites"`
	Before   uint16 `json:"before"`
	After    uint16 `json:"after"`
}

// AppendSemaphore appends the line of s to b: its JSON object, with the
// fields in the order the package documentation gives, and a newline.
func AppendSemaphore(b []byte, s *Semaphore) []byte {
	b = append(b, `{"pid":`...)
	b = strconv.AppendInt(b, int64(s.PID), 10)
	b = appendString(b, "file", s.File)
	b = appendString(b, "provider", s.Provider)
	b = appendString(b, "name", s.Name)
	b = appendUint(b, "address", s.Address)
	b = appendUint(b, "offset", s.Offset)
	b = appendInt(b, "sites", int64(s.Sites))
	b = appendUint(b, "before", uint64(s.Before))
	b = appendUint(b, "after", uint64(s.After))
	return append(b, '}', '\n')
}

// ParseSemaphore decodes a line of sdtsema.
func ParseSemaphore(line []byte) (*Semaphore, error) {
	s := new(Semaphore)
	if err := json.Unmarshal(line, s); err != nil {
		return nil, err
	}
	return s, nil
}
