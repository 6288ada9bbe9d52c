package scripttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
	"rsc.io/script"
)

// restoreTimeout is how long after a tracer's SIGKILL the traced process
// may take to be as it was. The kernel removes uprobes one at a time, some
// after an RCU grace period: 1,716 sites take well under a second alone,
// and more while other tests load both CPUs.
const restoreTimeout = 3 * time.Second

// KillDuring runs a tracer again and again, sending it SIGKILL at points
// spread over its whole run, and checks after each that the traced
// process is as it was: every probe site its original instruction and
// every semaphore 0.
func KillDuring() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "SIGKILL a tracer at many points of its run; check the traced process is restored each time",
			Args:    "N PID PATTERN -- CMD [ARGS...]",
			Detail: []string{
				"CMD runs once to the end to time its run, then N times, run i being sent SIGKILL i/N of that time after it starts.",
				"After each, within " + restoreTimeout.String() + ", sdtlist -p PID PATTERN must show no site armed and every semaphore 0, and PID must live.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) < 5 || args[3] != "--" {
				return nil, script.ErrUsage
			}
			n, err := strconv.Atoi(args[0])
			if err != nil || n < 1 {
				return nil, script.ErrUsage
			}
			pid, err := strconv.Atoi(args[1])
			if err != nil {
				return nil, script.ErrUsage
			}
			sdtlist, err := lookPath(s, "sdtlist")
			if err != nil {
				return nil, err
			}
			tracer, err := lookPath(s, args[4])
			if err != nil {
				return nil, err
			}
			command := func() *exec.Cmd {
				cmd := exec.Command(tracer, args[5:]...)
				cmd.Dir = s.Getwd()
				return cmd
			}
			start := time.Now()
			if out, err := command().CombinedOutput(); err != nil {
				return nil, fmt.Errorf("%s: %w\n%s", args[4], err, out)
			}
			whole := time.Since(start)
			s.Logf("[a whole run takes %v]\n", whole.Round(time.Millisecond))
			restored := func() (string, error) {
				cmd := exec.Command(sdtlist, "-p", args[1], args[2])
				cmd.Dir = s.Getwd()
				out, err := cmd.Output()
				if err != nil {
					return "", err
				}
				if ok, err := sitesIn(out, false, false); !ok || err != nil {
					return summarize(out), errors.Join(err, errors.New("not restored"))
				}
				return "", nil
			}
			for i := range n {
				delay := whole * time.Duration(i) / time.Duration(n)
				cmd := command()
				if err := cmd.Start(); err != nil {
					return nil, err
				}
				time.Sleep(delay)
				cmd.Process.Kill()
				cmd.Wait()
				killed := time.Now()
				for {
					what, err := restored()
					if err == nil {
						break
					}
					if time.Since(killed) > restoreTimeout {
						return nil, fmt.Errorf("run %d, killed %v after its start: %v %v after: %s", i, delay, err, restoreTimeout, what)
					}
					if err := unix.Kill(pid, 0); err != nil {
						return nil, fmt.Errorf("run %d, killed %v after its start: process %d: %w", i, delay, pid, err)
					}
					time.Sleep(10 * time.Millisecond)
				}
				if err := unix.Kill(pid, 0); err != nil {
					return nil, fmt.Errorf("run %d, killed %v after its start: process %d: %w", i, delay, pid, err)
				}
			}
			return nil, nil
		})
}

// summarize counts the armed sites and raised semaphores in sdtlist -p
// output.
func summarize(out []byte) string {
	armed, raised := 0, 0
	for _, l := range lines(string(out)) {
		var site struct {
			Armed     bool   `json:"armed"`
			Semaphore uint64 `json:"semaphore_value"`
		}
		if json.Unmarshal([]byte(l), &site) == nil {
			if site.Armed {
				armed++
			}
			if site.Semaphore > 0 {
				raised++
			}
		}
	}
	return fmt.Sprintf("%d sites armed, %d sites with a raised semaphore", armed, raised)
}
