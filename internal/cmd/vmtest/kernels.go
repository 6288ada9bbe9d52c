package main

import (
	"fmt"
	"strings"
)

// A kernel is one Debian kernel of the matrix.
type kernel struct {
	version string // the upstream series: 5.10, 6.1, 6.12
	arch    string // amd64 or arm64, as Go and Debian name them
	flavour string // Debian's: "" for the generic kernel, or "cloud"
	// modules are the modules the guest loads, their dependencies
	// found from the modules' own .modinfo.
	modules []string
}

// ninePModules share the host's root over 9p: Debian's generic kernels
// build them as modules; its cloud kernels have none.
var ninePModules = []string{"virtio_pci", "9pnet_virtio", "9p"}

// kernels is the matrix. The x86-64 kernels are the generic ones, whose
// 9p modules share the host's root with the guest (gcc fixtures, and
// programs linked with the host's libc); the arm64 ones are the smaller
// cloud kernels: the host's root is of no use to an arm64 guest.
var kernels = []kernel{
	{"5.10", "amd64", "", ninePModules},
	{"6.1", "amd64", "", ninePModules},
	{"6.12", "amd64", "", ninePModules},
	{"6.1", "arm64", "cloud", nil},
	{"6.12", "arm64", "cloud", nil},
}

// name is how the kernel is named on the command line: 6.1/arm64.
func (k kernel) name() string { return k.version + "/" + k.arch }

// metapackage is the Debian package that depends on the newest image of
// the flavour, qualified by architecture.
func (k kernel) metapackage() string {
	if k.flavour == "" {
		return fmt.Sprintf("linux-image-%s:%s", k.arch, k.arch)
	}
	return fmt.Sprintf("linux-image-%s-%s:%s", k.flavour, k.arch, k.arch)
}

// A guest is one kernel booted with a number of vCPUs.
type guest struct {
	kernel
	cpus int
}

func (g guest) String() string { return fmt.Sprintf("%s/%d", g.name(), g.cpus) }

// ciGuests is the subset CI runs: an old kernel, an arm64 one, and a
// guest of many vCPUs.
var ciGuests = []string{"5.10/amd64/2", "6.1/arm64/2", "6.12/amd64/16"}

// selectGuests returns the guests of the kernels named (all when names
// is empty) with each vCPU count; names are VERSION/ARCH, or
// VERSION/ARCH/CPUS for one guest.
func selectGuests(names []string, cpus []int) ([]guest, error) {
	var gs []guest
	if len(names) == 0 {
		for _, k := range kernels {
			for _, n := range cpus {
				gs = append(gs, guest{k, n})
			}
		}
		return gs, nil
	}
	for _, name := range names {
		kname, ncpu := name, 0
		if i := strings.Count(name, "/"); i == 2 {
			j := strings.LastIndexByte(name, '/')
			kname = name[:j]
			if _, err := fmt.Sscanf(name[j+1:], "%d", &ncpu); err != nil || ncpu < 1 {
				return nil, fmt.Errorf("guest %q: bad vCPU count", name)
			}
		}
		var k *kernel
		for i := range kernels {
			if kernels[i].name() == kname {
				k = &kernels[i]
			}
		}
		if k == nil {
			return nil, fmt.Errorf("kernel %q: not in the matrix (%s)", kname, kernelNames())
		}
		if ncpu > 0 {
			gs = append(gs, guest{*k, ncpu})
			continue
		}
		for _, n := range cpus {
			gs = append(gs, guest{*k, n})
		}
	}
	return gs, nil
}

// kernelNames lists the matrix's kernels.
func kernelNames() string {
	var names []string
	for _, k := range kernels {
		names = append(names, k.name())
	}
	return strings.Join(names, ", ")
}
