package stapsdt

import (
	"errors"
	"io"
	"iter"
)

// A NamedFile is one ELF file of those Files reads.
type NamedFile struct {
	// Name is the file's name or, for a member of an archive,
	// ARCHIVE(MEMBER), as binutils names it.
	Name string
	File *File
	// Data reads a member's bytes, for reading more of it than its
	// probes, until the loop body that received it returns; nil for a
	// file, which Name opens.
	Data io.ReaderAt
}

// Files returns an iterator over the ELF files the named file holds: the
// file itself or, for an ar archive, each of its members in order. A file
// or member with malformed notes is yielded with the probes that could be
// decoded and the error of Open; one that cannot be read at all, such as
// a member that is no ELF file, as a nil NamedFile and its error, and the
// other members still follow.
func Files(name string) iter.Seq2[*NamedFile, error] {
	return func(yield func(*NamedFile, error) bool) {
		f, err := Open(name)
		if !errors.Is(err, ErrArchive) {
			if f == nil {
				yield(nil, err)
				return
			}
			yield(&NamedFile{Name: name, File: f}, err)
			return
		}
		a, err := OpenArchive(name)
		if err != nil {
			yield(nil, err)
			return
		}
		defer a.Close()
		for _, m := range a.Members {
			f, err := a.File(m)
			var nf *NamedFile
			if f != nil {
				nf = &NamedFile{Name: a.MemberName(m), File: f, Data: a.Reader(m)}
			}
			if (nf != nil || err != nil) && !yield(nf, err) {
				return
			}
		}
	}
}
