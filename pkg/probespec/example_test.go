package probespec_test

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

func ExampleParse() {
	s, err := probespec.Parse("usdt:/usr/bin/python3:python:function__*(str,str,s32)")
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Path, s.Provider, s.Name, s.Types)
	fmt.Println(s.Match("python", "function__entry"))
	// Output:
	// /usr/bin/python3 python function__* [str str s32]
	// true
}
