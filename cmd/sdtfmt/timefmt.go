package main

import (
	"errors"
	"strconv"
	"time"
)

// timeStyle is the style of the TIME column.
type timeStyle uint8

const (
	timeRel  timeStyle = iota // seconds since the first event
	timeAbs                   // local time of day
	timeNone                  // no column
)

func parseTimeStyle(s string) (timeStyle, error) {
	switch s {
	case "rel":
		return timeRel, nil
	case "abs":
		return timeAbs, nil
	case "none":
		return timeNone, nil
	}
	return 0, errors.New("want abs, rel or none")
}

// clock formats event times. rel is measured from the first time it sees.
type clock struct {
	style   timeStyle
	started bool
	first   int64
	sec     int64  // Unix second whose prefix is cached
	prefix  []byte // "15:04:05" of sec
}

// see starts the clock at the first event.
func (c *clock) see(ts int64) {
	if !c.started {
		c.started, c.first = true, ts
	}
}

// appendTime appends ts, a Unix time in nanoseconds, in the clock's style.
func (c *clock) appendTime(b []byte, ts int64) []byte {
	c.see(ts)
	switch c.style {
	case timeRel:
		d := ts - c.first
		if d < 0 {
			b = append(b, '-')
			d = -d
		}
		b = strconv.AppendInt(b, d/1e9, 10)
		return appendFrac(b, d%1e9/1e3)
	case timeAbs:
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
