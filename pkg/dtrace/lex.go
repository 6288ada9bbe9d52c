package dtrace

import "fmt"

// A token is an identifier, a number, or one punctuation character.
type token struct {
	kind      tokKind
	text      string
	line, col int
}

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tNumber
	tPunct
)

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tIdent:
		return fmt.Sprintf("%q", t.text)
	case tNumber:
		return "number " + t.text
	}
	return fmt.Sprintf("'%s'", t.text)
}

// lexer splits a provider file into tokens, skipping white space,
// comments and preprocessor lines.
type lexer struct {
	file      string
	src       []byte
	i         int
	line, col int
	bol       bool // only white space since the start of the line
}

func newLexer(file string, src []byte) *lexer {
	return &lexer{file: file, src: src, line: 1, col: 1, bol: true}
}

func (l *lexer) errorf(line, col int, format string, a ...any) error {
	return &SyntaxError{File: l.file, Line: line, Col: col, Msg: fmt.Sprintf(format, a...)}
}

func (l *lexer) advance() {
	if l.src[l.i] == '\n' {
		l.line, l.col, l.bol = l.line+1, 1, true
	} else {
		l.col++
	}
	l.i++
}

func (l *lexer) next() (token, error) {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			l.advance()
		case c == '#' && l.bol:
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.advance()
			}
		case c == '/' && l.peek(1) == '/':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.advance()
			}
		case c == '/' && l.peek(1) == '*':
			line, col := l.line, l.col
			l.advance()
			l.advance()
			for {
				if l.i >= len(l.src) {
					return token{}, l.errorf(line, col, "comment not terminated")
				}
				if l.src[l.i] == '*' && l.peek(1) == '/' {
					l.advance()
					l.advance()
					break
				}
				l.advance()
			}
			l.bol = false
		default:
			return l.token()
		}
	}
	return token{kind: tEOF, line: l.line, col: l.col}, nil
}

func (l *lexer) peek(n int) byte {
	if l.i+n < len(l.src) {
		return l.src[l.i+n]
	}
	return 0
}

func (l *lexer) token() (token, error) {
	t := token{line: l.line, col: l.col}
	l.bol = false
	start := l.i
	c := l.src[l.i]
	switch {
	case isIdentStart(c):
		for l.i < len(l.src) && isIdentPart(l.src[l.i]) {
			l.advance()
		}
		t.kind = tIdent
	case c >= '0' && c <= '9':
		for l.i < len(l.src) && isIdentPart(l.src[l.i]) {
			l.advance()
		}
		t.kind = tNumber
	case c == '{' || c == '}' || c == '(' || c == ')' || c == ';' || c == ',' || c == '*' || c == ':' || c == '[' || c == ']':
		l.advance()
		t.kind = tPunct
	default:
		if c < 0x20 || c >= 0x7f {
			return t, l.errorf(t.line, t.col, "unexpected byte %#02x", c)
		}
		return t, l.errorf(t.line, t.col, "unexpected character %q", c)
	}
	t.text = string(l.src[start:l.i])
	return t, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
