package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// defaultKeyring holds the keys of every Debian release, old and new.
const defaultKeyring = "/usr/share/keyrings/debian-archive-keyring.gpg"

// mirrors are the Debian archives the host's apt uses: the kernels come
// from the same ones, in other suites.
type mirrors struct {
	archive, security string // URIs; security may be ""
	keyring           string
}

// A source is one entry of the host's apt sources.
type source struct {
	uris, suites []string
	signedBy     string
}

// hostMirrors finds the host's Debian archive, the source of the suite
// its /etc/os-release names, and its security archive.
func hostMirrors() (*mirrors, error) {
	codename, err := osCodename("/etc/os-release")
	if err != nil {
		return nil, err
	}
	var srcs []source
	if b, err := os.ReadFile("/etc/apt/sources.list"); err == nil {
		srcs = append(srcs, parseOneLine(b)...)
	}
	parts, _ := filepath.Glob("/etc/apt/sources.list.d/*")
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		switch {
		case strings.HasSuffix(p, ".sources"):
			srcs = append(srcs, parseDeb822(b)...)
		case strings.HasSuffix(p, ".list"):
			srcs = append(srcs, parseOneLine(b)...)
		}
	}
	return pickMirrors(srcs, codename)
}

// pickMirrors returns the sources of codename and codename-security.
func pickMirrors(srcs []source, codename string) (*mirrors, error) {
	m := &mirrors{keyring: defaultKeyring}
	for _, s := range srcs {
		if len(s.uris) == 0 {
			continue
		}
		if m.archive == "" && slices.Contains(s.suites, codename) {
			m.archive = strings.TrimSuffix(s.uris[0], "/")
			if s.signedBy != "" && strings.HasPrefix(s.signedBy, "/") {
				m.keyring = s.signedBy
			}
		}
		if m.security == "" && slices.Contains(s.suites, codename+"-security") {
			m.security = strings.TrimSuffix(s.uris[0], "/")
		}
	}
	if m.archive == "" {
		return nil, fmt.Errorf("no apt source of Debian %s on the host to take the kernels from", codename)
	}
	return m, nil
}

// sourcesList returns the private sources.list.
func (m *mirrors) sourcesList() []byte {
	var b bytes.Buffer
	for _, s := range suites {
		fmt.Fprintf(&b, "deb [signed-by=%s] %s %s main\n", m.keyring, m.archive, s)
	}
	if m.security != "" {
		for _, s := range securitySuites {
			fmt.Fprintf(&b, "deb [signed-by=%s] %s %s main\n", m.keyring, m.security, s)
		}
	}
	return b.Bytes()
}

// osCodename returns VERSION_CODENAME of an os-release file.
func osCodename(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("host release: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok && v != "" {
			return strings.Trim(v, `"`), nil
		}
	}
	return "", errors.New("host release: not Debian (no VERSION_CODENAME in " + path + ")")
}

// parseOneLine parses sources.list lines: deb [OPTIONS] URI SUITE COMPONENT...
func parseOneLine(b []byte) []source {
	var srcs []source
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		f = f[1:]
		var s source
		if strings.HasPrefix(f[0], "[") {
			for len(f) > 0 {
				opt := strings.Trim(f[0], "[]")
				if v, ok := strings.CutPrefix(opt, "signed-by="); ok {
					s.signedBy = v
				}
				last := strings.HasSuffix(f[0], "]")
				f = f[1:]
				if last {
					break
				}
			}
		}
		if len(f) < 2 {
			continue
		}
		s.uris, s.suites = f[:1], f[1:2]
		srcs = append(srcs, s)
	}
	return srcs
}

// parseDeb822 parses a .sources file: stanzas of Types, URIs, Suites,
// Signed-By fields.
func parseDeb822(b []byte) []source {
	var srcs []source
	for _, stanza := range strings.Split(string(b), "\n\n") {
		var s source
		deb, enabled := false, true
		for _, line := range strings.Split(stanza, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.HasPrefix(line, "#") || strings.HasPrefix(line, " ") {
				continue
			}
			v = strings.TrimSpace(v)
			switch strings.ToLower(k) {
			case "types":
				deb = slices.Contains(strings.Fields(v), "deb")
			case "uris":
				s.uris = strings.Fields(v)
			case "suites":
				s.suites = strings.Fields(v)
			case "signed-by":
				s.signedBy = v
			case "enabled":
				enabled = v != "no"
			}
		}
		if deb && enabled {
			srcs = append(srcs, s)
		}
	}
	return srcs
}
