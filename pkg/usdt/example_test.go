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

// A collection's spec loaded and attached in one call: the program
// handler on python's function__entry in process 1234, the libraries it
// loads later included, and the map of specs sized for every site.
func ExampleLoadCollection() {
	spec, err := ebpf.LoadCollectionSpec("handler.bpf.o")
	if err != nil {
		log.Fatal(err)
	}
	c, err := usdt.LoadCollection(spec, []usdt.Probe{{
		Program: "handler", Provider: "python", Name: "function__entry",
		Options: &usdt.Options{PID: 1234, Dlopen: true},
	}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println("attached at", c.Links[0].Sites(), "sites")
	// ... read what the program counts in c.Collection.Maps.
}
