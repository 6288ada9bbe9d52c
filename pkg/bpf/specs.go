package bpf

import (
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"
)

// A parsedSpec is the CollectionSpec of one of the package's objects,
// parsed from its ELF file once, the first time it is needed; get
// returns a copy for the caller to change.
type parsedSpec struct {
	load func() (*ebpf.CollectionSpec, error)
	once sync.Once
	spec *ebpf.CollectionSpec
	err  error
}

func (p *parsedSpec) get() (*ebpf.CollectionSpec, error) {
	p.once.Do(func() { p.spec, p.err = p.load() })
	if p.err != nil {
		return nil, p.err
	}
	return p.spec.Copy(), nil
}

// The objects of gen.go.
var (
	specUsdt          = &parsedSpec{load: loadUsdt}
	specUsdtlean      = &parsedSpec{load: loadUsdtlean}
	specUsdtfault     = &parsedSpec{load: loadUsdtfault}
	specUsdtleanfault = &parsedSpec{load: loadUsdtleanfault}
	specUsdtnum       = &parsedSpec{load: loadUsdtnum}
	specUsdtnumfault  = &parsedSpec{load: loadUsdtnumfault}
	specUsdtold       = &parsedSpec{load: loadUsdtold}
	specUsdtnumold    = &parsedSpec{load: loadUsdtnumold}
	specAgg           = &parsedSpec{load: loadAgg}
	specAggold        = &parsedSpec{load: loadAggold}
)

// warm asks the kernel what Load asks it, and parses the object a
// stream loads there, for a Load to come: their results are kept.
func warm() {
	if removeMemlock() != nil {
		return
	}
	cookies, err := checkKernel()
	if err != nil || !cookies {
		return
	}
	multi := features.HaveBPFLinkUprobeMulti() == nil
	if haveFaults(multi) == nil {
		specUsdtleanfault.get()
	} else {
		specUsdtlean.get()
	}
}
