package tracefs

import (
	"errors"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// A Site is one probe site a Tracer defines an event for. Events give
// back its index in the sites given to Open as their Site.
type Site struct {
	Target *probe.Target
	Probe  *probe.Probe
	// ProbeIndex is what events of the site give as their Probe.
	ProbeIndex int
	Offset     uint64 // the site's file offset
	// Args says how each argument is read: a String as a string (a
	// Counted one cut at its length argument), a Drop not at all, the
	// others as the operand reads.
	Args []probespec.Type
	// Reported are the arguments whose having no fetch argument form
	// was reported already: they are not reported again.
	Reported hit.ArgMask
}

// ErrNoSites is returned by Open when no site could be defined.
var ErrNoSites = errors.New("no probe site can be defined")
