package usdt_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/sdtkit/sdtkit/pkg/usdt"
)

// linkHit is struct link_hit of testdata/link_a.bpf.c.
type linkHit struct {
	Cookie uint64
	A      int64
}

// TestLink builds two objects that include usdt.bpf.h, each with a
// program of BPF_USDT, one of them with BPF_USDT_WEAK, links them into
// one with bpftool gen object, and checks that cilium/ebpf reads one map
// of specs in it; as root, that both programs attached by LoadCollection
// read the arguments of their probes through it.
func TestLink(t *testing.T) {
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("requires bpftool")
	}
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		if clang, err = exec.LookPath("clang"); err != nil {
			t.Skip("requires clang")
		}
	}
	if _, err := os.Stat("/usr/include/bpf/bpf_helpers.h"); err != nil {
		t.Skip("requires libbpf's headers (libbpf-dev)")
	}
	dir := t.TempDir()
	linked := filepath.Join(dir, "link.o")
	var objs []string
	for _, name := range []string{"link_a", "link_b"} {
		obj := filepath.Join(dir, name+".o")
		objs = append(objs, obj)
		// Debian keeps asm/ headers under the multiarch directory.
		args := []string{"-O2", "-g", "-Wall", "-Werror", "-target", "bpfel", "-I", "include",
			"-idirafter", "/usr/include/" + multiarch(), "-c", "testdata/" + name + ".bpf.c", "-o", obj}
		if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", clang, args, err, out)
		}
	}
	if out, err := exec.Command(bpftool, append([]string{"gen", "object", linked}, objs...)...).CombinedOutput(); err != nil {
		t.Fatalf("bpftool gen object: %v\n%s", err, out)
	}
	spec, err := ebpf.LoadCollectionSpec(linked)
	if err != nil {
		t.Fatalf("LoadCollectionSpec(linked) = %v", err)
	}
	for _, name := range []string{"link_a", "link_b"} {
		if spec.Programs[name] == nil {
			t.Fatalf("linked object: no program %s", name)
		}
	}
	if spec.Maps[usdt.SpecMap] == nil || len(spec.Maps) != 2 {
		t.Fatalf("linked object: maps %v, want %s and link_hits", keys(spec.Maps), usdt.SpecMap)
	}

	if os.Geteuid() != 0 {
		t.Skipf("requires root (euid %d) to attach", os.Geteuid())
	}
	path, m := fixtureFile(t)
	c, err := usdt.LoadCollection(spec, []usdt.Probe{
		{Program: "link_a", Path: path, Provider: "p", Name: "q", Options: &usdt.Options{Cookie: 1}},
		{Program: "link_b", Path: path, Provider: "p", Name: "r", Options: &usdt.Options{Cookie: 2}},
	}, nil)
	if errors.Is(err, ebpf.ErrNotSupported) {
		t.Skipf("requires kernel 5.15 (due to missing BPF cookies): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if out, err := exec.Command(path, "1", "1").CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", path, err, out)
	}
	hits := readAll[linkHit](t, c.Collection.Maps["link_hits"], 6)
	n := map[uint64]int{}
	for _, h := range hits {
		p, i := &m.Probes[0], n[h.Cookie]
		n[h.Cookie]++
		switch h.Cookie {
		case 1:
		case 1002:
			p = &m.Probes[1]
		default:
			t.Fatalf("cookie %d, want 1 (link_a) or 1002 (link_b)", h.Cookie)
		}
		if want := p.Sites[i%3].Values[0][0].(int64); h.A != want {
			t.Errorf("p:%s site %d: arg0 = %d, want %d", p.Name, i, h.A, want)
		}
	}
	if n[1] != 3 || n[1002] != 3 {
		t.Errorf("hits by cookie %v, want 3 of each", n)
	}
}

// multiarch returns Debian's multiarch triple of this machine.
func multiarch() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64-linux-gnu"
	}
	return "x86_64-linux-gnu"
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
