package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// errNoReadyLine is a run that ended without printing its ready line.
var errNoReadyLine = errors.New("exited without a matching line")

// A measurement is one run of the command.
type measurement struct {
	ready, exit time.Duration
	line        string
}

// measure runs the command once. The clock starts just before the fork
// and stops for ready when the reader sees the matching line, and for
// exit when the command has been waited for.
func measure(c *config) (measurement, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	// A pipe rather than a buffer: each line must be seen when it is
	// written, not when the command exits.
	pr, pw, err := os.Pipe()
	if err != nil {
		return measurement{}, err
	}
	var errBuf bytes.Buffer
	if c.stderr {
		cmd.Stderr = pw
	} else {
		cmd.Stdout = pw
		cmd.Stderr = &errBuf
	}
	type seen struct {
		at   time.Time
		line string
	}
	found := make(chan seen, 1)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return measurement{}, err
	}
	pw.Close()
	go func() {
		defer close(found)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if c.match.Match(sc.Bytes()) {
				found <- seen{time.Now(), sc.Text()}
				break
			}
		}
		io.Copy(io.Discard, pr)
		pr.Close()
	}()
	s, ok := <-found
	werr := cmd.Wait()
	end := time.Now()
	if werr != nil {
		msg := strings.TrimSpace(errBuf.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return measurement{}, fmt.Errorf("%s: %w: %s", c.argv[0], werr, msg)
		}
		return measurement{}, fmt.Errorf("%s: %w", c.argv[0], werr)
	}
	if !ok {
		return measurement{}, fmt.Errorf("%s: %w %q", c.argv[0], errNoReadyLine, c.match.String())
	}
	return measurement{ready: s.at.Sub(start), exit: end.Sub(start), line: s.line}, nil
}
