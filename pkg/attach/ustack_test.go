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
// each backend, and checks that every caller is named, up to _start.
// The arm64 guests of the kernel matrix, which have no compiler, run it
// on a chain built ahead by the host's cross compiler.
func TestUStackCopy(t *testing.T) {
	testenv.RequireUprobes(t)
	chain := testchain.Build(t)
	for _, backend := range []Backend{BackendBPF, BackendTracefs} {
		t.Run(backend.String(), func(t *testing.T) {
			if backend == BackendBPF && kernelBefore(5, 15) {
				t.Skip("requires kernel 5.15 (due to missing BPF cookies)")
			}
			ctx := context.Background()
			cmd, err := launch.Start([]string{chain}, nil)
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
