package dtrace

import (
	"reflect"
	"testing"
)

// FuzzParse checks that Parse does not panic, and that what it accepts
// prints to a form it reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"provider p { probe q(int, char *); };",
		"#pragma D x\nprovider demo { probe start(int argc, const char *argv0); probe tick(long long); };",
		"provider a { probe b__c(struct s *p, unsigned long long) : (string); }; /* c */ provider b {}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		provs, err := Parse("f.d", []byte(src))
		if err != nil {
			return
		}
		var text string
		for i := range provs {
			text += provs[i].String()
		}
		back, err := Parse("g.d", []byte(text))
		if err != nil {
			t.Fatalf("Parse(%q) of the printed form of %q: %v", text, src, err)
		}
		if !reflect.DeepEqual(back, provs) && !(len(back) == 0 && len(provs) == 0) {
			t.Fatalf("round trip of %q: got %+v, want %+v", src, back, provs)
		}
	})
}
