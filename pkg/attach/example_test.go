package attach_test

import (
	"context"
	"fmt"
	"log"
	"os/exec"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/launch"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// demo fires demo:tick(i), and demo:tick(-i) while traced, for i from
// 1 to its first argument. TestExamples runs the examples with a private
// copy of it.
var demo = "../stapsdt/testdata/demo"

// This traces a probe of a program, named by its path, in every process
// that runs it; then it runs the program. It prints
// "demo:tick 1", "demo:tick -1", "demo:tick 2" and "demo:tick -2".
func Example() {
	specs, err := probespec.ParseAll(demo + ":demo:tick")
	if err != nil {
		log.Fatal(err)
	}
	t, err := attach.Open(context.Background(), specs, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()

	cmd := exec.Command(demo, "2")
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
	t.Stop() // Read returns the events left, then io.EOF.
	var ev attach.Event
	for t.Read(&ev) == nil {
		if int(ev.PID) == cmd.Process.Pid {
			fmt.Println(ev.Probe(), ev.Args[0])
		}
	}
}

// This traces a running process by its pid, until it exits, ranging
// over its events. It prints "demo:tick 3 events", then "exited; 0 lost".
func Example_pid() {
	// The process must run the program when it is attached to: a child
	// that exec.Cmd.Start returns may not have executed it yet, while
	// launch.Start returns once it has, stopped until Release.
	cmd, err := launch.Start([]string{demo, "0", "10"}, nil) // a tick every 10 ms, until killed
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Release(); err != nil {
		log.Fatal(err)
	}
	specs, _ := probespec.ParseAll("demo:tick") // in any object the process maps
	t, err := attach.Open(context.Background(), specs, &attach.Options{PID: cmd.Pid})
	if err != nil {
		log.Fatal(err)
	}
	n := 0
	for ev, err := range t.Events(context.Background()) { // until the exit is seen
		if err != nil {
			log.Fatal(err)
		}
		if n++; n == 3 {
			fmt.Println(ev.Probe(), "3 events")
			cmd.Kill()
			cmd.Wait()
		}
	}
	fmt.Println("exited;", t.Lost(), "lost")
}
