package bpf

import (
	"testing"
	"time"
)

// TestLostByProbe fills a ring of one page with the demo's 6001 hits,
// read only once it has exited, and checks that each probe's events
// read and lost add up to its hits, and that LostByProbe's counts add up
// to Lost's.
func TestLostByProbe(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	const n = 3000
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ss, f := sites(t, demo, nil)
			p := load(t, m.options(Options{RingSize: 4096, MaxProbes: len(f.Sites)}))
			if err := p.Attach(demo, ss); err != nil {
				t.Fatalf("Attach: %v", err)
			}
			cmd := run(t, demo, "3000", "0")
			read := make([]uint64, len(f.Sites))
			ch := events(t, p)
			for quiet := time.After(300 * time.Millisecond); ; {
				select {
				case ev := <-ch:
					if int(ev.PID) == cmd.Process.Pid && int(ev.Probe) < len(read) {
						read[ev.Probe]++
					}
					quiet = time.After(300 * time.Millisecond)
					continue
				case <-quiet:
				}
				break
			}
			lost, err := p.LostByProbe()
			if err != nil {
				t.Fatal(err)
			}
			if len(lost) != len(f.Sites) {
				t.Fatalf("LostByProbe() = %d counts, want %d", len(lost), len(f.Sites))
			}
			var sum uint64
			for id, want := range []uint64{1, n, n} {
				if read[id]+lost[id] != want {
					t.Errorf("probe %d: %d events read, %d lost, want %d in all", id, read[id], lost[id], want)
				}
				sum += lost[id]
			}
			if total, err := p.Lost(); total != sum || err != nil || sum == 0 {
				t.Errorf("Lost() = %d, %v, want %d (> 0) as LostByProbe adds up to", total, err, sum)
			}
		})
	}
}
