package hit_test

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/hit"
)

func ExampleValue() {
	for _, v := range []hit.Value{
		{Kind: hit.Int, Bits: uint64(0xffffffffffffffff), Size: 4},
		{Kind: hit.Uint, Bits: 42, Size: 8},
		{Kind: hit.String, Bits: 0x7ffd1000, Str: "GET /"},
		{Kind: hit.NotRead, Size: 8},
	} {
		fmt.Println(v)
	}
	// Output:
	// -1
	// 42
	// "GET /" at 0x7ffd1000
	// <not read>
}
