package probe

import (
	"errors"
	"io"
	"iter"

	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// A MappedFile is an ELF file a process maps, as Mapped yields it.
type MappedFile struct {
	Object *process.Object
	// File holds the probe sites; nil when the file could not be read.
	File *stapsdt.File
	// Data reads the file. It is open only until the loop body that
	// received the MappedFile returns.
	Data io.ReaderAt
}

// Mapped lists the objects process pid maps (see process.Objects) and
// returns an iterator over those that want selects (all when want is
// nil): each file is opened and its probe sites read, one at a time.
// Objects that are not ELF files (locale archives, fonts) are passed
// over. An object that cannot be opened is yielded with its error and a
// nil File; one with malformed notes with the sites that could be
// decoded and an error that names the file (see stapsdt.Open).
//
// The error of Mapped itself is that of a process that does not exist
// (process.ErrNoProcess) or whose maps may not be read.
func Mapped(pid int, want func(*process.Object) bool) (iter.Seq2[*MappedFile, error], error) {
	if err := process.Exists(pid); err != nil {
		return nil, err
	}
	maps, err := process.ReadMaps(pid)
	if err != nil {
		return nil, err
	}
	objs := process.Objects(pid, maps)
	return func(yield func(*MappedFile, error) bool) {
		for i := range objs {
			o := &objs[i]
			if want != nil && !want(o) {
				continue
			}
			mf, err := readMapped(o)
			ok := errors.Is(err, stapsdt.ErrNotELF) || yield(mf, err)
			if mf.Data != nil {
				mf.Data.(io.Closer).Close()
			}
			if !ok {
				return
			}
		}
	}, nil
}

func readMapped(o *process.Object) (*MappedFile, error) {
	mf := &MappedFile{Object: o}
	fd, err := o.Open()
	if err != nil {
		return mf, err
	}
	mf.Data = fd
	mf.File, err = stapsdt.Read(fd, o.Path)
	return mf, err
}
