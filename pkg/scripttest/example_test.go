package scripttest_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"strings"

	"rsc.io/script"
	"rsc.io/script/scripttest"

	sdtscript "github.com/sdtkit/sdtkit/pkg/scripttest"
)

// An engine with the defaults of rsc.io/script/scripttest and this
// package's commands and conditions runs a script: here jsonget takes
// the first argument of an event.
func Example() {
	engine := &script.Engine{
		Cmds:  scripttest.DefaultCmds(),
		Conds: scripttest.DefaultConds(),
	}
	maps.Copy(engine.Cmds, sdtscript.Cmds())
	maps.Copy(engine.Conds, sdtscript.Conds())

	s, err := script.NewState(context.Background(), os.TempDir(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	const text = `echo '{"provider":"app","name":"start","args":[11,"go"]}'
jsonget ARG 1 args.0
`
	var log strings.Builder
	if err := engine.Execute(s, "example.txt", bufio.NewReader(strings.NewReader(text)), &log); err != nil {
		fmt.Println(err)
		return
	}
	arg, _ := s.LookupEnv("ARG")
	fmt.Println(arg)
	// Output: 11
}
