package scripttest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"time"

	"rsc.io/script"
)

// WaitSites waits until the probe sites of a process are armed or
// disarmed, as sdtlist -p sees them. Scripts use it to know that a tracer
// running in the background has attached, or has detached.
func WaitSites() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "wait until sdtlist -p shows probe sites armed or disarmed",
			Args:    "armed|owned|disarmed PID PATTERN...",
			Detail: []string{
				"armed waits until every site sdtlist -p PID PATTERN... lists is armed, with its semaphore, if any, at 1 or more.",
				"owned waits until they are armed and sdtlist finds the uprobe that owns each: a tracer arms a site before its file descriptor of the uprobe is in its table.",
				"disarmed waits until none is armed and every semaphore is 0.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) < 3 || args[0] != "armed" && args[0] != "owned" && args[0] != "disarmed" {
				return nil, script.ErrUsage
			}
			want, owned := args[0] != "disarmed", args[0] == "owned"
			sdtlist, err := lookPath(s, "sdtlist")
			if err != nil {
				return nil, err
			}
			timeout := time.After(waitFileTimeout)
			var last string
			for {
				cmd := exec.CommandContext(s.Context(), sdtlist, append([]string{"-p"}, args[1:]...)...)
				cmd.Dir = s.Getwd()
				out, err := cmd.Output()
				last = string(out)
				if err == nil {
					ok, err := sitesIn(out, want, owned)
					if err != nil {
						return nil, err
					}
					if ok {
						return nil, nil
					}
				}
				select {
				case <-time.After(20 * time.Millisecond):
				case <-timeout:
					return nil, fmt.Errorf("sites not %s after %v:\n%s", args[0], waitFileTimeout, last)
				case <-s.Context().Done():
					return nil, s.Context().Err()
				}
			}
		})
}

// sitesIn reports whether every site in sdtlist's output is armed (with
// its semaphore raised, and with owned not orphaned), or every one
// disarmed (with its semaphore at 0).
func sitesIn(out []byte, armed, owned bool) (bool, error) {
	sites := lines(string(out))
	if len(sites) == 0 {
		return false, nil
	}
	for _, l := range sites {
		var site struct {
			Armed     bool    `json:"armed"`
			Orphaned  bool    `json:"orphaned"`
			Semaphore *uint64 `json:"semaphore_value"`
		}
		if err := json.Unmarshal([]byte(l), &site); err != nil {
			return false, fmt.Errorf("sdtlist: %w", err)
		}
		if site.Armed != armed || owned && site.Orphaned {
			return false, nil
		}
		if site.Semaphore != nil && (*site.Semaphore > 0) != armed {
			return false, nil
		}
	}
	return true, nil
}
