package attach_test

import (
	"context"
	"fmt"
	"log"
	"os/exec"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/launch"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// This counts the hits of a probe per process, in the kernel, while a
// program runs twice. It prints "demo:tick 4 hits" for each run: ticks
// 1 and 2, and their negatives, which it fires while traced.
func Example_count() {
	specs, _ := probespec.ParseAll(demo + ":demo:tick")
	by := []aggregate.Key{{Kind: aggregate.KeyPID}}
	ag, err := attach.Aggregate(context.Background(), specs, &attach.Aggregation{Mode: attach.Count, By: by}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ag.Close()
	for range 2 {
		if err := exec.Command(demo, "2").Run(); err != nil {
			log.Fatal(err)
		}
	}
	recs, err := ag.Collect(time.Now())
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range recs {
		fmt.Printf("%s:%s %d hits\n", r.Provider, r.Name, r.Count)
	}
}

// This measures the time from a probe to another in the kernel, paired
// by thread: from demo:start to the first demo:tick after it. The other
// ticks end no pair. It prints "1 pair, 5 ENDs unmatched".
func Example_latency() {
	specs, _ := probespec.ParseAll(demo+":demo:start", demo+":demo:tick")
	start, _ := probespec.ParsePattern("demo:start")
	end, _ := probespec.ParsePattern("demo:tick")
	ag, err := attach.Aggregate(context.Background(), specs, &attach.Aggregation{Mode: attach.Latency, Start: start, End: end}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ag.Close()
	if err := exec.Command(demo, "3").Run(); err != nil {
		log.Fatal(err)
	}
	recs, err := ag.Collect(time.Now())
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind() == aggregate.KindLatency { // the END's; the START's is KindStarts
			fmt.Printf("%d pair, %d ENDs unmatched\n", r.Count, r.Unmatched)
		}
	}
}

// This runs a command and traces it from its first instruction, a probe
// of it named without its path, until it exits. It prints "demo:start 2",
// its first argument, argc, and the command's exit status, 0.
func Example_command() {
	cmd, err := launch.Start([]string{demo, "1"}, nil) // stopped at its execve
	if err != nil {
		log.Fatal(err)
	}
	specs, _ := probespec.ParseAll("demo:start")
	t, err := attach.Open(context.Background(), specs, &attach.Options{Command: cmd}) // released once attached
	if err != nil {
		log.Fatal(err)
	}
	err = t.Run(context.Background(), func(ev *attach.Event) error { // until it exits
		fmt.Println(ev.Probe(), ev.Args[0])
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	status, err := cmd.Wait()
	fmt.Println("exit status", status, err)
}

// This traces a probe with uprobe events in tracefs and perf events,
// with no BPF: what attach.BackendAuto falls back to where BPF cannot be
// used. It prints "demo:tick 1" and "demo:tick -1".
func Example_tracefs() {
	specs, _ := probespec.ParseAll(demo + ":demo:tick")
	t, err := attach.Open(context.Background(), specs, &attach.Options{Backend: attach.BackendTracefs})
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(demo, "1")
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
	t.Stop() // Run gives the events left, then returns.
	err = t.Run(context.Background(), func(ev *attach.Event) error {
		if int(ev.PID) == cmd.Process.Pid {
			fmt.Println(ev.Probe(), ev.Args[0])
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
