package argspec

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Installed x86-64 programs and libraries that carry stapsdt notes.
var probedFiles = []string{
	"/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so",
	"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/usr/lib/postgresql/15/bin/postgres",
	"/usr/bin/gcc-12",
}

// TestInstalledProbes decodes every argument of the probes in installed
// binaries, as readelf lists them.
func TestInstalledProbes(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("requires readelf (binutils)")
	}
	for _, path := range probedFiles {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Skipf("requires %s: %v", path, err)
			}
			out, err := exec.Command(readelf, "-n", "--wide", path).Output()
			if err != nil {
				t.Fatalf("readelf -n --wide %s: %v", path, err)
			}
			probes, args := 0, 0
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				_, list, ok := strings.Cut(sc.Text(), "Arguments:")
				if !ok {
					continue
				}
				probes++
				for _, a := range ParseArgs(list, elf.EM_X86_64) {
					args++
					if a.Err != nil {
						t.Errorf("ParseArgs(%q): %v", list, a.Err)
						continue
					}
					again, err := ParseArg(a.String(), elf.EM_X86_64)
					again.Raw = a.Raw
					if err != nil || again != a {
						t.Errorf("ParseArg(%q) = %+v, %v, want %+v", a.String(), again, err, a)
					}
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if probes == 0 {
				t.Fatalf("readelf -n %s lists no probe arguments", path)
			}
			t.Logf("%d probes, %d arguments", probes, args)
		})
	}
}
