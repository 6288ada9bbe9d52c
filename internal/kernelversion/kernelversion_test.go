package kernelversion

import "testing"

func TestBefore(t *testing.T) {
	major, minor, err := Running()
	if err != nil {
		t.Fatal(err)
	}
	if major < 2 {
		t.Fatalf("Running() = %d.%d, want a Linux version", major, minor)
	}
	for _, tt := range []struct {
		major, minor int
		want         bool
	}{
		{major, minor, false},
		{major, minor + 1, true},
		{major + 1, 0, true},
		{major - 1, 99, false},
		{major, minor - 1, false},
	} {
		got, ok := Before(tt.major, tt.minor)
		if !ok || got != tt.want {
			t.Errorf("Before(%d, %d) on %d.%d = %v, %v; want %v, true", tt.major, tt.minor, major, minor, got, ok, tt.want)
		}
	}
}
