package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// An entry is one file of an initramfs.
type entry struct {
	mode uint32 // type and permission bits, as stat's st_mode
	rdev [2]uint32
	// src is the host file to copy, data the contents otherwise; a
	// symlink's data is its target.
	src  string
	data []byte
}

const (
	modeDir  = 0o040000
	modeFile = 0o100000
	modeLink = 0o120000
	modeChar = 0o020000
)

// An archive is the contents of an initramfs, by path without the
// leading slash.
type archive map[string]entry

// dir adds the directory path and its parents.
func (a archive) dir(path string) {
	path = strings.Trim(path, "/")
	for p := path; p != "" && p != "."; p = parent(p) {
		if _, ok := a[p]; ok {
			return
		}
		a[p] = entry{mode: modeDir | 0o755}
	}
}

// parent returns the directory of p, "" at the top.
func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

// file adds the host file src as path, with mode's permission bits.
func (a archive) file(path, src string, perm uint32) {
	path = strings.Trim(path, "/")
	a.dir(parent(path))
	a[path] = entry{mode: modeFile | perm, src: src}
}

// bytes adds data as the file path.
func (a archive) bytes(path string, data []byte, perm uint32) {
	path = strings.Trim(path, "/")
	a.dir(parent(path))
	a[path] = entry{mode: modeFile | perm, data: data}
}

// symlink adds path, a link to target.
func (a archive) symlink(path, target string) {
	path = strings.Trim(path, "/")
	a.dir(parent(path))
	a[path] = entry{mode: modeLink | 0o777, data: []byte(target)}
}

// char adds the character device path.
func (a archive) char(path string, major, minor uint32, perm uint32) {
	path = strings.Trim(path, "/")
	a.dir(parent(path))
	a[path] = entry{mode: modeChar | perm, rdev: [2]uint32{major, minor}}
}

// write writes the archive in the kernel's initramfs format, cpio's
// "newc", parents before their children.
func (a archive) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	paths := make([]string, 0, len(a))
	for p := range a {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, p := range paths {
		if err := writeEntry(bw, uint32(i+1), p, a[p]); err != nil {
			return fmt.Errorf("initramfs: %s: %w", p, err)
		}
	}
	if err := writeHeader(bw, 0, "TRAILER!!!", 0, 0, [2]uint32{}); err != nil {
		return err
	}
	return bw.Flush()
}

func writeEntry(w *bufio.Writer, ino uint32, path string, e entry) error {
	data := e.data
	if e.src != "" {
		b, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		data = b
	}
	if err := writeHeader(w, ino, path, e.mode, len(data), e.rdev); err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	return pad(w, len(data))
}

// writeHeader writes a newc header and the name, padded to 4 bytes.
func writeHeader(w *bufio.Writer, ino uint32, name string, mode uint32, size int, rdev [2]uint32) error {
	nlink := 1
	if mode&0o170000 == modeDir {
		nlink = 2
	}
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	// devminor, rdevmajor, rdevminor, namesize, check
	_, err := fmt.Fprintf(w, "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, mode, 0, 0, nlink, 0, size, 0, 0, rdev[0], rdev[1], len(name)+1, 0)
	if err != nil {
		return err
	}
	if _, err := w.WriteString(name + "\x00"); err != nil {
		return err
	}
	return pad(w, 110+len(name)+1)
}

// pad writes the zeros that bring n written bytes to a multiple of 4.
func pad(w *bufio.Writer, n int) error {
	_, err := w.Write(make([]byte, (4-n%4)%4))
	return err
}
