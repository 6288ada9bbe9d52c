package attach

import (
	"context"
	"os"
	"slices"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// Mappers returns the processes other than this one that map a file of
// the plan with sites to attach, in increasing order: those that the
// uprobes reach without Options.PID. Processes that cannot be inspected
// are left out. Reading /proc can block on a process that holds its
// memory map lock, so Mappers returns an error wrapping the cause of
// ctx as soon as ctx is done, leaving the reading behind.
func (p *Plan) Mappers(ctx context.Context) ([]int, error) {
	var ids []process.FileID
	for _, a := range p.Attachments {
		if a.Len() > 0 {
			ids = append(ids, process.FileID{Dev: a.Target.Dev, Inode: a.Target.Inode})
		}
	}
	return aside(ctx, "the processes that map the files were found", func() ([]int, error) {
		pids, _ := process.Mappers(ids...)
		return slices.DeleteFunc(append([]int{}, pids...), func(pid int) bool { return pid == os.Getpid() }), nil
	})
}
