package main

import (
	"strings"
	"testing"
)

func TestPickMirrors(t *testing.T) {
	deb822 := `Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main
`
	oneLine := "deb [arch=amd64 signed-by=/k.gpg] http://other.example/debian bullseye main\n# deb http://x y z\n"
	srcs := append(parseOneLine([]byte(oneLine)), parseDeb822([]byte(deb822))...)
	for _, tt := range []struct {
		codename        string
		archive, secure string
		keyring         string
		err             bool
	}{
		{"bookworm", "http://mirror.example/debian", "http://security.example/debian-security", defaultKeyring, false},
		{"bullseye", "http://other.example/debian", "", "/k.gpg", false},
		{"trixie", "", "", "", true},
	} {
		m, err := pickMirrors(srcs, tt.codename)
		if tt.err {
			if err == nil {
				t.Errorf("pickMirrors(%s) = %+v, want an error", tt.codename, m)
			}
			continue
		}
		if err != nil {
			t.Errorf("pickMirrors(%s): %v", tt.codename, err)
			continue
		}
		if m.archive != tt.archive || m.security != tt.secure || m.keyring != tt.keyring {
			t.Errorf("pickMirrors(%s) = %+v, want %s, %s, %s", tt.codename, m, tt.archive, tt.secure, tt.keyring)
		}
	}
	m, _ := pickMirrors(srcs, "bookworm")
	list := string(m.sourcesList())
	for _, want := range []string{"http://mirror.example/debian bullseye main", "http://security.example/debian-security trixie-security main"} {
		if !strings.Contains(list, want) {
			t.Errorf("sources.list lacks %q:\n%s", want, list)
		}
	}
}
