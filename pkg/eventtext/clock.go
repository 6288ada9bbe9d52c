package eventtext

import (
	"errors"
	"strconv"
	"time"
)

// A TimeStyle is how a Clock writes times.
type TimeStyle uint8

const (
	TimeRel  TimeStyle = iota // seconds since the first event, with microseconds: 1.250009
	TimeAbs                   // local time of day, with microseconds: 15:04:05.000120
	TimeNone                  // no time
)

// ParseTimeStyle parses rel, abs or none.
func ParseTimeStyle(s string) (TimeStyle, error) {
	switch s {
	case "rel":
		return TimeRel, nil
	case "abs":
		return TimeAbs, nil
	case "none":
		return TimeNone, nil
	}
	return 0, errors.New("want abs, rel or none")
}

// A Clock writes the times of events, Unix nanoseconds, in its Style.
// TimeRel counts from the first time the clock sees.
type Clock struct {
	Style TimeStyle

	started bool
	first   int64
	sec     int64  // Unix second whose prefix is cached
	prefix  []byte // "15:04:05" of sec
}

// See notes the time of an event: the first one is where relative times
// count from.
func (c *Clock) See(ts int64) {
	if !c.started {
		c.started, c.first = true, ts
	}
}

// AppendTime appends ts in the clock's style, after seeing it.
func (c *Clock) AppendTime(b []byte, ts int64) []byte {
	c.See(ts)
	switch c.Style {
	case TimeRel:
		d := ts - c.first
		if d < 0 {
			b = append(b, '-')
			d = -d
		}
		b = strconv.AppendInt(b, d/1e9, 10)
		return appendFrac(b, d%1e9/1e3)
	case TimeAbs:
		sec := ts / 1e9
		if ts%1e9 < 0 {
			sec--
		}
		if c.prefix == nil || sec != c.sec {
			c.sec = sec
			c.prefix = time.Unix(sec, 0).AppendFormat(c.prefix[:0], "15:04:05")
		}
		b = append(b, c.prefix...)
		return appendFrac(b, (ts-sec*1e9)/1e3)
	}
	return b
}

// appendFrac appends '.' and us as six digits.
func appendFrac(b []byte, us int64) []byte {
	var d [7]byte
	d[0] = '.'
	for i := 6; i > 0; i-- {
		d[i] = byte('0' + us%10)
		us /= 10
	}
	return append(b, d[:]...)
}
