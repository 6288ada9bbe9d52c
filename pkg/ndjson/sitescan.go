package ndjson

// The sites of a file are decoded by the scanner too: encoding/json
// takes several times as long on sdtlist's lines, and goccy/go-json,
// 1.3x faster than the scanner on them (BenchmarkParseSiteGoccy), would
// cost every tool that links this package 0.3 ms at start-up, more than
// it saves on all but the largest listings.

// object reads a JSON object, calling member for the value of each key.
// record reads events with a loop of its own: a call per member would
// cost the path every event takes.
func (s *scanner) object(member func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for more := true; more; {
		key, _, err := s.rawString()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		if more, err = s.next('}'); err != nil {
			return err
		}
	}
	return nil
}

// uint reads a number that must be an unsigned integer.
func (s *scanner) uint(field string) (uint64, error) {
	v, err := s.value()
	if err == nil && v.Kind != Uint {
		err = &FieldError{field, "an unsigned integer"}
	}
	return v.Uint, err
}

// boolean reads true or false.
func (s *scanner) boolean(field string) (bool, error) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, &FieldError{field, "true or false"}
}

// site decodes the object of a site into st.
func (s *scanner) site(st *Site) error {
	*st = Site{}
	var notePC, noteSemaphore bool
	err := s.object(func(key []byte) (err error) {
		switch string(key) {
		case "file":
			st.File, err = s.stringField("file")
		case "provider":
			st.Provider, err = s.stringField("provider")
		case "name":
			st.Name, err = s.stringField("name")
		case "args":
			st.Args, err = s.stringField("args")
		case "pc":
			st.PC, err = s.uint("pc")
		case "base":
			st.Base, err = s.uint("base")
		case "semaphore":
			st.Semaphore, err = s.uint("semaphore")
		case "pc_offset":
			st.PCOffset, err = s.uint("pc_offset")
		case "semaphore_offset":
			st.SemaphoreOffset, err = s.uint("semaphore_offset")
		case "insn":
			st.Insn, err = s.stringField("insn")
		case "note_pc":
			st.NotePC, err = s.uint("note_pc")
			notePC = true
		case "note_semaphore":
			st.NoteSemaphore, err = s.uint("note_semaphore")
			noteSemaphore = true
		case "pc_error":
			st.PCError, err = s.stringField("pc_error")
		case "semaphore_error":
			st.SemaphoreError, err = s.stringField("semaphore_error")
		case "argv":
			st.Argv, err = s.argv()
		case "pid":
			var pid int64
			pid, err = s.integer("pid")
			st.PID = int(pid)
		case "addr":
			st.Addr, err = s.uint("addr")
		case "armed":
			st.Armed, err = s.boolean("armed")
		case "armed_error":
			st.ArmedError, err = s.stringField("armed_error")
		case "orphaned":
			st.Orphaned, err = s.boolean("orphaned")
		case "orphaned_error":
			st.OrphanedError, err = s.stringField("orphaned_error")
		case "owners":
			st.Owners, err = s.stringArray("owners")
		case "hook":
			st.Hook, err = s.stringField("hook")
		case "semaphore_addr":
			st.SemaphoreAddr, err = s.uint("semaphore_addr")
		case "semaphore_value":
			var v uint64
			v, err = s.uint("semaphore_value")
			st.SemaphoreValue = &v
		case "semaphore_value_error":
			st.SemaphoreValueError, err = s.stringField("semaphore_value_error")
		default:
			err = s.skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	// The note's addresses are written only when they differ from the
	// adjusted ones.
	if !notePC {
		st.NotePC = st.PC
	}
	if !noteSemaphore {
		st.NoteSemaphore = st.Semaphore
	}
	return nil
}

// stringArray reads an array of strings.
func (s *scanner) stringArray(field string) ([]string, error) {
	if s.peek() != '[' {
		if err := s.skip(); err != nil {
			return nil, err
		}
		return nil, &FieldError{field, "an array of strings"}
	}
	s.i++
	a := []string{}
	if s.peek() == ']' {
		s.i++
		return a, nil
	}
	for more := true; more; {
		v, err := s.stringField(field)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if more, err = s.next(']'); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// argv reads the array of a site's parsed arguments.
func (s *scanner) argv() ([]SiteArg, error) {
	if err := s.expect('['); err != nil {
		return nil, err
	}
	argv := []SiteArg{}
	if s.peek() == ']' {
		s.i++
		return argv, nil
	}
	for more := true; more; {
		argv = append(argv, SiteArg{})
		if err := s.siteArg(&argv[len(argv)-1]); err != nil {
			return nil, err
		}
		var err error
		if more, err = s.next(']'); err != nil {
			return nil, err
		}
	}
	return argv, nil
}

// siteArg decodes one element of argv into a.
func (s *scanner) siteArg(a *SiteArg) error {
	*a = SiteArg{RegOffset: -1} // reg_offset is absent when it is -1
	return s.object(func(key []byte) (err error) {
		var n int64
		switch string(key) {
		case "raw":
			a.Raw, err = s.stringField("raw")
		case "size":
			n, err = s.integer("size")
			a.Size = int(n)
		case "signed":
			a.Signed, err = s.boolean("signed")
		case "float":
			a.Float, err = s.boolean("float")
		case "kind":
			a.Kind, err = s.stringField("kind")
		case "location":
			a.Location, err = s.stringField("location")
		case "reg":
			a.Reg, err = s.stringField("reg")
		case "reg_offset":
			n, err = s.integer("reg_offset")
			a.RegOffset = int(n)
		case "reg_high":
			a.RegHigh, err = s.stringField("reg_high")
		case "index":
			a.Index, err = s.stringField("index")
		case "scale":
			n, err = s.integer("scale")
			a.Scale = int(n)
		case "offset":
			a.Offset, err = s.integer("offset")
		case "value":
			a.Value, err = s.integer("value")
		case "symbol":
			a.Symbol, err = s.stringField("symbol")
		case "reloc":
			a.Reloc, err = s.stringField("reloc")
		case "error":
			a.Error, err = s.stringField("error")
		default:
			err = s.skip()
		}
		return err
	})
}
