package bpf

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// maxBPFStack is MAX_BPF_STACK (include/linux/filter.h): the bytes of
// stack that every frame of a chain of bpf-to-bpf calls shares.
const maxBPFStack = 512

// frame is a function of a program: the bytes below r10 it reaches and
// the functions it calls.
type frame struct {
	name  string
	depth int
	calls []string
}

// frameSize is what a frame of depth bytes adds to a chain, as
// check_max_stack_depth (kernel/bpf/verifier.c) counts it up to 6.6,
// and since with the interpreter: whole 32-byte slots, at least one.
// Later kernels round JIT-compiled frames to 16 bytes only, and may
// give tracing programs a stack of their own per frame; 32 bytes and a
// shared stack hold on every kernel the programs load on.
func frameSize(depth int) int {
	return (max(depth, 1) + 31) &^ 31
}

// frames splits insns into its functions and finds the depth of each:
// the deepest byte below r10 that one of its loads, stores or atomic
// operations reaches, or that a pointer it makes from r10 points to,
// which is where a helper or callee given the pointer writes.
func frames(insns asm.Instructions) ([]*frame, error) {
	var fs []*frame
	var f *frame
	// fp[r] is the offset from r10 register r holds, if known[r].
	var fp [asm.R10 + 1]int64
	var known [asm.R10 + 1]bool
	reach := func(off int64) {
		if off < 0 && int(-off) > f.depth {
			f.depth = int(-off)
		}
	}
	for i, ins := range insns {
		if name := ins.Symbol(); name != "" || f == nil {
			if name == "" {
				return nil, fmt.Errorf("insn 0: no symbol names the first function")
			}
			f = &frame{name: name}
			fs = append(fs, f)
			known = [asm.R10 + 1]bool{asm.R10: true}
		}
		op := ins.OpCode
		dst, src := ins.Dst, ins.Src
		switch op.Class() {
		case asm.LdXClass:
			if known[src] {
				reach(fp[src] + int64(ins.Offset))
			}
			known[dst] = false
		case asm.LdClass:
			known[dst] = false
		case asm.StClass, asm.StXClass:
			if known[dst] {
				reach(fp[dst] + int64(ins.Offset))
			}
			if op.Class() == asm.StXClass && known[src] {
				reach(fp[src]) // a pointer into the frame, kept
			}
			if op.Mode() == asm.AtomicMode {
				// A fetch loads into src, a compare-exchange into r0.
				known[src], known[asm.R0] = false, false
			}
		case asm.ALU64Class:
			switch {
			case op.ALUOp() == asm.Mov && op.Source() == asm.RegSource:
				fp[dst], known[dst] = fp[src], known[src]
			case op.ALUOp() == asm.Mov:
				// A number in place of what the register held, a
				// pointer into the frame on another path.
				known[dst] = false
			case !known[dst] && (op.Source() == asm.ImmSource || !known[src]):
				// Arithmetic on numbers.
			case (op.ALUOp() == asm.Add || op.ALUOp() == asm.Sub) && op.Source() == asm.ImmSource:
				if op.ALUOp() == asm.Add {
					fp[dst] += ins.Constant
				} else {
					fp[dst] -= ins.Constant
				}
				reach(fp[dst])
			case op.ALUOp() == asm.And || op.ALUOp() == asm.Or || op.ALUOp() == asm.Xor ||
				op.ALUOp() == asm.LSh || op.ALUOp() == asm.RSh || op.ALUOp() == asm.ArSh:
				// The verifier refuses bitwise operations on pointers:
				// on the path that runs this, dst holds a number, and
				// the pointer into the frame came from another path of
				// this linear walk.
				known[dst] = false
			case op.ALUOp() == asm.Add && known[dst] && !known[src]:
				// An index into an array of the frame, which C has
				// from its base up: the base was reached above.
				known[dst] = false
			default:
				return nil, fmt.Errorf("insn %d (%s): %v: an offset from r10 that is not a constant", i, f.name, ins)
			}
		case asm.ALUClass:
			known[dst] = false
		case asm.JumpClass, asm.Jump32Class:
			if op.JumpOp() != asm.Call {
				break
			}
			for r := asm.R1; r <= asm.R5; r++ {
				if known[r] {
					reach(fp[r])
				}
			}
			if ins.IsFunctionCall() {
				f.calls = append(f.calls, ins.Reference())
			}
			for r := asm.R0; r <= asm.R5; r++ {
				known[r] = false
			}
		}
	}
	return fs, nil
}

// chainDepth returns the stack the deepest chain of calls from the first
// of fs takes, and the functions of that chain.
func chainDepth(fs []*frame) (int, []string, error) {
	if len(fs) == 0 {
		return 0, nil, fmt.Errorf("no functions")
	}
	byName := make(map[string]*frame)
	for _, f := range fs {
		byName[f.name] = f
	}
	var walk func(f *frame, seen []string) (int, []string, error)
	walk = func(f *frame, seen []string) (int, []string, error) {
		for _, s := range seen {
			if s == f.name {
				return 0, nil, fmt.Errorf("%s: recursion through %s", strings.Join(seen, " > "), f.name)
			}
		}
		seen = append(seen, f.name)
		deepest, chain := 0, []string(nil)
		for _, c := range f.calls {
			callee, ok := byName[c]
			if !ok {
				return 0, nil, fmt.Errorf("%s: calls %s, which is not in the program", f.name, c)
			}
			d, ch, err := walk(callee, seen)
			if err != nil {
				return 0, nil, err
			}
			if d > deepest {
				deepest, chain = d, ch
			}
		}
		return frameSize(f.depth) + deepest, append([]string{f.name}, chain...), nil
	}
	return walk(fs[0], nil)
}

// describe shows the frames of a chain: "main 504 (512) > sub 72 (96)".
func describe(fs []*frame, chain []string) string {
	var parts []string
	for _, name := range chain {
		for _, f := range fs {
			if f.name == name {
				parts = append(parts, fmt.Sprintf("%s %d (%d)", name, f.depth, frameSize(f.depth)))
				break
			}
		}
	}
	return strings.Join(parts, " > ")
}

// The verifier of the running kernel checks the programs of this
// architecture only; the stack of the others is checked here, from
// their instructions, as the verifier would.
func TestStackDepth(t *testing.T) {
	objs, err := filepath.Glob("*_bpfel.o")
	if err != nil {
		t.Fatal(err)
	}
	arches := make(map[string]int)
	for _, obj := range objs {
		arch := obj[strings.LastIndex(strings.TrimSuffix(obj, "_bpfel.o"), "_")+1 : len(obj)-len("_bpfel.o")]
		arches[arch]++
		spec, err := ebpf.LoadCollectionSpec(obj)
		if err != nil {
			t.Fatalf("LoadCollectionSpec(%s): %v", obj, err)
		}
		for name, p := range spec.Programs {
			fs, err := frames(p.Instructions)
			if err != nil {
				t.Errorf("%s: %s: %v", obj, name, err)
				continue
			}
			depth, chain, err := chainDepth(fs)
			if err != nil {
				t.Errorf("%s: %s: %v", obj, name, err)
				continue
			}
			t.Logf("%s %s: %d bytes: %s", obj, name, depth, describe(fs, chain))
			if depth > maxBPFStack {
				t.Errorf("%s %s: %d bytes of stack, more than %d: %s", obj, name, depth, maxBPFStack, describe(fs, chain))
			}
		}
	}
	for _, arch := range []string{"x86", "arm64"} {
		if arches[arch] == 0 {
			t.Errorf("no object for %s among %v", arch, objs)
		}
	}
}

// A chain deeper than the stack is found, though each frame fits; and
// frames of other chains do not add up.
func TestStackDepthSynthetic(t *testing.T) {
	store := func(off int16) asm.Instruction {
		return asm.StoreImm(asm.R10, off, 0, asm.Word)
	}
	// sub(name, off) is a function storing at r10+off.
	sub := func(name string, off int16, calls ...string) asm.Instructions {
		insns := asm.Instructions{store(off).WithSymbol(name)}
		for _, c := range calls {
			insns = append(insns, asm.Call.Label(c))
		}
		return append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
	}
	join := func(parts ...asm.Instructions) asm.Instructions {
		var insns asm.Instructions
		for _, p := range parts {
			insns = append(insns, p...)
		}
		return insns
	}
	for _, tt := range []struct {
		name   string
		insns  asm.Instructions
		want   int
		kernel bool // the kernel's verifier agrees
	}{
		{"one frame", sub("main", -8), 32, false},
		{"a slot exactly", sub("main", -64), 64, false},
		{"no stack", asm.Instructions{asm.Mov.Imm(asm.R0, 0).WithSymbol("main"), asm.Return()}, 32, false},
		{"pointer to a helper", asm.Instructions{
			asm.Mov.Reg(asm.R1, asm.R10).WithSymbol("main"),
			asm.Add.Imm(asm.R1, -72),
			asm.Mov.Imm(asm.R2, 16),
			asm.FnGetCurrentComm.Call(),
			asm.Return(),
		}, 96, false},
		{"pointer kept in r6", asm.Instructions{
			asm.Mov.Reg(asm.R6, asm.R10).WithSymbol("main"),
			asm.Add.Imm(asm.R6, -200),
			asm.FnKtimeGetNs.Call(),
			asm.StoreMem(asm.R6, -8, asm.R0, asm.DWord),
			asm.Return(),
		}, 224, false},
		{"chain of three", join(sub("main", -8, "a"), sub("a", -256, "b"), sub("b", -256)), 544, true},
		{"two chains", join(sub("main", -8, "a", "b"), sub("a", -256), sub("b", -256)), 288, true},
		{"chain at the limit", join(sub("main", -8, "a"), sub("a", -256, "b"), sub("b", -200)), 512, true},
	} {
		fs, err := frames(tt.insns)
		if err != nil {
			t.Errorf("%s: frames: %v", tt.name, err)
			continue
		}
		got, chain, err := chainDepth(fs)
		if err != nil {
			t.Errorf("%s: chainDepth: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: chainDepth = %d (%s), want %d", tt.name, got, describe(fs, chain), tt.want)
		}
		if tt.kernel && os.Geteuid() == 0 {
			verifierAgrees(t, tt.name, tt.insns, got)
		}
	}

	// A variable offset from r10 is beyond this check, and said so.
	_, err := frames(asm.Instructions{
		asm.Mov.Reg(asm.R1, asm.R10).WithSymbol("main"),
		asm.Sub.Reg(asm.R1, asm.R2),
		asm.Return(),
	})
	if err == nil {
		t.Errorf("frames(r1 = r10; r1 -= r2) = nil error, want one")
	}
}

// verifierAgrees loads insns as a socket filter, whose frames share
// the stack on every kernel, and checks that the verifier takes it if
// and only if depth is within the stack.
func verifierAgrees(t *testing.T, name string, insns asm.Instructions, depth int) {
	t.Helper()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name:         "stack",
		Type:         ebpf.SocketFilter,
		Instructions: insns,
		License:      "MIT",
	})
	if err == nil {
		prog.Close()
	}
	switch {
	case depth > maxBPFStack && err == nil:
		t.Errorf("%s: the verifier takes %d bytes of stack", name, depth)
	case depth > maxBPFStack && !strings.Contains(fmt.Sprintf("%+v", err), "combined stack size"):
		t.Errorf("%s: the verifier rejects %d bytes of stack for another reason: %+v", name, depth, err)
	case depth <= maxBPFStack && err != nil:
		t.Errorf("%s: the verifier rejects %d bytes of stack: %+v", name, depth, err)
	}
}

// stackDepthLine is the verifier's statistics line of the depth of each
// function, in the order of the instructions: "stack depth 504+72+16".
var stackDepthLine = regexp.MustCompile(`(?m)^stack depth ([0-9+]+)$`)

// The depth of each function found from the instructions is the one the
// kernel's verifier finds, for the programs of the running architecture,
// set up so that every part of them runs.
func TestStackDepthVerifier(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	if kernelBefore(5, 15) {
		// Whose builds cannot check filters (see USDT_OLD).
		t.Skip("requires kernel 5.15 (due to missing BPF cookies)")
	}
	// The stack is taken one way or the other: the verifier drops the
	// function of the other way, dead.
	ways := []struct {
		name string
		size uint32
		dead string
	}{{"ustack_max", MaxStack, "take_copy"}, {"ustack_copy", MaxStackCopy, "take_stack"}}
	for _, obj := range []string{"usdt_x86_bpfel.o", "usdtlean_x86_bpfel.o", "usdtnum_x86_bpfel.o", "agg_x86_bpfel.o"} {
		for _, way := range ways {
			stackDepthVerifier(t, obj, way.name, way.size, way.dead)
		}
	}
}

func stackDepthVerifier(t *testing.T, obj, way string, size uint32, dead string) {
	spec, err := ebpf.LoadCollectionSpec(obj)
	if err != nil {
		t.Fatalf("LoadCollectionSpec(%s): %v", obj, err)
	}
	// Every part on: filters, arguments, stacks, latencies and their stats,
	// a key of every word with every part an argument.
	var kinds [MaxKeyParts]uint8
	var offs, sizes [MaxKeyParts]uint16
	for i := range kinds {
		kinds[i], offs[i], sizes[i] = uint8(PartArg), uint16(i*8), 8
	}
	for name, v := range map[string]any{
		"filtering": uint8(1), "read_args": uint8(1), "mode": uint8(AggLatency), "pair_kind": uint8(PartArg),
		"key_words": uint8(maxKeySize / 8), "nparts": uint8(MaxKeyParts),
		"part_kind": kinds, "part_off": offs, "part_size": sizes, way: size,
	} {
		if vs, ok := spec.Variables[name]; ok {
			if err := vs.Set(v); err != nil {
				t.Fatalf("%s: set %s: %v", obj, name, err)
			}
		}
	}
	if m, ok := spec.Maps["current"]; ok {
		m.InnerMap.KeySize = uint32(maxKeySize)
		m.InnerMap.ValueSize = uint32(aggValueSize(AggStats))
	}
	coll, err := ebpf.NewCollectionWithOptions(spec, ebpf.CollectionOptions{
		Programs: ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats},
	})
	if err != nil {
		t.Fatalf("%s: load: %+v", obj, err)
	}
	defer coll.Close()
	for name, prog := range coll.Programs {
		m := stackDepthLine.FindStringSubmatch(prog.VerifierLog)
		if m == nil {
			t.Errorf("%s %s: no stack depth in the verifier's log:\n%s", obj, name, prog.VerifierLog)
			continue
		}
		fs, err := frames(spec.Programs[name].Instructions)
		if err != nil {
			t.Errorf("%s %s: %v", obj, name, err)
			continue
		}
		// The verifier counts the stack in whole 8-byte slots
		// (grow_stack_state).
		var got []string
		for _, f := range fs {
			if f.name != dead {
				got = append(got, strconv.Itoa((f.depth+7)&^7))
			}
		}
		t.Logf("%s %s (%s): verifier %s, found %s", obj, name, way, m[1], strings.Join(got, "+"))
		if strings.Join(got, "+") != m[1] {
			t.Errorf("%s %s (%s): depths %s, the verifier's %s", obj, name, way, strings.Join(got, "+"), m[1])
		}
	}
}
