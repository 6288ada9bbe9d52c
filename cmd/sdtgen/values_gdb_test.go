package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// gdbArches are gdb's names of the machines, for set architecture.
var gdbArches = map[arch]string{"arm64": "aarch64", "s390x": "s390:64-bit", "386": "i386"}

// qemuCommands are the user-mode emulators of the machines.
var qemuCommands = map[arch]string{"arm64": "qemu-aarch64", "s390x": "qemu-s390x", "386": "qemu-i386"}

// gdbRejects reports whether gdb 13 cannot parse operand a, which gcc
// writes too with sys/sdt.h: gdb then reads none of the site's arguments
// from a on.
//   - Nf@ (any machine): gdb 13 knows no f in a size prefix.
//   - aarch64 [x1, x2] (gcc's for an "m" operand): gdb wants a number
//     after the comma.
//   - s390x 14(%r1,%r2): gdb's s390 operands have no index register.
//   - i386 p_q_site1+8 (gcc's for a global, outside a PIE) and
//     8+sym@GOTOFF(%ebx) (in a PIE): gdb parses no symbol in an operand.
func gdbRejects(m elf.Machine, a argspec.Arg) bool {
	switch {
	case a.Float:
		return true
	case m == elf.EM_AARCH64 || m == elf.EM_S390:
		return a.Kind == argspec.SIB
	case m == elf.EM_386:
		return a.Symbol != ""
	}
	return false
}

// i386Pairs are the registers holding the high word of an 8-byte value
// whose low word is in the key, as doc.go says gcc pairs them.
var i386Pairs = map[string]string{"eax": "edx", "edx": "ecx", "ecx": "ebx", "ebx": "esi", "esi": "edi"}

// gdbType returns the C type of an integer of size bytes.
func gdbType(size int, signed bool) string {
	t := map[int]string{1: "char", 2: "short", 4: "int", 8: "long long"}[size]
	switch {
	case signed && size == 1:
		return "signed char"
	case signed:
		return t
	}
	return "unsigned " + t
}

// gdbExpr returns a gdb expression for the value of integer or string
// argument a of machine m, read from the registers and memory its operand
// names as argspec decodes it: the reading of the operands gdb cannot
// parse, and a second reading of the others. An 8-byte register argument
// on i386 takes its high word from the register paired with the one
// named.
func gdbExpr(m elf.Machine, a argspec.Arg) (string, error) {
	if a.Err != nil {
		return "", a.Err
	}
	typ := gdbType(a.Size, a.Signed)
	switch a.Kind {
	case argspec.Const:
		return fmt.Sprintf("(%s)%d", typ, a.Offset), nil
	case argspec.Register:
		if hi, ok := i386Pairs[a.Base.Name]; ok && m == elf.EM_386 && a.Size == 8 {
			return fmt.Sprintf("(%s)((unsigned long long)(unsigned int)$%s << 32 | (unsigned int)$%s)", typ, hi, a.Base.Name), nil
		}
		return fmt.Sprintf("(%s)$%s", typ, a.Base.Name), nil
	case argspec.Memory:
		return fmt.Sprintf("*(%s *)((unsigned long)$%s + %d%s)", typ, a.Base.Name, a.Offset, gdbSymbol(a)), nil
	case argspec.SIB:
		return fmt.Sprintf("*(%s *)((unsigned long)$%s + (unsigned long)$%s * %d + %d%s)", typ, a.Base.Name, a.Index.Name, a.Scale, a.Offset, gdbSymbol(a)), nil
	case argspec.Symbol:
		if a.Base.Name == "" {
			return fmt.Sprintf("*(%s *)((unsigned long)&%s + %d)", typ, a.Symbol, a.Offset), nil
		}
	}
	return "", fmt.Errorf("operand %s: no gdb expression for kind %v", a, a.Kind)
}

// gdbSymbol returns the part of a memory or sib operand's displacement
// that its symbol gives, as a gdb term: its address, or its distance from
// the GOT.
func gdbSymbol(a argspec.Arg) string {
	switch {
	case a.Symbol == "":
		return ""
	case a.Reloc == argspec.RelocGOTOFF:
		return fmt.Sprintf(" + ((unsigned long)&%s - (unsigned long)&_GLOBAL_OFFSET_TABLE_)", a.Symbol)
	}
	return fmt.Sprintf(" + (unsigned long)&%s", a.Symbol)
}

// A gdbStop is what gdb printed at one stop on a probe site.
type gdbStop struct {
	pc   uint64         // as linked
	argc int            // $_probe_argc, or -1 when gdb printed none
	arg  map[int]string // $_probe_argN, as %lld or the string it points to
	raw  map[int]string // the operand read through gdbExpr
}

// gdbStopCommands returns the commands that continue to the next stop,
// on a site whose note has operands args of types types, and print it:
// lines @stop PC, @argc N, @arg I VALUE and @raw I VALUE, a string
// argument's VALUE being the string. A float argument is left out: gdb 13
// cannot evaluate 4f@ and 8f@ operands. The first look at a site's
// arguments fails when gdb cannot parse one of them, so @argc is printed
// twice.
func gdbStopCommands(m elf.Machine, args []argspec.Arg, types []manifestType) ([]string, error) {
	cmds := []string{
		"continue",
		`printf "@stop %llu\n", (unsigned long long)($pc - $bias)`,
		`printf "@argc %d\n", $_probe_argc`,
		`printf "@argc %d\n", $_probe_argc`,
	}
	for i, a := range args {
		if a.Float {
			continue
		}
		expr, err := gdbExpr(m, a)
		if err != nil {
			return nil, err
		}
		if types[i].String {
			cmds = append(cmds,
				fmt.Sprintf(`printf "@arg %d %%s\n", (char *)$_probe_arg%d`, i, i),
				fmt.Sprintf(`printf "@raw %d %%s\n", (char *)(%s)`, i, expr))
			continue
		}
		cmds = append(cmds,
			fmt.Sprintf(`printf "@arg %d %%lld\n", (long long)$_probe_arg%d`, i, i),
			fmt.Sprintf(`printf "@raw %d %%lld\n", (long long)(%s)`, i, expr))
	}
	return cmds, nil
}

// parseGDBStops returns the stops of gdb's output, in order.
func parseGDBStops(out string) ([]gdbStop, error) {
	var stops []gdbStop
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		switch {
		case f[0] == "@stop" && len(f) == 2:
			pc, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("gdb output %q: %w", sc.Text(), err)
			}
			stops = append(stops, gdbStop{pc: pc, argc: -1, arg: map[int]string{}, raw: map[int]string{}})
			continue
		case !strings.HasPrefix(f[0], "@") || f[0] == "@end":
			continue
		case len(stops) == 0:
			return nil, fmt.Errorf("gdb output %q before a stop", sc.Text())
		}
		s := &stops[len(stops)-1]
		var err error
		switch {
		case f[0] == "@argc" && len(f) == 2:
			s.argc, err = strconv.Atoi(f[1])
		case (f[0] == "@arg" || f[0] == "@raw") && len(f) == 3:
			var i int
			i, err = strconv.Atoi(f[1])
			if f[0] == "@arg" {
				s.arg[i] = f[2]
			} else {
				s.raw[i] = f[2]
			}
		default:
			err = errors.New("unknown line")
		}
		if err != nil {
			return nil, fmt.Errorf("gdb output %q: %w", sc.Text(), err)
		}
	}
	return stops, sc.Err()
}

// A gdbSession is the outcome of running a program under qemu's gdbstub
// with gdb attached.
type gdbSession struct {
	gdbOut, gdbErr string
	progOut        string
	progErr        error // of qemu, which exits as the program does
}

// diagnostics returns gdb's standard error without the complaints about
// arguments past those it parsed, which the commands ask for anyway.
func (s *gdbSession) diagnostics() string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s.gdbErr, "\n") {
		if !strings.HasPrefix(line, "Invalid probe argument ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// freePort returns a TCP port that was free a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// runGDB runs prog with progArgs under qemu, waiting for gdb on a free
// port, and gdb with the commands cmds returns for that port. It picks
// another port when qemu cannot listen on the one chosen, which another
// process may have taken meanwhile, and kills qemu if it outlives gdb.
func runGDB(qemu, gdb, prog string, progArgs []string, cmds func(port string) []string) (*gdbSession, error) {
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s, err := runGDBOnPort(qemu, gdb, prog, progArgs, port, cmds(port))
		var bind *bindError
		if errors.As(err, &bind) && attempt < 5 {
			continue
		}
		return s, err
	}
}

// A bindError says that qemu could not listen on its gdbstub's port.
type bindError struct{ msg string }

func (e *bindError) Error() string { return e.msg }

func runGDBOnPort(qemu, gdb, prog string, progArgs []string, port string, cmds []string) (*gdbSession, error) {
	var s gdbSession
	var qout, qerr, gout, gerr bytes.Buffer
	q := exec.Command(qemu, append([]string{"-g", port, prog}, progArgs...)...)
	q.Stdout, q.Stderr = &qout, &qerr
	if err := q.Start(); err != nil {
		return nil, err
	}
	qdone := make(chan error, 1)
	go func() { qdone <- q.Wait() }()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"-batch", "-nx"}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	g := exec.CommandContext(ctx, gdb, args...)
	g.Stdout, g.Stderr = &gout, &gerr
	if err := g.Start(); err != nil {
		q.Process.Kill()
		<-qdone
		return nil, err
	}
	gdone := make(chan error, 1)
	go func() { gdone <- g.Wait() }()

	qended := false
	var gdbErr error
	select {
	case gdbErr = <-gdone:
	case s.progErr = <-qdone:
		// gdb retries its connection for a while: stop it at once when
		// qemu could not listen.
		qended = true
		if strings.Contains(qerr.String(), "could not open gdbserver") {
			cancel()
		}
		gdbErr = <-gdone
	}
	if !qended {
		select {
		case s.progErr = <-qdone:
		case <-time.After(10 * time.Second):
			q.Process.Kill()
			s.progErr = <-qdone
		}
	}
	if strings.Contains(qerr.String(), "could not open gdbserver") {
		return nil, &bindError{strings.TrimSpace(qerr.String())}
	}
	s.gdbOut, s.gdbErr, s.progOut = gout.String(), gerr.String(), qout.String()
	if gdbErr != nil {
		return &s, fmt.Errorf("gdb: %w", gdbErr)
	}
	return &s, nil
}
