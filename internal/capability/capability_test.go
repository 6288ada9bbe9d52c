package capability

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestEffective(t *testing.T) {
	if !Effective() {
		t.Error("Effective() = false, want true: no capability asked for")
	}
	if Effective(64) {
		t.Error("Effective(64) = true, want false: no such capability")
	}
	if os.Geteuid() == 0 && !Effective(unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE) {
		t.Error("root: Effective(CAP_SYS_ADMIN, CAP_DAC_OVERRIDE) = false, want true")
	}
}
