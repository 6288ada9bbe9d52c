package repair

import (
	"os"

	"github.com/sdtkit/sdtkit/pkg/tracefs"
)

// tracefsDirs are where tracefs is looked for; it is not mounted.
var tracefsDirs = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

// removeStaleEvents removes the uprobe events that sdtattach --backend
// tracefs left when it was killed (tracefs.RemoveStale): a process that
// is gone owns no site, but its events, defined still, would count as
// owners of the sites they name, and the sites its keeper left patched,
// killed while the kernel made or removed its uprobes, would not be
// restored. It returns the groups removed.
func removeStaleEvents() ([]string, error) {
	for _, dir := range tracefsDirs {
		if _, err := os.Stat(dir + "/uprobe_events"); err != nil {
			continue
		}
		return tracefs.RemoveStale(dir, os.Getpid())
	}
	return nil, nil
}
