package unwind

import (
	"debug/elf"
	"runtime"
)

// hostMachine is the machine of the processes traced here: a tracer
// traces processes of its own machine.
var hostMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
