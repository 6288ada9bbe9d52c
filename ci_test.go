package sdtkit_test

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestCIDoc checks that the files docs/ci.md shows are those the scripts
// ci_recipe.txt and jq_times.txt run: each fenced block that follows a
// line "`NAME`:" is the file NAME of one of the archives.
func TestCIDoc(t *testing.T) {
	doc, err := os.ReadFile("docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string]string)
	from := make(map[string]string) // the script of each file
	for _, script := range []string{"ci_recipe.txt", "jq_times.txt"} {
		ar, err := txtar.ParseFile("testdata/script/" + script)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			files[f.Name], from[f.Name] = string(f.Data), script
		}
	}
	blocks := docFiles(doc)
	for _, name := range []string{"Containerfile", ".github/workflows/probes.yml", "ci/build.sh", "ci/probes.sh", "src/shop.c", "ci/times.sh"} {
		if _, ok := blocks[name]; !ok {
			t.Errorf("docs/ci.md does not show %s", name)
		}
	}
	for name, text := range blocks {
		want, ok := files[name]
		switch {
		case !ok:
			t.Errorf("docs/ci.md shows %s, which no script has", name)
		case text != want:
			t.Errorf("docs/ci.md shows %s as\n%s\n%s has\n%s", name, text, from[name], want)
		}
	}
}

var fileLine = regexp.MustCompile("^`([^`]+)`:$")

// docFiles returns the fenced blocks of a Markdown document that follow
// a line "`NAME`:" and blank lines, by NAME.
func docFiles(doc []byte) map[string]string {
	blocks := make(map[string]string)
	sc := bufio.NewScanner(bytes.NewReader(doc))
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if m := fileLine.FindStringSubmatch(line); m != nil {
			name = m[1]
			continue
		}
		if name != "" && line == "" {
			continue
		}
		if name == "" || !strings.HasPrefix(line, "```") {
			name = ""
			continue
		}
		var b strings.Builder
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "```") {
			b.WriteString(sc.Text() + "\n")
		}
		blocks[name] = b.String()
		name = ""
	}
	return blocks
}
