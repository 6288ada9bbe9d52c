package probe

import (
	"fmt"
	"os"
	"syscall"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// addLibraries adds the files a process will map to the objects it maps,
// each once: a library it maps already is not added again.
func (p *procTargets) addLibraries(paths []string) error {
	for _, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("library of process %d: %w", p.pid, err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("%s: no inode", path)
		}
		obj := &process.Object{Pid: p.pid, Path: path, HostPath: path, Dev: uint64(st.Dev), Inode: st.Ino}
		if p.maps(obj) {
			continue
		}
		po := procObject{obj: obj}
		po.target, po.err = p.fs.open(path, path, nil, nil)
		p.mapped = append(p.mapped, po)
	}
	return nil
}

// maps reports whether the process maps the file of o already.
func (p *procTargets) maps(o *process.Object) bool {
	for _, po := range p.mapped {
		if po.obj.Dev == o.Dev && po.obj.Inode == o.Inode {
			return true
		}
	}
	return false
}
