//go:build linux && (amd64 || arm64)

package sdt

import "testing"

func benchProbe(b *testing.B) *Probe {
	p, err := NewProvider("bench")
	if err != nil {
		b.Fatal(err)
	}
	pr, err := p.AddProbe("q", Int64, String)
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Load(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return pr
}

// eachNopBench runs bench with probes on the 1-byte nop and, on amd64, on
// the 5-byte nop, whatever the kernel.
func eachNopBench(b *testing.B, bench func(b *testing.B)) {
	saved := longNops
	b.Cleanup(func() { longNops = saved })
	b.Run("nop", func(b *testing.B) {
		longNops = func() bool { return false }
		bench(b)
	})
	if host.longNop != nil {
		b.Run("nop5", func(b *testing.B) {
			longNops = func() bool { return true }
			bench(b)
		})
	}
}

// BenchmarkEnabled is the cost of a probe site with no tracer attached.
func BenchmarkEnabled(b *testing.B) {
	eachNopBench(b, func(b *testing.B) {
		pr := benchProbe(b)
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if pr.Enabled() {
				n++
			}
		}
		if n != 0 {
			b.Fatal("enabled")
		}
	})
}

// BenchmarkFire is the cost of firing with no tracer attached: the
// conversions, the lock and the call into the probe's function.
func BenchmarkFire(b *testing.B) {
	eachNopBench(b, func(b *testing.B) {
		pr := benchProbe(b)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := pr.Fire(i, "path"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
