// Package event reads the NDJSON records sdtkit's tools write: the probe
// events of sdtattach, its in-band lost-event counts, and the probe sites
// sdtlist lists.
//
// An event is one JSON object per line:
//
//	{"ts":1718000000123456789,"pid":42,"tid":43,"comm":"demo","cpu":1,
//	 "provider":"demo","name":"tick","args":[7,-1,"0x1f","text",null]}
//
// ts is the time of the hit in Unix nanoseconds. An argument is a JSON
// number (an integer, kept exactly over the whole int64 and uint64
// ranges), a JSON string (a string argument, or a hex-typed one such as
// "0x1f") or null (the argument could not be read). With sdtattach --types
// an object "fields" names the values too. A record {"lost":N} says N
// events were dropped at that point of the stream.
//
// A Reader splits its input into lines and decodes each with a scanner
// written for this shape: the per-event path allocates only for string
// values, so that a formatter keeps up with a million events a second. A
// line that is not a record, or is longer than MaxLineSize, yields a
// *LineError; the next call goes on with the next line.
package event
