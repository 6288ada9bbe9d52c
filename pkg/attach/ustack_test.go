package attach

import (
	"context"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testchain"
	"github.com/sdtkit/sdtkit/internal/testenv"
	"github.com/sdtkit/sdtkit/pkg/launch"
)

// TestUStackCopy traces chain:hit of the chain fixture, a program and a
// library built without frame pointers (see package testchain), with
// the stacks copied and unwound in user space (Options.UStackCopy), by
// each backend, and checks that every caller is named, up to _start:
// with the program alive while its stacks are read, and exited before,
// when its libraries are placed by what was learnt while it ran (the
// dynamic loader's stops with BPF, the kernel's reports of its
// mappings with uprobe events). The arm64 guests of the kernel matrix,
// which have no compiler, run it on a chain built ahead by the host's
// cross compiler.
func TestUStackCopy(t *testing.T) {
	testenv.RequireUprobes(t)
	chain := testchain.Build(t)
	for _, tt := range []struct {
		name    string
		backend Backend
		argv    []string
	}{
		{"bpf", BackendBPF, []string{chain}},
		{"bpf/exited", BackendBPF, []string{chain, "exit"}},
		{"tracefs", BackendTracefs, []string{chain}},
		{"tracefs/exited", BackendTracefs, []string{chain, "exit"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			backend := tt.backend
			if backend == BackendBPF && kernelBefore(5, 15) {
				t.Skip("requires kernel 5.15 (due to missing BPF cookies)")
			}
			ctx := context.Background()
			cmd, err := launch.Start(tt.argv, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Open(ctx, specs(t, "chain:hit"), &Options{
				Command: cmd, Dlopen: backend == BackendBPF, Backend: backend,
				UStack: MaxStack, UStackCopy: MaxStackCopy,
			})
			if err != nil {
				cmd.End(nil, nil)
				t.Fatal(err)
			}
			var stacks [][]string
			err = tr.Run(ctx, func(ev *Event) error {
				var syms []string
				for _, f := range tr.Stack(ev) {
					syms = append(syms, f.Sym)
				}
				stacks = append(stacks, syms)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if err := testchain.Check(stacks); err != nil {
				t.Error(err)
			}
		})
	}
}
