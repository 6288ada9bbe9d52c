package ndjson

import (
	"io"
	"testing"

	json "github.com/goccy/go-json"
)

// benchEvent is an event of a probe with four arguments of the common
// kinds, as sdtattach writes it.
func benchEvent() *Event {
	return &Event{
		TS: 1718000000000001375, PID: 4242, TID: 4243, Comm: "postgres", CPU: 1,
		Provider: "postgresql", Name: "query__start",
		Args: []Value{UintValue(123456), IntValue(-42), HexValue(0x7ffd1234), StringValue("/var/lib/data/base/16384")},
	}
}

// benchSite is a site of the 20,000-site program scripts/gensites writes:
// a register, a stack slot and a rip-relative global.
func benchSite() *Site {
	return &Site{
		File: "/root/.cache/sdtkit-bench/sites-2000x10", Provider: "bench_a", Name: "probe_1234",
		PC: 0x401136, Base: 0x402004, Args: "-4@%edx 8@-24(%rbp) 8@g_counter(%rip)",
		PCOffset: 0x1136, NotePC: 0x401136,
		Argv: []SiteArg{
			{Raw: "-4@%edx", Size: 4, Signed: true, Kind: "register", Location: "%edx", Reg: "rdx", RegOffset: 96},
			{Raw: "8@-24(%rbp)", Size: 8, Kind: "memory", Location: "-24(%rbp)", Reg: "rbp", RegOffset: 32, Offset: -24},
			{Raw: "8@g_counter(%rip)", Size: 8, Kind: "symbol", Location: "g_counter(%rip)", Reg: "rip", RegOffset: 128, Symbol: "g_counter"},
		},
	}
}

// benchAppend measures an encoder writing records as sdtattach and
// sdtlist do: appended to a reused buffer, then written.
func benchAppend(b *testing.B, metric string, next func([]byte) []byte) {
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = next(buf[:0])
		io.Discard.Write(buf)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), metric)
}

// benchGoccy measures github.com/goccy/go-json writing the records next
// returns.
func benchGoccy(b *testing.B, metric string, next func() any) {
	enc := json.NewEncoder(io.Discard)
	enc.SetEscapeHTML(false)
	b.ReportAllocs()
	for b.Loop() {
		if err := enc.Encode(next()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), metric)
}

// BenchmarkAppendEvent writes an event.
func BenchmarkAppendEvent(b *testing.B) {
	e := benchEvent()
	benchAppend(b, "events/s", func(buf []byte) []byte {
		e.TS++
		return AppendEvent(buf, e)
	})
}

// BenchmarkAppendEventGoccy writes the same event through
// github.com/goccy/go-json.
func BenchmarkAppendEventGoccy(b *testing.B) {
	e := benchEvent()
	var g goccyEvent
	benchGoccy(b, "events/s", func() any {
		e.TS++
		toGoccy(&g, e)
		return &g
	})
}

// BenchmarkParseEvent decodes that event's line as a Reader does.
func BenchmarkParseEvent(b *testing.B) {
	line := AppendEvent(nil, benchEvent())
	intern := make(map[string]string)
	var sp spare
	var e Event
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(line, &e, intern, &sp); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkParseEventGoccy decodes it through github.com/goccy/go-json.
func BenchmarkParseEventGoccy(b *testing.B) {
	line := AppendEvent(nil, benchEvent())
	var g goccyEvent
	var e Event
	b.ReportAllocs()
	for b.Loop() {
		g = goccyEvent{Args: g.Args[:0]}
		if err := json.Unmarshal(line, &g); err != nil {
			b.Fatal(err)
		}
		fromGoccy(&e, &g)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendSite writes a site.
func BenchmarkAppendSite(b *testing.B) {
	s := benchSite()
	benchAppend(b, "sites/s", func(buf []byte) []byte {
		s.PCOffset++
		return AppendSite(buf, s)
	})
}

// BenchmarkAppendSiteGoccy writes the same site through
// github.com/goccy/go-json.
func BenchmarkAppendSiteGoccy(b *testing.B) {
	s := benchSite()
	var g goccySite
	benchGoccy(b, "sites/s", func() any {
		s.PCOffset++
		toGoccySite(&g, s)
		return &g
	})
}

// BenchmarkAppendSiteArgv writes sites with the argv of the last, encoded
// once, as sdtlist writes the sites of a file that share it.
func BenchmarkAppendSiteArgv(b *testing.B) {
	s := benchSite()
	argv := AppendArgv(nil, s.Argv)
	benchAppend(b, "sites/s", func(buf []byte) []byte {
		s.PCOffset++
		return AppendSiteArgv(buf, s, argv)
	})
}

// BenchmarkAppendSiteArgvGoccy writes them through
// github.com/goccy/go-json, with the argv encoded once.
func BenchmarkAppendSiteArgvGoccy(b *testing.B) {
	s := benchSite()
	var g goccySite
	toGoccySite(&g, s)
	argv, err := json.MarshalNoEscape(g.Argv)
	if err != nil {
		b.Fatal(err)
	}
	var w goccySiteRaw
	benchGoccy(b, "sites/s", func() any {
		s.PCOffset++
		toGoccySite(&g, s)
		w = goccySiteRaw{&g, argv}
		return &w
	})
}

// goccySiteRaw is a goccySite with its argv already encoded.
type goccySiteRaw struct {
	*goccySite
	Argv json.RawMessage `json:"argv"`
}

// benchParseSite measures decode reading the line of a site.
func benchParseSite(b *testing.B, decode func([]byte, *Site) error) {
	line := AppendSite(nil, benchSite())
	var s Site
	b.ReportAllocs()
	for b.Loop() {
		if err := decode(line, &s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sites/s")
}

// BenchmarkParseSite decodes a site's line as ParseSite does.
func BenchmarkParseSite(b *testing.B) { benchParseSite(b, decodeSite) }

// BenchmarkParseSiteGoccy decodes it through github.com/goccy/go-json
// (struct tags; argv's reg_offset and the note's addresses, written only
// when they differ from the default, as pointers).
func BenchmarkParseSiteGoccy(b *testing.B) {
	// Types without the methods of Site and SiteArg, which would
	// decode with the scanner.
	type plainSite Site
	type plainArg SiteArg
	type arg struct {
		plainArg
		RegOffset *int `json:"reg_offset"`
	}
	type site struct {
		plainSite
		NotePC        *uint64 `json:"note_pc"`
		NoteSemaphore *uint64 `json:"note_semaphore"`
		Argv          []arg   `json:"argv"`
	}
	benchParseSite(b, func(line []byte, s *Site) error {
		var g site
		if err := json.Unmarshal(line, &g); err != nil {
			return err
		}
		*s = Site(g.plainSite)
		s.Argv = make([]SiteArg, len(g.Argv))
		for i, a := range g.Argv {
			s.Argv[i] = SiteArg(a.plainArg)
		}
		return nil
	})
}
