package main

import (
	"bytes"
	"debug/elf"
	"slices"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// TestGenerateShared checks the shared objects of every machine: an
// ET_DYN with its soname and no relocations, exporting the functions the
// manifest lists at their addresses (and the semaphores), each holding
// the sites of its probe, whose notes read back as the manifest says.
func TestGenerateShared(t *testing.T) {
	wantFuncs := []string{"p_q", "p_r", "p_all", "other_s", "other_f", fireAll}
	for _, a := range arches {
		for _, tt := range []struct {
			name string
			opts options
		}{
			{"reg", options{}},
			{"forms-sema", options{forms: allForms, sites: 3, semaphores: true}},
		} {
			t.Run(string(a)+"/"+tt.name, func(t *testing.T) {
				tt.opts.arch, tt.opts.typ, tt.opts.soname = a, elfwriter.Shared, "libt.so"
				im, man, err := generate(testProbes(), tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				ef, err := elf.NewFile(bytes.NewReader(im.Bytes))
				if err != nil {
					t.Fatal(err)
				}
				if ef.Type != elf.ET_DYN || ef.Machine != a.machine() || man.Type != "shared" {
					t.Errorf("type %v machine %v, manifest %q, want ET_DYN %v shared", ef.Type, ef.Machine, man.Type, a.machine())
				}
				if so, err := ef.DynString(elf.DT_SONAME); err != nil || !slices.Equal(so, []string{"libt.so"}) {
					t.Errorf("DT_SONAME = %q (%v), want libt.so", so, err)
				}
				for _, s := range ef.Sections {
					if s.Type == elf.SHT_REL || s.Type == elf.SHT_RELA {
						t.Errorf("section %s of type %v: want no relocations", s.Name, s.Type)
					}
				}

				dsyms, err := ef.DynamicSymbols()
				if err != nil {
					t.Fatal(err)
				}
				exported := make(map[string]elf.Symbol)
				for _, s := range dsyms {
					exported[s.Name] = s
				}
				var names []string
				for _, fn := range man.Functions {
					names = append(names, fn.Name)
					s, ok := exported[fn.Name]
					if !ok || elf.ST_TYPE(s.Info) != elf.STT_FUNC || elf.ST_BIND(s.Info) != elf.STB_GLOBAL || s.Value != fn.Addr || s.Size == 0 {
						t.Errorf("function %s at %#x: dynamic symbol %+v (found %v), want a global function there", fn.Name, fn.Addr, s, ok)
					}
				}
				if !slices.Equal(names, wantFuncs) {
					t.Errorf("manifest functions %q, want %q", names, wantFuncs)
				}
				for i, mp := range man.Probes {
					if fn := man.Functions[i]; fn.Probe != mp.Provider+":"+mp.Name {
						t.Errorf("function %s fires %q, want %s:%s", fn.Name, fn.Probe, mp.Provider, mp.Name)
					}
					if !tt.opts.semaphores {
						continue
					}
					s, ok := exported[mp.SemaphoreSymbol]
					if !ok || elf.ST_TYPE(s.Info) != elf.STT_OBJECT || s.Value != mp.Semaphore || mp.Semaphore == 0 {
						t.Errorf("semaphore %s at %#x: dynamic symbol %+v (found %v)", mp.SemaphoreSymbol, mp.Semaphore, s, ok)
					}
				}

				f, err := stapsdt.NewFile(bytes.NewReader(im.Bytes))
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for i, mp := range man.Probes {
					fn := exported[man.Functions[i].Name]
					for _, s := range mp.Sites {
						if n >= len(f.Sites) {
							t.Fatalf("%d notes, manifest has more sites", len(f.Sites))
						}
						p := f.Sites[n]
						n++
						if p.Provider != mp.Provider || p.Name != mp.Name || p.PC != s.PC || p.Args != s.Args || p.Semaphore != mp.Semaphore || p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil {
							t.Errorf("note %d = %s:%s pc=%#x args=%q semaphore=%#x (%v, %v), manifest %s:%s pc=%#x args=%q semaphore=%#x",
								n-1, p.Provider, p.Name, p.PC, p.Args, p.Semaphore, p.PCOffsetErr, p.SemaphoreOffsetErr, mp.Provider, mp.Name, s.PC, s.Args, mp.Semaphore)
						}
						if p.PC < fn.Value || p.PC >= fn.Value+fn.Size {
							t.Errorf("site of %s:%s at %#x, outside %s [%#x, %#x)", mp.Provider, mp.Name, p.PC, fn.Name, fn.Value, fn.Value+fn.Size)
						}
					}
				}
				if n != len(f.Sites) {
					t.Errorf("%d notes, manifest has %d sites", len(f.Sites), n)
				}
			})
		}
	}
}

// TestSharedNames checks that two functions with one name are an error on
// every machine.
func TestSharedNames(t *testing.T) {
	for _, tt := range []struct {
		probes []*probe
		want   string
	}{
		{[]*probe{{provider: "p_q", name: "r"}, {provider: "p", name: "q_r"}}, "p:q_r: function p_q_r defined twice"},
		{[]*probe{{provider: "sdt", name: "fire_all"}}, "sdt:fire_all: function sdt_fire_all defined twice"},
	} {
		for _, a := range arches {
			_, _, err := generate(tt.probes, options{arch: a, typ: elfwriter.Shared})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: generate(%s) = %v, want %s", a, tt.probes[0], err, tt.want)
			}
		}
	}
}
