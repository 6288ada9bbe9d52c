package scripttest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"rsc.io/script"
)

// Cmds returns the sdtkit script commands, to be merged into
// scripttest.DefaultCmds.
func Cmds() map[string]script.Cmd {
	return map[string]script.Cmd{
		"jsonget":       JSONGet(),
		"readelf-agree": ReadelfAgree(),
		"strip-shdrs":   StripSectionHeaders(),
		"uprobe":        Uprobe(),
		"waitfile":      WaitFile(),
		"waitsites":     WaitSites(),
		"killduring":    KillDuring(),
		"poke":          Poke(),
	}
}

// Conds returns the sdtkit script conditions, to be merged into
// scripttest.DefaultConds.
func Conds() map[string]script.Cond {
	return map[string]script.Cond{
		"died":      Died(),
		"kernel":    Kernel(),
		"m32":       M32(),
		"run386":    Run386(),
		"nop5opt":   Nop5Optimized(),
		"probe":     Probe(),
		"debugfile": DebugFile(),
		"sdt.h":     SDTHeader(),
		"tracefs":   Tracefs(),
		"unsafe":    Unsafe(),
		"user":      User(),
	}
}

// lookPath finds an executable in the script's PATH, not the test
// process's, so that commands run the freshly built tools.
func lookPath(s *script.State, name string) (string, error) {
	path, _ := s.LookupEnv("PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &os.PathError{Op: "lookup", Path: name, Err: errNotInPath}
}

var errNotInPath = errors.New("executable not found in the script's PATH")

// lines splits command output into lines, without a final empty one.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
