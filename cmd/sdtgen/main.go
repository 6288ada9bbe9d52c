package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

const usageText = `usage: sdtgen -o PROG [--pie | --shared] [--arch ARCH] [--semaphores] [--forms LIST] [--sites N] [--insn INSN] [--manifest FILE] [--corrupt KIND] SPEC.d
       sdtgen -h [-o FILE.h] SPEC.d
       sdtgen -G -o FILE.o SPEC.d
       sdtgen -h|-G [-C [-IDIR] [-DNAME[=VALUE]]] -s SPEC.d [-o FILE] [OBJ...]

Write a Linux executable (x86-64, or the machine of --arch) that fires
every probe of the DTrace provider file SPEC.d with known argument
values, with no compiler.
Run it as PROG [ITERATIONS [INTERVAL_MS]].

With -h, write a C header of probe macros instead, which needs no
<sys/sdt.h>; with -G, the object file defining their semaphores. With -s,
-h and -G take the command line of systemtap's dtrace: OBJ... are
ignored, -o defaults to SPEC.h or SPEC.o, -C runs $CPP (or cpp).
-help or --help prints this message (-h is the header).

Flags:
`

func main() {
	stderr := cli.Setup("sdtgen")
	cli.Exit(run(os.Args[1:], os.Stdout, stderr))
}

// A mode is what sdtgen writes.
type mode int

const (
	modeProgram mode = iota
	modeHeader       // -h
	modeObject       // -G
)

// config is the parsed command line.
type config struct {
	mode     mode
	out      string
	manifest string
	corrupt  fixture.Corruption
	spec     specFile
	opts     fixture.Options
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	var pie, shared, header, object, cpp bool
	var corrupt, spec, insn string
	forms, archName := "reg", "amd64"
	fs := cli.FlagSet("sdtgen", usageText, stderr)
	fs.BoolVar(&header, "h", false, "write a C header of probe macros (to -o FILE.h or standard output)")
	fs.BoolVar(&object, "G", false, "write an object file defining the semaphores of the -h header")
	fs.StringVar(&spec, "s", "", "read the provider file `SPEC.d`, as systemtap's dtrace does; other arguments are then object files, ignored")
	fs.BoolVar(&cpp, "C", false, "run SPEC.d through the C preprocessor ($CPP or cpp) with the -I and -D options given")
	fs.StringVar(&c.out, "o", "", "write the program to `PROG`")
	fs.BoolVar(&pie, "pie", false, "write a static PIE (ET_DYN) instead of an ET_EXEC at the address GNU ld uses (0x400000 on amd64)")
	fs.BoolVar(&shared, "shared", false, "write a shared object exporting PROVIDER_NAME(k) per probe and sdt_fire_all(k)")
	fs.StringVar(&archName, "arch", archName, "write the program for `ARCH`: amd64, arm64, 386 or s390x")
	fs.BoolVar(&c.opts.Semaphores, "semaphores", false, "give every probe a semaphore; fire and report only enabled probes")
	fs.StringVar(&forms, "forms", forms, "place arguments in the operand forms of `LIST` in turn (reg,mem,sib,rip,imm,float)")
	fs.IntVar(&c.opts.Sites, "sites", 1, "give each probe `N` sites (at most 1048576 sites in all)")
	fs.StringVar(&insn, "insn", "nop", "place each site on `INSN`: nop, or with --arch amd64 nop5, nop+nop5 or nop+nop10")
	fs.StringVar(&c.manifest, "manifest", "", "write the JSON manifest to `FILE`")
	fs.StringVar(&corrupt, "corrupt", "", "write a defect of `KIND` into the notes: "+corruptionNames())
	args, cppFlags := stapOptions(args)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	usage := func(format string, a ...any) (*config, error) {
		fmt.Fprintf(stderr, "sdtgen: "+format+"\n", a...)
		fs.Usage()
		return nil, cli.ErrUsage
	}
	stap := spec != "" // systemtap's command line
	switch {
	case stap && !header && !object && len(pos) > 0:
		return usage("-s %s: object files %s only with -h or -G", spec, strings.Join(pos, " "))
	case spec == "" && len(pos) != 1:
		return usage("want one SPEC.d, have %d arguments", len(pos))
	case spec == "":
		spec = pos[0]
	}
	c.spec = specFile{name: spec, stderr: stderr}
	if cpp {
		c.spec.cpp = cppCommand(cppFlags)
	} else if len(cppFlags) > 0 {
		return usage("%s: only with -C", strings.Join(cppFlags, " "))
	}
	switch {
	case header && object:
		return usage("-h and -G exclude each other")
	case header || object:
		c.mode = modeHeader
		if object {
			c.mode = modeObject
		}
		var set []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "h", "G", "o", "s", "C":
			default:
				set = append(set, "-"+f.Name)
			}
		})
		if len(set) > 0 {
			return usage("%s: only for programs, not with -h or -G", strings.Join(set, ", "))
		}
		if c.out == "" && stap {
			ext := ".h"
			if object {
				ext = ".o"
			}
			c.out = stapOutput(spec, ext)
		}
		if object && c.out == "" {
			return usage("no -o FILE.o")
		}
		return &c, nil
	case c.out == "":
		return usage("no -o PROG")
	}
	if c.opts.Sites < 1 || c.opts.Sites > fixture.MaxSites {
		return usage("--sites %d: want at least 1 and at most %d", c.opts.Sites, fixture.MaxSites)
	}
	if c.opts.Forms, err = fixture.ParseForms(forms); err != nil {
		return usage("--forms: %v", err)
	}
	if !slices.Contains(fixture.Arches(), archName) {
		return usage("--arch: unknown architecture %q, want one of %s", archName, strings.Join(fixture.Arches(), ", "))
	}
	c.opts.Arch = archName
	if c.opts.Insn, err = stapsdt.ParseInsn(insn); err != nil || c.opts.Insn == stapsdt.InsnOther {
		return usage("--insn: %q: want nop, nop5, nop+nop5 or nop+nop10", insn)
	}
	if c.opts.Insn != stapsdt.InsnNop && archName != "amd64" {
		return usage("--insn %s: only with --arch amd64", insn)
	}
	switch {
	case pie && shared:
		return usage("--pie and --shared exclude each other")
	case pie:
		c.opts.Type = elfwriter.PIE
	case shared:
		c.opts.Type = elfwriter.Shared
		c.opts.Soname = filepath.Base(c.out)
	}
	if corrupt != "" {
		if c.corrupt, err = fixture.ParseCorruption(corrupt); err != nil {
			return usage("--corrupt: %v", err)
		}
		if c.opts.Arch != "amd64" && c.opts.Arch != "arm64" {
			return usage("--corrupt: only with --arch amd64 or arm64")
		}
		if c.corrupt == fixture.MisalignedSema {
			c.opts.Semaphores = true
		}
	}
	return &c, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	switch c.mode {
	case modeHeader:
		return writeHeaderFile(c.out, c.spec, stdout)
	case modeObject:
		return writeObjectFile(c.out, c.spec)
	}
	providers, err := loadProviders(c.spec)
	if err != nil {
		return err
	}
	prog, err := fixture.Generate(providers, c.opts)
	if err == nil && c.corrupt != "" {
		err = c.corrupt.Apply(prog.Bytes)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.spec, err)
	}
	if err := os.WriteFile(c.out, prog.Bytes, 0o755); err != nil {
		return err
	}
	if c.manifest == "" {
		return nil
	}
	return writeFile(c.manifest, prog.Manifest.Write)
}

// corruptionNames returns the kinds --corrupt takes, for the help.
func corruptionNames() string {
	var names []string
	for _, c := range fixture.Corruptions() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}

// writeFile creates the file name and writes it with write; a file
// write fails on is removed.
func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	return f.Close()
}
