package dtrace_test

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
)

func ExampleParse() {
	src := []byte(`
provider myapp {
	probe request__start(const char *path, unsigned long long id);
	probe request__done(int);
};
`)
	provs, err := dtrace.Parse("myapp.d", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range provs {
		for _, q := range p.Probes {
			fmt.Printf("%s:%s (%s)\n", p.Name, q.Name, q.DisplayName())
			for _, a := range q.Args {
				t := dtrace.Classify(a.Type)
				fmt.Printf("\t%s %s: %v, %d bytes\n", a.Type, a.Name, t.Kind, t.Size)
			}
		}
	}
	// Output:
	// myapp:request__start (request-start)
	// 	const char * path: string, 8 bytes
	// 	unsigned long long id: unsigned, 8 bytes
	// myapp:request__done (request-done)
	// 	int arg0: signed, 4 bytes
}

func ExampleParse_error() {
	_, err := dtrace.Parse("bad.d", []byte("provider p {\n\tprobe q(int)\n};\n"))
	fmt.Println(err)
	// Output:
	// bad.d:3:1: expected ';' after the probe, found '}'
}
