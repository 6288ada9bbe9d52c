//go:build linux && (amd64 || arm64)

package sdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"runtime"
	"testing"
	"unsafe"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// recorder returns an image whose one function stores the registers the
// trampoline loads into a 12-word buffer in its data segment, in argument
// order, and the buffer's file offset.
func recorder(t *testing.T) (*image, uint64) {
	t.Helper()
	f := elfwriter.NewFor(host.elf, elfwriter.Shared)
	f.PageSize = uint64(os.Getpagesize())
	buf := f.Data("regs", make([]byte, 8*MaxArgs), 8)
	fn := f.Func("record")
	var adr int // arm64: offset of the adr instruction to patch
	switch runtime.GOARCH {
	case "amd64":
		for i, r := range amd64Regs {
			f.AMD64().StoreRIP(r, buf, int64(8*i))
		}
	case "arm64":
		adr = f.Len()
		f.Raw(0, 0, 0, 0) // adr x13, regs
		for i := range MaxArgs {
			// str x<i>, [x13, #8*i]
			f.Raw(binary.LittleEndian.AppendUint32(nil, 0xf9000000|uint32(i)<<10|13<<5|uint32(i))...)
		}
	}
	f.Ret()
	f.End(fn)
	im, err := f.Link()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOARCH == "arm64" {
		off := int64(im.Addr(buf)) - int64(im.Addr(fn)) - int64(adr)
		ins := 0x10000000 | uint32(off&3)<<29 | uint32(off>>2&0x7ffff)<<5 | 13
		binary.LittleEndian.PutUint32(im.Bytes[im.Offset(fn)+uint64(adr):], ins)
	}
	ef, err := elf.NewFile(bytes.NewReader(im.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	img := &image{bytes: im.Bytes, sites: []site{{fn: im.Offset(fn)}}}
	var loads []segment
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			loads = append(loads, segment{p.Off, p.Filesz})
		}
	}
	img.rx, img.rw = loads[0], loads[1]
	return img, im.Offset(buf)
}

// TestCallRegisters checks that call passes each of the 12 words in the
// register the notes name.
func TestCallRegisters(t *testing.T) {
	img, buf := recorder(t)
	p, _ := NewProvider("tcall")
	page := uintptr(os.Getpagesize())
	o := &object{img: img, rx: pageRound(img.rx.size, page), rw: pageRound(img.rw.size, page)}
	sp, err := p.reserve(uintptr(img.rw.off) + o.rw)
	if err != nil {
		t.Fatal(err)
	}
	o.at = sp.addr
	if err := o.open("tcall"); err != nil {
		t.Fatal(err)
	}
	if err := o.mapSegments(); err != nil {
		t.Fatal(err)
	}
	defer o.close()
	var regs [MaxArgs]uint64
	for i := range regs {
		regs[i] = 0x0102030405060708*uint64(i+1) ^ 0xf0f0f0f0f0f0f0f0
	}
	call(uintptr(unsafe.Add(o.at, img.sites[0].fn)), &regs)
	got := unsafe.Slice((*uint64)(unsafe.Add(o.at, buf)), MaxArgs)
	for i := range regs {
		if got[i] != regs[i] {
			t.Errorf("argument %d (%s) = %#x, want %#x", i, host.reg(i, 8), got[i], regs[i])
		}
	}
}
