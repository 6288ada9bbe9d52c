package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/fixture"
)

// A record is one line sdtattach wrote: an event, or an aggregation's
// record.
type record struct {
	Provider string            `json:"provider"`
	Name     string            `json:"name"`
	Args     []json.RawMessage `json:"args"`
	Count    *int64            `json:"count"`
	Lost     *int64            `json:"lost"`
	Latency  string            `json:"latency"`
	From     string            `json:"from"`
	UStack   []struct {
		Sym string `json:"sym"`
	} `json:"ustack"`
}

// parseRecords parses sdtattach's standard output.
func parseRecords(stdout string) ([]record, error) {
	var recs []record
	for _, line := range strings.Split(stdout, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("output line %q: %w", line, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// readManifest reads the manifest sdtgen wrote for a fixture.
func readManifest(path string) (*fixture.Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var m fixture.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return &m, nil
}

// canonical returns the JSON of v, numbers as they are written.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSpace(b))
}

// compareEvents checks the events of recs against the first iterations
// of every probe of m: each iteration's values once per probe, in any
// order (events of several CPUs need not arrive in order). A null where
// nullOK says the backend cannot read the argument is taken; the
// number of such nulls is returned.
func compareEvents(m *fixture.Manifest, recs []record, nullOK func(probe string, arg int) bool) (nulls int, err error) {
	type want struct {
		rows [][]string
		used []bool
	}
	wants := map[string]*want{}
	total := 0
	for _, p := range m.Probes {
		w := &want{}
		for _, s := range p.Sites {
			for _, vals := range s.Values {
				row := make([]string, len(vals))
				for i, v := range vals {
					row[i] = canonical(v)
				}
				w.rows = append(w.rows, row)
			}
		}
		w.used = make([]bool, len(w.rows))
		wants[p.Provider+":"+p.Name] = w
		total += len(w.rows)
	}
	seen := 0
	for _, r := range recs {
		if r.Args == nil && r.Provider == "" {
			continue // a {"lost":N} line is checked apart
		}
		probe := r.Provider + ":" + r.Name
		w := wants[probe]
		if w == nil {
			return 0, fmt.Errorf("event of %s, which the fixture lacks", probe)
		}
		got := make([]string, len(r.Args))
		for i, a := range r.Args {
			got[i] = string(bytes.TrimSpace(a))
		}
		i, n := match(w.rows, w.used, got, func(arg int) bool { return nullOK(probe, arg) })
		if i < 0 {
			return 0, fmt.Errorf("%s: args %v match no iteration of %v", probe, got, w.rows)
		}
		w.used[i] = true
		nulls += n
		seen++
	}
	if seen != total {
		return 0, fmt.Errorf("%d events, want %d", seen, total)
	}
	return nulls, nil
}

// match returns the first unused row equal to got, with nulls taken
// where nullOK allows, and the number of nulls taken; -1 if none.
func match(rows [][]string, used []bool, got []string, nullOK func(int) bool) (int, int) {
next:
	for i, row := range rows {
		if used[i] || len(row) != len(got) {
			continue
		}
		nulls := 0
		for j := range row {
			switch {
			case got[j] == row[j]:
			case got[j] == "null" && nullOK(j):
				nulls++
			default:
				continue next
			}
		}
		return i, nulls
	}
	return -1, 0
}

// counts sums the count of the records of each probe.
func counts(recs []record) map[string]int64 {
	c := map[string]int64{}
	for _, r := range recs {
		if r.Count != nil {
			c[r.Provider+":"+r.Name] += *r.Count
		}
	}
	return c
}
