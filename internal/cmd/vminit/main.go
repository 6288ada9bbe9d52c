package main

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "burst" {
		os.Exit(burstMain(os.Args[2:]))
	}
	if err := run(os.Getenv("VMTEST_PLAN"), os.Stdout); err != nil {
		fmt.Println(vmcheck.Result{Check: "setup", Status: vmcheck.Fail, Reason: err.Error()}.Line())
	}
	fmt.Println(vmcheck.DoneLine)
	if os.Getpid() != 1 {
		return
	}
	unix.Sync()
	// Init must not exit: should the reboot fail, the kernel would
	// panic, which panic=-1 turns into a reboot anyway.
	unix.Reboot(unix.LINUX_REBOOT_CMD_RESTART)
	for {
		time.Sleep(time.Hour)
	}
}

// run sets the guest up as pid 1, then runs the checks of the plan at
// planPath (vmcheck.PlanPath when "") and prints their results to out.
func run(planPath string, out *os.File) error {
	if planPath == "" {
		planPath = vmcheck.PlanPath
	}
	plan, err := readPlan(planPath)
	if err != nil {
		return err
	}
	if os.Getpid() == 1 {
		if err := setup(plan); err != nil {
			return err
		}
	}
	env, err := newEnv(plan)
	if err != nil {
		return err
	}
	for _, c := range selected(plan) {
		if c.arch != "" && c.arch != plan.Arch {
			continue
		}
		if why, ok := plan.Known[c.name]; ok {
			fmt.Fprintln(out, vmcheck.Result{Check: c.name, Status: vmcheck.Skip, Reason: "known failure: " + why + " (not run)"}.Line())
			continue
		}
		start := time.Now()
		status, reason := c.run(env)
		r := vmcheck.Result{Check: c.name, Status: status, Reason: reason, Seconds: time.Since(start).Seconds()}
		fmt.Fprintln(out, r.Line())
	}
	for _, t := range plan.Tests {
		fmt.Fprintln(out, runTest(env, t).Line())
	}
	return nil
}
