package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sdtkit/sdtkit/internal/cli"
)

// systemtap's dtrace takes some options it has no use for, since makefiles
// written for DTrace pass them; sdtgen takes them too, and ignores them.
var (
	stapIgnored      = map[string]bool{"-64": true, "-32": true, "-fpic": true, "-fPIC": true, "-k": true, "--no-pyparsing": true, "--types": true}
	stapIgnoredValue = map[string]bool{"-x": true} // followed by a value
)

// stapOptions takes out of args the options of systemtap's dtrace that are
// no flags of sdtgen: the ignored ones, and the -I and -D options of the C
// preprocessor, which it returns, as given, for -C.
func stapOptions(args []string) (rest, cppFlags []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(rest, args[i:]...), cppFlags
		case stapIgnored[a]:
		case stapIgnoredValue[a]:
			i++
		case strings.HasPrefix(a, "-I"), strings.HasPrefix(a, "-D"):
			cppFlags = append(cppFlags, a)
		default:
			rest = append(rest, a)
		}
	}
	return rest, cppFlags
}

// parseInterspersed parses args with fs, taking flags after positional
// arguments too, as systemtap's dtrace does (dtrace -G -s p.d a.o -o p.o),
// and returns the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := cli.Parse(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// stapOutput returns the file systemtap's dtrace writes when it is given
// no -o: the base name of spec without its extension, with ext, in the
// current directory.
func stapOutput(spec, ext string) string {
	base := filepath.Base(spec)
	return strings.TrimSuffix(base, filepath.Ext(base)) + ext
}

// A specFile is the provider file to read, and how.
type specFile struct {
	name string
	// cpp is the C preprocessor command and its -I and -D options, for
	// -C; nil to read the file as it is.
	cpp    []string
	stderr io.Writer
}

func (s specFile) String() string { return s.name }

// read returns the text of the provider file, run through the
// preprocessor with -C. The preprocessor is $CPP, or cpp.
func (s specFile) read() ([]byte, error) {
	if s.cpp == nil {
		return os.ReadFile(s.name)
	}
	cmd := exec.Command(s.cpp[0], append(s.cpp[1:], s.name)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = s.stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: -C: %s: %w", s.name, strings.Join(cmd.Args, " "), err)
	}
	return out.Bytes(), nil
}

// cppCommand returns the preprocessor command for -C with flags: $CPP
// split at spaces, as systemtap's dtrace splits it, or cpp.
func cppCommand(flags []string) []string {
	cmd := strings.Fields(os.Getenv("CPP"))
	if len(cmd) == 0 {
		cmd = []string{"cpp"}
	}
	return append(cmd, flags...)
}
