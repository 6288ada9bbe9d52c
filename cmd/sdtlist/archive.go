package main

import (
	"errors"
	"io"

	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// listArchive writes the matching probes of each member of the ar
// archive name, a static library, as listFile writes those of a file,
// the file of each named ARCHIVE(MEMBER) as binutils names it. Members
// without notes are passed over; one that cannot be read is an error
// that does not keep the others from being listed.
func listArchive(name string, pats []probespec.Spec, out sink, check *probe.PatternCheck) error {
	a, err := stapsdt.OpenArchive(name)
	if err != nil {
		return err
	}
	defer a.Close()
	var (
		errs []error
		all  []stapsdt.Site // for check, which names the archive alone
	)
	for _, m := range a.Members {
		f, ferr := a.File(m)
		if f != nil {
			all = append(all, f.Sites...)
			if err := writeProbes(a.MemberName(m), f, pats, nil, memberSink{out, a.Reader(m)}); err != nil {
				return errors.Join(append(errs, err, ferr)...)
			}
		}
		if ferr != nil {
			errs = append(errs, ferr)
		}
	}
	check.Add(name, all)
	return errors.Join(errs...)
}

// A memberSink gives the sites it writes the data of their archive
// member, which no path names, for the sinks that read more of the file
// than its notes.
type memberSink struct {
	sink
	data io.ReaderAt
}

func (m memberSink) write(s *site) error {
	s.data = m.data
	return m.sink.write(s)
}
