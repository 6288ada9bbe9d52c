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

// TestCIDoc checks that the files docs/ci.md shows are those the script
// ci_recipe.txt runs: each fenced block that follows a line "`NAME`:" is
// the archive's file NAME.
func TestCIDoc(t *testing.T) {
	doc, err := os.ReadFile("docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile("testdata/script/ci_recipe.txt")
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string]string)
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	blocks := docFiles(doc)
	for _, name := range []string{"Containerfile", ".github/workflows/probes.yml", "ci/build.sh", "ci/probes.sh", "src/shop.c"} {
		if _, ok := blocks[name]; !ok {
			t.Errorf("docs/ci.md does not show %s", name)
		}
	}
	for name, text := range blocks {
		want, ok := files[name]
		switch {
		case !ok:
			t.Errorf("docs/ci.md shows %s, which ci_recipe.txt lacks", name)
		case text != want:
			t.Errorf("docs/ci.md shows %s as\n%s\nci_recipe.txt has\n%s", name, text, want)
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
