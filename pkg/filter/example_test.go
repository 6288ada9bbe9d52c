package filter_test

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/filter"
)

func Example() {
	e, err := filter.Parse(`arg0 >= 400 && arg1 == "/api*"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	prog, err := e.Compile(&filter.Probe{
		Name: "./server:http:done",
		Args: []filter.Arg{{Size: 4, Signed: true}, {String: true}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range []filter.Hit{
		{Args: []filter.HitArg{{Num: 404}, {Str: "/api/users"}}},
		{Args: []filter.HitArg{{Num: 200}, {Str: "/api/users"}}},
		{Args: []filter.HitArg{{Num: 500}, {Str: "/health"}}},
	} {
		fmt.Println(h.Args[0].Num, h.Args[1].Str, prog.Eval(&h))
	}
	// Output:
	// 404 /api/users true
	// 200 /api/users false
	// 500 /health false
}

func ExampleExpr_Compile() {
	e, _ := filter.Parse(`arg0 > 1 && arg9 == 1`)
	_, err := e.Compile(&filter.Probe{Name: "./app:p:n", Args: make([]filter.Arg, 3)})
	fmt.Println(err)
	// Output:
	// column 13: arg9: ./app:p:n: the probe has 3 arguments (arg0 to arg2)
}

func ExampleParse() {
	_, err := filter.Parse(`comm == "post" || arg0 <`)
	fmt.Println(err)
	// Output:
	// column 25: end of expression: unexpected end of expression, want a key or a literal
}
