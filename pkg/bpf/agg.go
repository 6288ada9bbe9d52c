package bpf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// An AggMode says what an aggregating program keeps per key.
type AggMode uint8

// Modes of agg.bpf.c's enum agg_mode.
const (
	AggCount AggMode = iota + 1 // hits
	AggHist                     // hits by log2 bucket of a value
	AggStats                    // count, sum, least and greatest of a value
	// AggLatency pairs the hits of START probes with those of END
	// probes by a key (Aggregation.Pair) and keeps, per END probe and
	// key, the time between in nanoseconds as AggHist and AggStats do.
	AggLatency
)

// A PartKind says what one part of an aggregation key holds.
type PartKind uint8

// Kinds of agg.bpf.c's enum part_kind.
const (
	PartPID  PartKind = iota + 1 // the process ID
	PartTID                      // the thread ID
	PartComm                     // the thread's name
	PartArg                      // an argument of the probe, a number or a string
	// PartUStack is the thread's user stack, walked by its frame
	// pointers and kept in a map of stacks, of which the key holds the
	// id (see AggEntry.Stack).
	PartUStack
)

// MaxKeyParts is the most parts an aggregation key has.
const MaxKeyParts = 8

// DefaultMaxKeys is the default of Aggregation.MaxKeys.
const DefaultMaxKeys = 10240

// MaxKeys is the largest Aggregation.MaxKeys.
const MaxKeys = 1 << 24

// maxKeySize is agg.bpf.c's KEY_SIZE: the largest key, the 8 bytes of
// its header included.
const maxKeySize = 192

// Sizes of key parts: numbers, and the command name as the kernel keeps it.
const (
	numberSize = 8
	commSize   = 16
	keyHeader  = 8
)

// Buckets of agg.bpf.c for the entries that are not a value's bucket.
const (
	bucketLost      = 255
	bucketUnread    = 254
	bucketUnmatched = 253
	bucketStarts    = 252
)

// Roles of agg.bpf.c's enum role.
const (
	roleStart = 1
	roleEnd   = 2
)

// startsPrealloc is the most entries of the map of STARTs waiting that
// are allocated with it; a larger map allocates an entry when it is
// made.
const startsPrealloc = 1 << 16

// An Aggregation makes a Program aggregate probe hits in the kernel
// (see Options.Aggregate): it keeps, in a map, a count, the counts of a
// histogram's buckets or the stats of a value for each probe and key,
// which Collect reads.
type Aggregation struct {
	Mode AggMode
	// Parts are the parts of the key, at most MaxKeyParts. An entry's
	// key is these and its probe.
	Parts []PartKind
	// Probes say, by probe id, which arguments the value and the
	// PartArg parts are. Every probe id of the sites attached must have
	// one, given here or by Program.AddProbe.
	Probes []AggProbe
	// Strings say, by part of Parts, that a PartArg part may hold a
	// string though no probe of Probes reads one there: one AddProbe
	// adds later may. PairString says so of the pairing key. A part
	// that holds a string is sized for one.
	Strings    []bool
	PairString bool
	// MaxKeys is the most entries an interval keeps (DefaultMaxKeys if
	// 0; a histogram takes one per bucket that holds values): the
	// hits of a new key that find the map full are counted as lost
	// (AggEntry.Lost). At most MaxKeys. It is also the most STARTs of
	// AggLatency that wait for their END at a time: a START that finds
	// no room is counted as lost.
	MaxKeys int
	// Pair is the key by which AggLatency pairs STARTs and ENDs: PartPID,
	// PartTID (if 0), PartComm, or PartArg, which each probe's
	// AggProbe.Pair says.
	Pair PartKind
	// StackDepth is the most frames a PartUStack part keeps of a stack,
	// up to MaxStack (if 0). The map of stacks holds MaxKeys stacks of
	// StackDepth frames, allocated when the program is loaded: the
	// stacks of the whole trace, since an id, once taken, names its
	// stack until the program is closed.
	StackDepth int
}

// An AggProbe says which arguments of a probe an Aggregation reads.
type AggProbe struct {
	// Value is the argument of AggHist and AggStats.
	Value AggArg
	// Parts are, by part of Aggregation.Parts, the argument of each
	// PartArg part; other parts are ignored.
	Parts []AggArg
	// Start and End say what the probe's hits are to AggLatency: a
	// START, an END, or both (an END that then starts the next pair).
	// Parts are read at ENDs only.
	Start, End bool
	// Pair is the argument of a PartArg pairing key.
	Pair AggArg
}

// An AggArg is an argument an aggregation reads.
type AggArg struct {
	Index int // from 0
	// Size is the number of bytes of the value kept, sign-extended when
	// Signed; 0 keeps it as read, signed as the site's note says.
	Size   int
	Signed bool
	// String says that a part is the string the argument points to, cut
	// at Options.StringSize bytes; its sites must read it as one
	// (SpecOptions.Strings).
	String bool
}

// An AggEntry is what an interval counted for one probe and key.
type AggEntry struct {
	Probe uint32
	// Lost says that Count hits of the probe were not counted because
	// the map was full; the entry has no Parts.
	Lost bool
	// Unread says that the value of Count hits could not be read; for
	// AggLatency, their pairing key.
	Unread bool
	// For AggLatency, at most one of these is set and the entry has no
	// Parts but for Unmatched: Starts counts the hits of a START probe,
	// Unmatched the ENDs that found no START waiting, and Pending the
	// STARTs of the probe waiting when the interval ended. Other entries
	// of AggLatency count the pairs whose END was of the probe.
	Starts, Unmatched, Pending bool
	// Bucket is the log2 bucket of AggHist and AggLatency, numbered as
	// package aggregate numbers them.
	Bucket int
	// Parts are the parts of the key: pid and tid as Uint, comm as
	// String, arguments as Int, Uint or String; NotRead for a part that
	// could not be read.
	Parts []Value
	// Stack is, for an entry whose key has a PartUStack part, the
	// return addresses of the user stack, innermost first, starting at
	// the probe; the part is its id, a Uint. When the stack could not be
	// taken, the part is NotRead and StackErr says why: unix.EEXIST
	// when the stack's bucket in the map of stacks holds another one (a
	// hash collision: the map is too small for the stacks seen),
	// unix.ENOMEM when the map is full, unix.EFAULT when there was no
	// user stack to walk.
	Stack    []uint64
	StackErr error
	Count    uint64
	// Sum, Min and Max are the stats of AggStats and AggLatency.
	Sum, Min, Max int64
}

// ErrKeyTooLong is the error of Load for an aggregation whose key does
// not fit the program's.
var ErrKeyTooLong = errors.New("key too long")

// keyLayout is where each part of a key lies.
type keyLayout struct {
	parts   []PartKind
	off     []int // in the key, past the header
	size    []int
	str     []bool // some probe's part is a string
	keySize int    // of the whole key
	// pairSize is the size of the pairing key of AggLatency, the key
	// of the map of STARTs: pairStr says it is a string.
	pairSize int
	pairStr  bool
	// dense, when not nil, is where the counters lie in an array,
	// agg.bpf.c's counts, rather than in generations that are hashes.
	dense *denseLayout
}

func newKeyLayout(a *Aggregation, strSize int) (*keyLayout, error) {
	if len(a.Parts) > MaxKeyParts {
		return nil, fmt.Errorf("%d key parts, more than %d", len(a.Parts), MaxKeyParts)
	}
	l := &keyLayout{parts: a.Parts, keySize: keyHeader}
	for i, k := range a.Parts {
		size := numberSize
		str := false
		switch k {
		case PartPID, PartTID, PartUStack:
		case PartComm:
			size = commSize
		case PartArg:
			str = i < len(a.Strings) && a.Strings[i]
			for _, p := range a.Probes {
				if i < len(p.Parts) && p.Parts[i].String {
					str = true
				}
			}
			if str {
				size = stringPartSize(strSize)
			}
		default:
			return nil, fmt.Errorf("key part %d: bad kind %d", i, k)
		}
		l.off = append(l.off, l.keySize-keyHeader)
		l.size = append(l.size, size)
		l.str = append(l.str, str)
		l.keySize += size
	}
	if l.keySize > maxKeySize {
		return nil, fmt.Errorf("%w: %d bytes, more than %d (8 for the header and each number, %d for comm, the string size plus one, rounded up to 8, for a string)",
			ErrKeyTooLong, l.keySize, maxKeySize, commSize)
	}
	if a.Mode != AggLatency {
		return l, nil
	}
	l.pairSize = numberSize
	switch a.Pair {
	case 0, PartPID, PartTID:
	case PartComm:
		l.pairSize = commSize
	case PartArg:
		l.pairStr = a.PairString
		for _, p := range a.Probes {
			l.pairStr = l.pairStr || p.Pair.String
		}
		if l.pairStr {
			l.pairSize = stringPartSize(strSize)
		}
	default:
		return nil, fmt.Errorf("pairing key: bad kind %d", a.Pair)
	}
	if keyHeader+l.pairSize > maxKeySize {
		return nil, fmt.Errorf("%w: pairing key of %d bytes, more than %d (the string size plus one, rounded up to 8)",
			ErrKeyTooLong, l.pairSize, maxKeySize-keyHeader)
	}
	return l, nil
}

// readSize returns the bytes the program reads into a part of size
// bytes: a string's strSize and its NUL, as the events have it, though
// its room is rounded up to 8.
func (l *keyLayout) readSize(size int, str bool, strSize int) int {
	if str {
		return min(size, strSize+1)
	}
	return size
}

// stringPartSize returns the bytes a string takes in a key: strSize and
// its NUL, rounded up to 8.
func stringPartSize(strSize int) int { return (strSize + 1 + 7) &^ 7 }

// zeroed returns the bytes of a key that the program zeroes: room for
// the key of the aggregation map and for the pairing key.
func (l *keyLayout) zeroed() int { return max(l.keySize, keyHeader+l.pairSize) }

// aggState is what a Program that aggregates keeps.
type aggState struct {
	mode     AggMode
	layout   *keyLayout
	probes   []AggProbe   // by probe id; grows with AddProbe
	room     int          // probe ids, Options.MaxProbes or more, each with a lost entry
	probeMap *ebpf.Map    // agg_probes: the probes' arguments
	current  *ebpf.Map    // holds the generation hits add to
	gens     [2]*ebpf.Map // the two generations
	starts   *ebpf.Map    // the STARTs waiting of AggLatency
	cur      int          // the index in gens of the current one
	counts   *denseCounts // with a dense layout, in place of the generations
	ncpu     int
	// stacks holds the user stacks of a PartUStack part, by id; since
	// an id names the same stack until the program is closed, cache
	// keeps those read.
	stacks *ebpf.Map
	cache  map[uint32][]uint64
}

// aggVal is agg.bpf.c's struct aggval.
type aggVal struct {
	Count, Sum, Min, Max uint64
}

// aggStart is agg.bpf.c's struct start.
type aggStart struct {
	TS    uint64
	Probe uint32
	_     uint32
}

// aggSpec sets the sizes and constants of an aggregating program.
func aggSpec(spec *ebpf.CollectionSpec, o *Options) (*keyLayout, error) {
	a := o.Aggregate
	if a.Mode < AggCount || a.Mode > AggLatency {
		return nil, fmt.Errorf("bad aggregation mode %d", a.Mode)
	}
	if a.MaxKeys < 0 || a.MaxKeys > MaxKeys {
		return nil, fmt.Errorf("key count %d not in [1, %d]", a.MaxKeys, MaxKeys)
	}
	if a.StackDepth < 0 || a.StackDepth > MaxStack {
		return nil, fmt.Errorf("stack depth %d not in [1, %d]", a.StackDepth, MaxStack)
	}
	nprobes := max(len(a.Probes), o.MaxProbes)
	if nprobes == 0 {
		return nil, errors.New("aggregation of no probe")
	}
	l, err := newKeyLayout(a, o.StringSize)
	if err != nil {
		return nil, err
	}
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, err
	}
	inner := spec.Maps[aggMapCurrent].InnerMap
	l.dense = newDenseLayout(a, nprobes, ncpu)
	if l.dense != nil {
		l.dense.setSpec(spec.Maps[aggMapCounts])
	} else {
		inner.KeySize = uint32(l.keySize)
		inner.ValueSize = uint32(aggValueSize(a.Mode))
		// Room for the lost entries too.
		inner.MaxEntries = uint32(orDefault(a.MaxKeys, DefaultMaxKeys) + nprobes)
	}
	spec.Maps[aggMapProbes].MaxEntries = uint32(nprobes)
	if slices.Contains(a.Parts, PartUStack) {
		stacks := spec.Maps[aggMapStacks]
		stacks.MaxEntries = uint32(orDefault(a.MaxKeys, DefaultMaxKeys))
		stacks.ValueSize = uint32(8 * orDefault(a.StackDepth, MaxStack))
	}
	pair := orDefault(int(a.Pair), int(PartTID))
	if a.Mode == AggLatency {
		starts := spec.Maps[aggMapStarts]
		starts.KeySize = uint32(l.pairSize)
		starts.MaxEntries = uint32(orDefault(a.MaxKeys, DefaultMaxKeys))
		if starts.MaxEntries > startsPrealloc {
			starts.Flags |= unix.BPF_F_NO_PREALLOC
		}
	}
	var kinds [MaxKeyParts]uint8
	var offs, sizes [MaxKeyParts]uint16
	readArgs := a.Mode == AggHist || a.Mode == AggStats || a.Mode == AggLatency && pair == int(PartArg)
	for i, k := range l.parts {
		kinds[i], offs[i], sizes[i] = uint8(k), uint16(l.off[i]), uint16(l.readSize(l.size[i], l.str[i], o.StringSize))
		readArgs = readArgs || k == PartArg
	}
	dense, stride, buckets := false, 8, 1
	if d := l.dense; d != nil {
		dense, stride, buckets = true, d.stride, d.buckets
	}
	for name, v := range map[string]any{
		aggVarDense:        boolByte(dense),
		aggVarDenseStride:  uint32(stride),
		aggVarDenseBuckets: uint8(buckets),
		aggVarMode:         uint8(a.Mode),
		aggVarNparts:       uint8(len(l.parts)),
		aggVarKeyWords:     uint8(l.zeroed() / 8),
		aggVarPairKind:     uint8(pair),
		aggVarPairSize:     uint16(l.readSize(max(l.pairSize, numberSize), l.pairStr, o.StringSize)),
		aggVarReadArgs:     boolByte(readArgs),
		aggVarPartKind:     kinds,
		aggVarPartOff:      offs,
		aggVarPartSize:     sizes,
	} {
		if err := spec.Variables[name].Set(v); err != nil {
			return nil, fmt.Errorf("set %s: %w", name, err)
		}
	}
	return l, nil
}

func aggValueSize(m AggMode) int {
	if wide(m) {
		return int(unsafe.Sizeof(aggVal{}))
	}
	return 8
}

// wide reports whether the values of mode m are an aggVal, not a count.
func wide(m AggMode) bool { return m == AggStats || m == AggLatency }

func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// newAggState makes the two generations of a loaded program, the first
// one current, or its counters with a dense layout, and stores the
// probes' arguments.
func newAggState(coll *ebpf.Collection, spec *ebpf.CollectionSpec, o *Options, l *keyLayout) (*aggState, error) {
	a := o.Aggregate
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, err
	}
	s := &aggState{mode: a.Mode, layout: l, probes: slices.Clone(a.Probes), room: max(len(a.Probes), o.MaxProbes), ncpu: ncpu}
	s.probeMap = coll.DetachMap(aggMapProbes)
	for id, p := range a.Probes {
		if err := s.putProbe(id, &p); err != nil {
			s.close()
			return nil, err
		}
	}
	s.current = coll.DetachMap(aggMapCurrent)
	s.starts = coll.DetachMap(aggMapStarts)
	s.stacks = coll.DetachMap(aggMapStacks)
	s.cache = make(map[uint32][]uint64)
	if l.dense != nil {
		s.counts = newDenseCounts(l.dense, coll.DetachMap(aggMapCounts))
		return s, nil // no generations
	}
	for i := range s.gens {
		m, err := ebpf.NewMap(spec.Maps[aggMapCurrent].InnerMap)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("aggregation map: %w", err)
		}
		s.gens[i] = m
		if err := s.resetLost(m); err != nil {
			s.close()
			return nil, err
		}
	}
	if err := s.current.Put(uint32(0), s.gens[0]); err != nil {
		s.close()
		return nil, fmt.Errorf("aggregation map: %w", err)
	}
	return s, nil
}

// putProbe stores how the program reads probe id.
func (s *aggState) putProbe(id int, p *AggProbe) error {
	var raw aggAggprobe
	raw.Value.Arg, raw.Value.Size, raw.Value.Sign = aggArg(p.Value)
	for i, x := range p.Parts {
		if i < MaxKeyParts {
			raw.Parts[i].Arg, raw.Parts[i].Size, raw.Parts[i].Sign = aggArg(x)
		}
	}
	raw.Pair.Arg, raw.Pair.Size, raw.Pair.Sign = aggArg(p.Pair)
	if p.Start {
		raw.Role |= roleStart
	}
	if p.End {
		raw.Role |= roleEnd
	}
	if err := s.probeMap.Put(uint32(id), &raw); err != nil {
		return fmt.Errorf("store probe %d: %w", id, err)
	}
	return nil
}

// checkProbe reports why probe id, p, cannot be added: it was, or the
// key layout, fixed at load, has no room for what it reads.
func (s *aggState) checkProbe(id int, p *AggProbe) error {
	if id < len(s.probes) {
		return fmt.Errorf("probe %d: already stored", id)
	}
	l := s.layout
	for i, x := range p.Parts {
		if x.String && (i >= len(l.str) || !l.str[i]) {
			return fmt.Errorf("probe %d: key part %d: a string where the key has room for a number", id, i)
		}
	}
	if p.Pair.String && !l.pairStr {
		return fmt.Errorf("probe %d: pairing key: a string where the key has room for a number", id)
	}
	return nil
}

func aggArg(x AggArg) (arg, size, sign uint8) {
	if x.Index < 0 || x.Index >= MaxArgs {
		return 0xff, 0, 0 // read by no site: the value or part is not read
	}
	return uint8(x.Index), uint8(x.Size), boolByte(x.Signed)
}

// lostKey returns the key of the lost entry of a probe.
func (s *aggState) lostKey(probe uint32) []byte {
	k := make([]byte, s.layout.keySize)
	binary.NativeEndian.PutUint32(k, probe)
	k[4] = bucketLost
	return k
}

// resetLost puts the lost entry of every probe id, at zero, in m, so that
// a hit that finds m full finds it, and so that the other entries are
// MaxKeys at most, also with room for probes added later.
func (s *aggState) resetLost(m *ebpf.Map) error {
	for id := range s.room {
		if err := s.putLost(m, id); err != nil {
			return err
		}
	}
	return nil
}

// putLost puts the lost entry of probe id, at zero, in m.
func (s *aggState) putLost(m *ebpf.Map, id int) error {
	var zero any = make([]uint64, s.ncpu)
	if wide(s.mode) {
		zero = make([]aggVal, s.ncpu)
	}
	if err := putRetried(m, s.lostKey(uint32(id)), zero); err != nil {
		return fmt.Errorf("aggregation map: lost entry: %w", err)
	}
	return nil
}

// allocRetries bounds how many times putRetried tries again; with its
// delays, doubling from 100 us to at most 50 ms, about 0.3 s in all.
const allocRetries = 13

// putRetried puts key and value in m, trying again a while when the
// kernel had no memory for the entry at once. The entries of a map
// without preallocation come from per-CPU caches that the kernel
// refills after the fact (bpf_mem_alloc), and a per-CPU value from
// per-CPU memory that it grows in the background (pcpu_balance_workfn):
// a burst of updates from user space can find them empty, above all on
// a machine of many CPUs that has just booted, and a moment later they
// are not.
func putRetried(m interface{ Put(key, value any) error }, key, value any) error {
	delay := 100 * time.Microsecond
	for try := 0; ; try++ {
		err := m.Put(key, value)
		if !errors.Is(err, unix.ENOMEM) || try == allocRetries {
			return err
		}
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// addProbe stores probe id, added after loading, and its lost entries.
func (s *aggState) addProbe(id int, p *AggProbe) error {
	if err := s.checkProbe(id, p); err != nil {
		return err
	}
	if err := s.putProbe(id, p); err != nil {
		return err
	}
	for len(s.probes) < id {
		s.probes = append(s.probes, AggProbe{}) // no site reads these
	}
	s.probes = append(s.probes, *p)
	return nil
}

func (s *aggState) close() error {
	var errs []error
	ms := append([]*ebpf.Map{s.current, s.starts, s.probeMap, s.stacks}, s.gens[:]...)
	if s.counts != nil {
		ms = append(ms, s.counts.m)
	}
	for _, m := range ms {
		if m != nil {
			errs = append(errs, m.Close())
		}
	}
	return errors.Join(errs...)
}

// Collect ends an interval of an aggregating program: it makes the other
// generation current, waits until no hit adds to the one that was (see
// agg.bpf.c), calls fn with each of its entries that counted something,
// in no particular order, and empties it for its next turn; with
// counters in an array, it reads how much they grew instead (see
// denseCounts). Every hit is in exactly one interval. The AggEntry is
// reused between calls.
func (p *Program) Collect(fn func(*AggEntry)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.agg
	if s == nil {
		return errors.New("collect: the program does not aggregate")
	}
	if p.prog == nil {
		return fmt.Errorf("collect: %w", ErrClosed)
	}
	if s.counts != nil {
		if err := s.counts.collect(s.mode, fn); err != nil {
			return fmt.Errorf("collect: %w", err)
		}
		return nil
	}
	old := s.gens[s.cur]
	// The update returns once every program that could have looked up
	// the old generation has returned.
	if err := s.current.Put(uint32(0), s.gens[1-s.cur]); err != nil {
		return fmt.Errorf("collect: switch generations: %w", err)
	}
	s.cur = 1 - s.cur
	var keys [][]byte
	var e AggEntry
	key := make([]byte, s.layout.keySize)
	vals := s.newValues()
	it := old.Iterate()
	for it.Next(unsafe.Pointer(&key[0]), vals) {
		keys = append(keys, bytes.Clone(key))
		if s.decode(key, vals, &e) {
			fn(&e)
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if s.mode == AggLatency {
		if err := s.pending(fn); err != nil {
			return fmt.Errorf("collect: %w", err)
		}
	}
	for _, k := range keys {
		if k[4] == bucketLost {
			continue
		}
		if err := old.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fmt.Errorf("collect: empty the map: %w", err)
		}
	}
	return s.resetLost(old)
}

// pending calls fn with the number of STARTs waiting of each probe that
// has some.
func (s *aggState) pending(fn func(*AggEntry)) error {
	n := make(map[uint32]uint64)
	key := make([]byte, s.layout.pairSize)
	var v aggStart
	it := s.starts.Iterate()
	for it.Next(unsafe.Pointer(&key[0]), &v) {
		if v.TS != 0 {
			n[v.Probe]++
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	probes := make([]uint32, 0, len(n))
	for p := range n {
		probes = append(probes, p)
	}
	slices.Sort(probes)
	for _, p := range probes {
		fn(&AggEntry{Probe: p, Pending: true, Count: n[p]})
	}
	return nil
}

// newValues returns room for the per-CPU values of an entry, which
// Map.Lookup takes as a pointer to a slice with one value per CPU.
func (s *aggState) newValues() any {
	if wide(s.mode) {
		return &[]aggVal{}
	}
	return &[]uint64{}
}

// decode decodes an entry, its per-CPU values summed; false when it
// counted nothing.
func (s *aggState) decode(key []byte, vals any, e *AggEntry) bool {
	*e = AggEntry{Parts: e.Parts[:0], Probe: binary.NativeEndian.Uint32(key)}
	var lo, hi uint64
	switch vs := vals.(type) {
	case *[]uint64:
		for _, v := range *vs {
			e.Count += v
		}
	case *[]aggVal:
		for _, v := range *vs {
			e.Count += v.Count
			e.Sum += int64(v.Sum)
			lo, hi = max(lo, v.Min), max(hi, v.Max)
		}
	}
	if e.Count == 0 {
		return false
	}
	// See struct aggval.
	e.Min, e.Max = int64(^lo^1<<63), int64(hi^1<<63)
	switch b := key[4]; b {
	case bucketLost:
		e.Lost = true
		return true
	case bucketUnread:
		e.Unread = true
	case bucketStarts:
		e.Starts = true
		return true
	case bucketUnmatched:
		e.Unmatched = true
	default:
		e.Bucket = int(b)
	}
	failed, signs := key[5], key[6]
	data := key[keyHeader:]
	for i, k := range s.layout.parts {
		b := data[s.layout.off[i] : s.layout.off[i]+s.layout.size[i]]
		var v Value
		switch {
		case k == PartUStack && failed&(1<<i) != 0:
			v = Value{Kind: NotRead, Size: 8}
			e.StackErr = unix.Errno(binary.NativeEndian.Uint64(b))
		case k == PartUStack:
			v = Value{Kind: Uint, Bits: binary.NativeEndian.Uint64(b), Size: 8}
			if e.Stack, e.StackErr = s.stack(uint32(v.Bits)); e.StackErr != nil {
				v = Value{Kind: NotRead, Size: 8}
			}
		case failed&(1<<i) != 0:
			v = Value{Kind: NotRead, Size: 8}
		case k == PartComm, k == PartArg && s.isString(e.Probe, i):
			if j := bytes.IndexByte(b, 0); j >= 0 {
				b = b[:j]
			}
			v = Value{Kind: String, Str: string(b)}
		default:
			v = Value{Kind: Uint, Bits: binary.NativeEndian.Uint64(b), Size: 8}
			if signs&(1<<i) != 0 {
				v.Kind = Int
			}
		}
		e.Parts = append(e.Parts, v)
	}
	return true
}

// isString reports whether part i of probe's keys is a string.
func (s *aggState) isString(probe uint32, i int) bool {
	if int(probe) >= len(s.probes) {
		return false
	}
	p := s.probes[probe].Parts
	return i < len(p) && p[i].String
}

// stack returns the return addresses of the stack of id, innermost
// first.
func (s *aggState) stack(id uint32) ([]uint64, error) {
	if st, ok := s.cache[id]; ok {
		return st, nil
	}
	var raw []byte
	if err := s.stacks.Lookup(id, &raw); err != nil {
		return nil, fmt.Errorf("stack %d: %w", id, err)
	}
	// The kernel zeroes the frames past the stack's.
	var st []uint64
	for i := 0; i+8 <= len(raw); i += 8 {
		a := binary.NativeEndian.Uint64(raw[i:])
		if a == 0 {
			break
		}
		st = append(st, a)
	}
	s.cache[id] = st
	return st, nil
}
