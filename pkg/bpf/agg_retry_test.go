package bpf

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// failingMap fails its first fails Puts with err.
type failingMap struct {
	fails, puts int
	err         error
}

func (m *failingMap) Put(key, value any) error {
	m.puts++
	if m.puts <= m.fails {
		return m.err
	}
	return nil
}

// A map that has no memory for an entry at once gets it a moment later:
// putRetried tries again, for a while, and only for ENOMEM.
func TestPutRetried(t *testing.T) {
	other := errors.New("bad key")
	for _, tt := range []struct {
		name  string
		m     failingMap
		puts  int
		fails bool
	}{
		{"at once", failingMap{}, 1, false},
		{"after two", failingMap{fails: 2, err: unix.ENOMEM}, 3, false},
		{"never", failingMap{fails: 1000, err: unix.ENOMEM}, allocRetries + 1, true},
		{"other error", failingMap{fails: 1000, err: other}, 1, true},
	} {
		err := putRetried(&tt.m, 1, 2)
		if (err != nil) != tt.fails || tt.m.puts != tt.puts {
			t.Errorf("%s: putRetried = %v after %d puts, want %d puts", tt.name, err, tt.m.puts, tt.puts)
		}
	}
}
