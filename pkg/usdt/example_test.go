package usdt_test

import (
	"fmt"
	"log"

	"github.com/cilium/ebpf"

	"github.com/sdtkit/sdtkit/pkg/usdt"
)

// A program of one's own, built against include/bpf/usdt.bpf.h, loaded
// with cilium/ebpf and attached to python's function__entry in every
// process that runs /usr/bin/python3; bpf_usdt_cookie reads 1 there.
func Example() {
	coll, err := ebpf.LoadCollection("handler.bpf.o")
	if err != nil {
		log.Fatal(err)
	}
	defer coll.Close()
	l, err := usdt.Attach(coll.Programs["handler"], "/usr/bin/python3", "python", "function__entry",
		&usdt.Options{Cookie: 1, Specs: coll.Maps[usdt.SpecMap]})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	fmt.Println("attached at", l.Sites(), "sites")
	// ... read what the program counts in its maps.
}
