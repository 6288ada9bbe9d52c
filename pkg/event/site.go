package event

import (
	json "github.com/goccy/go-json"
)

// A Site is one probe site as sdtlist lists it. Only the fields its table
// shows are decoded.
type Site struct {
	File      string    `json:"file"`
	Provider  string    `json:"provider"`
	Name      string    `json:"name"`
	PC        uint64    `json:"pc"`
	Semaphore uint64    `json:"semaphore"`
	Argv      []SiteArg `json:"argv"`

	// Written by sdtlist -p.
	PID                 int     `json:"pid"`
	Addr                uint64  `json:"addr"`
	Armed               bool    `json:"armed"`
	ArmedError          string  `json:"armed_error"`
	Orphaned            bool    `json:"orphaned"`
	Owner               string  `json:"owner"`
	SemaphoreAddr       uint64  `json:"semaphore_addr"`
	SemaphoreValue      *uint64 `json:"semaphore_value"`
	SemaphoreValueError string  `json:"semaphore_value_error"`
}

// A SiteArg is one parsed argument of a Site.
type SiteArg struct {
	Raw      string `json:"raw"`
	Size     int    `json:"size"`
	Signed   bool   `json:"signed"`
	Float    bool   `json:"float"`
	Location string `json:"location"`
	Error    string `json:"error"`
}

// ParseSite decodes a line Read reported as KindSite.
func ParseSite(line []byte) (*Site, error) {
	var s Site
	if err := json.Unmarshal(line, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
