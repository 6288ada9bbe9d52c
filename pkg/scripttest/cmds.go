package scripttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"rsc.io/script"
)

// JSONGet sets an environment variable from a field of one line of the
// previous command's NDJSON output.
func JSONGet() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "set a variable from a field of a line of NDJSON stdout",
			Args:    "VAR LINE FIELD",
			Detail: []string{
				"LINE counts the lines of the previous command's stdout from 1.",
				"FIELD is a dotted path such as pc_offset or argv.0.kind; numbers index arrays.",
				"Strings are stored without quotes, numbers as written, objects and arrays as JSON.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) != 3 {
				return nil, script.ErrUsage
			}
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 {
				return nil, script.ErrUsage
			}
			out := lines(s.Stdout())
			if n > len(out) {
				return nil, fmt.Errorf("stdout has %d lines, want line %d", len(out), n)
			}
			v, err := jsonField([]byte(out[n-1]), args[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			s.Logf("[%s=%s]\n", args[0], v)
			return nil, s.Setenv(args[0], v)
		})
}

// jsonField returns the value at a dotted path in one JSON document.
func jsonField(doc []byte, path string) (string, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[key]; !ok {
				return "", fmt.Errorf("no field %q in %s", key, path)
			}
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return "", fmt.Errorf("no element %q in %s", key, path)
			}
			v = x[i]
		default:
			return "", fmt.Errorf("%s: %q is not inside an object or array", path, key)
		}
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	default:
		b, err := json.Marshal(x)
		return string(b), err
	}
}

// waitFileTimeout bounds how long waitfile waits for a fixture that never
// gets there.
const waitFileTimeout = 30 * time.Second

// WaitFile waits for a background fixture to write a line to a file and
// stores the line in a variable. rsc.io/script gives background commands
// no PID and no output until they end, so fixtures report through files.
func WaitFile() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "wait for a file to hold a line and set a variable to it",
			Args:    "VAR FILE",
			Detail: []string{
				"Waits until FILE holds a line ending in a newline, such as the PID a fixture started in the background writes, then sets VAR to the line.",
				"Fixtures should write the file elsewhere and rename it into place.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) != 2 {
				return nil, script.ErrUsage
			}
			name := s.Path(args[1])
			timeout := time.After(waitFileTimeout)
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				b, err := os.ReadFile(name)
				if line, ok := strings.CutSuffix(string(b), "\n"); err == nil && ok {
					s.Logf("[%s=%s]\n", args[0], line)
					return nil, s.Setenv(args[0], line)
				}
				select {
				case <-tick.C:
				case <-timeout:
					return nil, fmt.Errorf("%s: no line after %v", args[1], waitFileTimeout)
				case <-s.Context().Done():
					return nil, s.Context().Err()
				}
			}
		})
}
