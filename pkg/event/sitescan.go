package event

// The sites of a file are decoded by the scanner too: reflection-based
// decoding of sdtlist's lines takes several times as long, and a JSON
// package fast enough would cost every tool that links this one more at
// start-up than it saves here.

// object reads a JSON object, calling member for the value of each key.
func (s *scanner) object(member func(key string) error) error {
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
		if err := member(string(key)); err != nil {
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
	err := s.object(func(key string) (err error) {
		switch key {
		case "file":
			st.File, err = s.stringField(key)
		case "provider":
			st.Provider, err = s.stringField(key)
		case "name":
			st.Name, err = s.stringField(key)
		case "args":
			st.Args, err = s.stringField(key)
		case "pc":
			st.PC, err = s.uint(key)
		case "base":
			st.Base, err = s.uint(key)
		case "semaphore":
			st.Semaphore, err = s.uint(key)
		case "pc_offset":
			st.PCOffset, err = s.uint(key)
		case "semaphore_offset":
			st.SemaphoreOffset, err = s.uint(key)
		case "note_pc":
			st.NotePC, err = s.uint(key)
			notePC = true
		case "note_semaphore":
			st.NoteSemaphore, err = s.uint(key)
			noteSemaphore = true
		case "pc_error":
			st.PCError, err = s.stringField(key)
		case "semaphore_error":
			st.SemaphoreError, err = s.stringField(key)
		case "argv":
			st.Argv, err = s.argv()
		case "pid":
			var pid int64
			pid, err = s.integer(key)
			st.PID = int(pid)
		case "addr":
			st.Addr, err = s.uint(key)
		case "armed":
			st.Armed, err = s.boolean(key)
		case "armed_error":
			st.ArmedError, err = s.stringField(key)
		case "orphaned":
			st.Orphaned, err = s.boolean(key)
		case "orphaned_error":
			st.OrphanedError, err = s.stringField(key)
		case "owner":
			st.Owner, err = s.stringField(key)
		case "semaphore_addr":
			st.SemaphoreAddr, err = s.uint(key)
		case "semaphore_value":
			var v uint64
			v, err = s.uint(key)
			st.SemaphoreValue = &v
		case "semaphore_value_error":
			st.SemaphoreValueError, err = s.stringField(key)
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
	return s.object(func(key string) (err error) {
		var n int64
		switch key {
		case "raw":
			a.Raw, err = s.stringField(key)
		case "size":
			n, err = s.integer(key)
			a.Size = int(n)
		case "signed":
			a.Signed, err = s.boolean(key)
		case "float":
			a.Float, err = s.boolean(key)
		case "kind":
			a.Kind, err = s.stringField(key)
		case "location":
			a.Location, err = s.stringField(key)
		case "reg":
			a.Reg, err = s.stringField(key)
		case "reg_offset":
			n, err = s.integer(key)
			a.RegOffset = int(n)
		case "reg_high":
			a.RegHigh, err = s.stringField(key)
		case "index":
			a.Index, err = s.stringField(key)
		case "scale":
			n, err = s.integer(key)
			a.Scale = int(n)
		case "offset":
			a.Offset, err = s.integer(key)
		case "value":
			a.Value, err = s.integer(key)
		case "symbol":
			a.Symbol, err = s.stringField(key)
		case "reloc":
			a.Reloc, err = s.stringField(key)
		case "error":
			a.Error, err = s.stringField(key)
		default:
			err = s.skip()
		}
		return err
	})
}
