package scripttest

import (
	enchex "encoding/hex"
	"fmt"
	"os"
	"strconv"

	"rsc.io/script"
)

// Poke writes bytes into the memory of a process, as a tracer that died
// leaving a breakpoint would have.
func Poke() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "write bytes into a process's memory through /proc/PID/mem",
			Args:    "PID ADDR HEX",
			Detail:  []string{"ADDR is a number as Go reads it (0x for hexadecimal); HEX the bytes, such as cc."},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) != 3 {
				return nil, script.ErrUsage
			}
			pid, err := strconv.Atoi(args[0])
			if err != nil {
				return nil, script.ErrUsage
			}
			addr, err := strconv.ParseUint(args[1], 0, 64)
			if err != nil {
				return nil, script.ErrUsage
			}
			b, err := enchex.DecodeString(args[2])
			if err != nil || len(b) == 0 {
				return nil, script.ErrUsage
			}
			f, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_RDWR, 0)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			_, err = f.WriteAt(b, int64(addr))
			return nil, err
		})
}
