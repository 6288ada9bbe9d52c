package stacks

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// foldedName replaces in a frame's name the characters that the folded
// format gives a meaning: ';' between frames, a newline between stacks.
var foldedName = strings.NewReplacer(";", ":", "\n", " ", "\r", " ")

// WriteFolded writes the stacks of s as folded stacks: one line a stack,
// its frames root first joined by ';', a space and the count. Stacks whose
// frames have the same names are one line, and lines are sorted, so that
// the output of the same counts is the same.
func (s *Set) WriteFolded(w io.Writer) error {
	counts := make(map[string]int64)
	var lines []string
	var b strings.Builder
	for _, smp := range s.samples {
		b.Reset()
		for i := len(smp.frames) - 1; i >= 0; i-- {
			b.WriteString(foldedName.Replace(Name(smp.frames[i])))
			if i > 0 {
				b.WriteByte(';')
			}
		}
		line := b.String()
		if _, ok := counts[line]; !ok {
			lines = append(lines, line)
		}
		counts[line] += smp.count
	}
	slices.Sort(lines)
	bw := bufio.NewWriter(w)
	for _, line := range lines {
		bw.WriteString(line)
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(counts[line], 10))
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write folded stacks: %w", err)
	}
	return nil
}
