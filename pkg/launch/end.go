package launch

import (
	"fmt"
	"syscall"
)

// End ends the command once its trace has ended, and returns its exit
// status as Wait does. A command never released (attaching failed) is
// killed. One that still runs (the trace ended first) gets SIGTERM, as
// bpftrace -c sends it, and SIGKILL once again delivers a value (a
// second signal to the tracer; nil never does). When the command
// started in a cgroup (Command.Cgroup), every process left in it gets
// them, and End waits until none is left; then it removes a cgroup of
// Options.OwnCgroup, moving out the processes that left it by
// themselves. warn, when not nil, is told what End does beyond waiting.
func (c *Command) End(again <-chan struct{}, warn func(error)) (int, error) {
	if warn == nil {
		warn = func(error) {}
	}
	if c.ownCg {
		defer c.removeCgroup(warn)
	}
	if !c.Released() {
		c.Kill()
		return c.Wait()
	}
	if cg := c.Cgroup; cg != nil {
		// The command was in the cgroup: gone with it, or moved out
		// by itself, which it may outlive.
		cg.end(again, warn)
		return c.Wait()
	}
	exited := make(chan struct{})
	go func() {
		c.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	default:
		c.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-again:
			warn(fmt.Errorf("killing process %d", c.Pid))
			c.Signal(syscall.SIGKILL)
			<-exited
		}
	}
	return c.Wait()
}

// end sends SIGTERM to the processes left in the cgroup, unless it is
// empty already, and waits until none is left; once again delivers, it
// kills them all.
func (cg *Cgroup) end(again <-chan struct{}, warn func(error)) {
	select {
	case <-cg.Emptied():
		return
	default:
	}
	if err := cg.Signal(syscall.SIGTERM); err != nil {
		warn(err)
	}
	select {
	case <-cg.Emptied():
	case <-again:
		warn(fmt.Errorf("killing the processes of %s", cg.Path))
		if err := cg.Kill(); err != nil {
			warn(err)
		}
		<-cg.Emptied()
	}
}

// removeCgroup removes the cgroup of Options.OwnCgroup, moving out the
// processes the command left running, which End does not wait for.
func (c *Command) removeCgroup(warn func(error)) {
	moved, err := c.Cgroup.Remove()
	if moved > 0 {
		warn(fmt.Errorf("%d processes of the command still run, no longer in its cgroup; moved out of %s", moved, c.Cgroup.Path))
	}
	if err != nil {
		warn(fmt.Errorf("%w; left %s", err, c.Cgroup.Path))
	}
}
