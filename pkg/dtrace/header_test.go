package dtrace

import (
	"bytes"
	"strings"
	"testing"
)

func TestMacroName(t *testing.T) {
	for _, tt := range []struct {
		provider, name, want string
	}{
		{"p", "q", "P_Q"},
		{"myapp", "request__start", "MYAPP_REQUEST_START"},
		{"my__app", "a___b", "MY__APP_A__B"},
	} {
		if got := MacroName(tt.provider, tt.name); got != tt.want {
			t.Errorf("MacroName(%q, %q) = %q, want %q", tt.provider, tt.name, got, tt.want)
		}
	}
}

func TestWriteHeader(t *testing.T) {
	providers, err := Parse("p.d", []byte("provider p { probe q(int a, char *); probe r__s(); };"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHeader(&b, "p.d", providers); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{
		"#define P_Q(arg1, arg2) \\\n",
		"#define P_Q_ENABLED() __builtin_expect (p_q_semaphore, 0)\n",
		"_SDTGEN_ARG (1, arg1), _SDTGEN_ARG (2, arg2));",
		"#define P_R_S() \\\n",
		"extern unsigned short p_r__s_semaphore ",
		`".asciz \"r__s\"\n"`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("header lacks %q", want)
		}
	}
	if strings.Contains(h, "#include") {
		t.Error("header includes a file")
	}
}

func TestWriteHeaderClash(t *testing.T) {
	providers, err := Parse("p.d", []byte("provider p { probe a__b(); probe a_b(); };"))
	if err != nil {
		t.Fatal(err)
	}
	err = WriteHeader(new(bytes.Buffer), "p.d", providers)
	if err == nil || !strings.Contains(err.Error(), "P_A_B") {
		t.Errorf("WriteHeader(a__b, a_b) = %v, want an error naming P_A_B", err)
	}
}
