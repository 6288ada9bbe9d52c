package scripttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
//
// With -helpers, the tracer's helper processes (its children when it is
// killed: sdtkit's keepers) are sent SIGKILL too, 0.1 to 4 ms after it,
// as pkill -9 of a name they share would do; with -hook PID (repeated),
// the dynamic loader's hook of process PID, where a tracer following
// dlopen puts a breakpoint, must be restored too: a bystander that maps
// the loader as the traced command does. With -repair, what is not
// restored in time must be once sdtrepair -p has run on each process
// checked: what a helper killed while the kernel registered its uprobes
// left.
func KillDuring() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "SIGKILL a tracer at many points of its run; check the traced process is restored each time",
			Args:    "[-helpers] [-repair] [-hook PID]... N PID PATTERN -- CMD [ARGS...]",
			Detail: []string{
				"CMD runs once to the end to time its run, then N times, run i being sent SIGKILL i/N of that time after it starts.",
				"With -helpers, CMD's child processes at that moment are sent SIGKILL too, 0.1 to 4 ms later.",
				"After each, within " + restoreTimeout.String() + ", sdtlist -p PID PATTERN must show no site armed and every semaphore 0, PID must live,",
				"and _dl_debug_state of the dynamic loader of each -hook PID must hold the loader's instruction.",
				"With -repair, what is not restored then must be once sdtrepair -p has run on PID and each -hook PID.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			helpers, repair := false, false
			var hooks []int
		flags:
			for len(args) > 0 {
				switch args[0] {
				case "-helpers":
					helpers = true
					args = args[1:]
				case "-repair":
					repair = true
					args = args[1:]
				case "-hook":
					if len(args) < 2 {
						return nil, script.ErrUsage
					}
					pid, err := strconv.Atoi(args[1])
					if err != nil {
						return nil, script.ErrUsage
					}
					hooks = append(hooks, pid)
					args = args[2:]
				default:
					break flags
				}
			}
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
			sdtrepair := ""
			if repair {
				if sdtrepair, err = lookPath(s, "sdtrepair"); err != nil {
					return nil, err
				}
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
				for _, h := range hooks {
					if armed, err := loaderHookArmed(h); armed || err != nil {
						return fmt.Sprintf("_dl_debug_state of process %d holds a breakpoint", h), errors.Join(err, errors.New("not restored"))
					}
				}
				return "", nil
			}
			for i := range n {
				delay := whole * time.Duration(i) / time.Duration(n)
				gap := 100*time.Microsecond + time.Duration(i*397%40)*100*time.Microsecond
				cmd := command()
				if err := cmd.Start(); err != nil {
					return nil, err
				}
				time.Sleep(delay)
				var kids []int
				if helpers {
					kids = children(cmd.Process.Pid)
				}
				cmd.Process.Kill()
				if helpers {
					time.Sleep(gap)
					for _, k := range kids {
						unix.Kill(k, unix.SIGKILL)
					}
				}
				cmd.Wait()
				when := fmt.Sprintf("run %d, killed %v after its start", i, delay)
				if helpers {
					when += fmt.Sprintf(", its %d helpers %v after", len(kids), gap)
				}
				killed := time.Now()
				repaired := false
				for {
					what, err := restored()
					if err == nil {
						break
					}
					if time.Since(killed) > restoreTimeout && repair && !repaired {
						s.Logf("[%s: %s; sdtrepair -p]\n", when, what)
						for _, p := range append([]int{pid}, hooks...) {
							out, err := exec.Command(sdtrepair, "-p", strconv.Itoa(p)).CombinedOutput()
							if err != nil {
								return nil, fmt.Errorf("%s: sdtrepair -p %d: %w\n%s", when, p, err, out)
							}
							s.Logf("[sdtrepair -p %d: %d sites restored, %d semaphore increments undone]\n", p,
								strings.Count(string(out), `"restored":true`), strings.Count(string(out), `"undone":true`))
						}
						repaired, killed = true, time.Now()
						continue
					}
					if time.Since(killed) > restoreTimeout {
						if repaired {
							what += ", after sdtrepair"
						}
						return nil, fmt.Errorf("%s: %v %v after: %s", when, err, restoreTimeout, what)
					}
					if err := unix.Kill(pid, 0); err != nil {
						return nil, fmt.Errorf("%s: process %d: %w", when, pid, err)
					}
					time.Sleep(10 * time.Millisecond)
				}
				if err := unix.Kill(pid, 0); err != nil {
					return nil, fmt.Errorf("%s: process %d: %w", when, pid, err)
				}
			}
			return nil, nil
		})
}

// children returns the child processes of process pid.
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, _ := os.ReadDir(dir)
	var out []int
	for _, t := range tasks {
		b, _ := os.ReadFile(filepath.Join(dir, t.Name(), "children"))
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
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
