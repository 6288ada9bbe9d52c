package scripttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"rsc.io/script"
)

// A Note is one NT_STAPSDT note as readelf -n prints it.
type Note struct {
	// File is the member of an ar archive the note is in, as readelf
	// names it (ARCHIVE(MEMBER)); "" for the notes of other files.
	File                      string
	Provider, Name            string
	Location, Base, Semaphore uint64
	Args                      string
}

// ParseReadelf reads the NT_STAPSDT notes from the output of
// readelf -n --wide, in order. Other notes are skipped.
//
// readelf prints each note's fields on indented lines after the
// NT_STAPSDT line (the first of them on that same line with --wide), and
// leaves out Arguments when the note has none. Before the notes of each
// member of an archive it prints a line "File: ARCHIVE(MEMBER)".
func ParseReadelf(r io.Reader) ([]Note, error) {
	var notes []Note
	var cur *Note
	file := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "File: "); ok {
			cur, file = nil, name
			continue
		}
		if !strings.HasPrefix(line, "    ") {
			cur = nil
			before, after, ok := strings.Cut(line, "NT_STAPSDT (SystemTap probe descriptors)")
			if !ok || strings.TrimSpace(before) == "" {
				continue
			}
			notes = append(notes, Note{File: file})
			cur = &notes[len(notes)-1]
			line = after
		}
		if cur == nil {
			continue
		}
		line = strings.TrimLeft(line, " \t")
		var err error
		switch key, val, _ := strings.Cut(line, ":"); key {
		case "Provider":
			cur.Provider = strings.TrimPrefix(val, " ")
		case "Name":
			cur.Name = strings.TrimPrefix(val, " ")
		case "Arguments":
			cur.Args = strings.TrimPrefix(val, " ")
		case "Location":
			err = parseLocation(cur, line)
		}
		if err != nil {
			return nil, fmt.Errorf("note %d: %w", len(notes)-1, err)
		}
	}
	return notes, sc.Err()
}

// parseLocation reads "Location: 0x…, Base: 0x…, Semaphore: 0x…".
func parseLocation(n *Note, line string) error {
	for _, field := range strings.Split(line, ",") {
		key, val, _ := strings.Cut(strings.TrimSpace(field), ": ")
		v, err := strconv.ParseUint(strings.TrimPrefix(val, "0x"), 16, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		switch key {
		case "Location":
			n.Location = v
		case "Base":
			n.Base = v
		case "Semaphore":
			n.Semaphore = v
		default:
			return fmt.Errorf("unexpected field %q in %q", key, line)
		}
	}
	return nil
}

// site holds the fields of an sdtlist line that readelf also shows.
type site struct {
	File          string  `json:"file"`
	Provider      string  `json:"provider"`
	Name          string  `json:"name"`
	PC            uint64  `json:"pc"`
	Base          uint64  `json:"base"`
	Semaphore     uint64  `json:"semaphore"`
	Args          string  `json:"args"`
	NotePC        *uint64 `json:"note_pc"`
	NoteSemaphore *uint64 `json:"note_semaphore"`
}

// Agree runs readelf -n --wide and sdtlist on file and reports, as an
// error, where sdtlist's lines differ from readelf's NT_STAPSDT notes:
// the same number of probe sites, in the same order, with the same
// provider, name, location, base, semaphore and arguments, and for the
// members of an archive the file, ARCHIVE(MEMBER). Where sdtlist
// adjusted an address for a prelinked file, the value compared is the
// note's own (note_pc, note_semaphore), which is what readelf shows.
// Agree returns the number of notes readelf shows.
func Agree(ctx context.Context, readelf, sdtlist, file string) (int, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, readelf, "-n", "--wide", file)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("readelf -n %s: %w\n%s", file, err, stderr.Bytes())
	}
	notes, err := ParseReadelf(&stdout)
	if err != nil {
		return 0, fmt.Errorf("readelf -n %s: %w", file, err)
	}

	stdout.Reset()
	stderr.Reset()
	cmd = exec.CommandContext(ctx, sdtlist, file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("sdtlist %s: %w\n%s", file, err, stderr.Bytes())
	}
	var sites []site
	for i, l := range lines(stdout.String()) {
		var s site
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			return 0, fmt.Errorf("sdtlist %s: line %d: %w", file, i+1, err)
		}
		sites = append(sites, s)
	}
	return len(notes), compare(file, notes, sites)
}

// maxDiffs bounds the differences reported, as one bug usually shows on
// every probe.
const maxDiffs = 10

func compare(file string, notes []Note, sites []site) error {
	var diffs []string
	if len(notes) != len(sites) {
		diffs = append(diffs, fmt.Sprintf("readelf shows %d notes, sdtlist %d lines", len(notes), len(sites)))
	}
	for i := 0; i < min(len(notes), len(sites)) && len(diffs) < maxDiffs; i++ {
		n, s := notes[i], sites[i]
		pc, sema := s.PC, s.Semaphore
		if s.NotePC != nil {
			pc = *s.NotePC
		}
		if s.NoteSemaphore != nil {
			sema = *s.NoteSemaphore
		}
		file := s.File
		if n.File == "" {
			file = "" // readelf names the members of archives only
		}
		for _, f := range []struct {
			name             string
			readelf, sdtlist any
		}{
			{"file", n.File, file},
			{"provider", n.Provider, s.Provider},
			{"name", n.Name, s.Name},
			{"pc", hex(n.Location), hex(pc)},
			{"base", hex(n.Base), hex(s.Base)},
			{"semaphore", hex(n.Semaphore), hex(sema)},
			{"args", n.Args, s.Args},
		} {
			if f.readelf != f.sdtlist {
				diffs = append(diffs, fmt.Sprintf("note %d (%s:%s): %s: readelf %q, sdtlist %q", i, n.Provider, n.Name, f.name, f.readelf, f.sdtlist))
			}
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: sdtlist disagrees with readelf -n:\n\t%s", file, strings.Join(diffs, "\n\t"))
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// ReadelfAgree checks sdtlist against readelf on each file.
func ReadelfAgree() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "check that sdtlist lists the probes readelf -n shows",
			Args:    "file...",
			Detail: []string{
				"For each file, runs readelf -n --wide and sdtlist (both from the script's PATH) and compares every NT_STAPSDT note with the sdtlist line at the same index: provider, name, location (pc), base, semaphore and arguments.",
				"Fails listing the first differences.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) == 0 {
				return nil, script.ErrUsage
			}
			readelf, err := lookPath(s, "readelf")
			if err != nil {
				return nil, err
			}
			sdtlist, err := lookPath(s, "sdtlist")
			if err != nil {
				return nil, err
			}
			for _, file := range args {
				if _, err := Agree(s.Context(), readelf, sdtlist, s.Path(file)); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
}
