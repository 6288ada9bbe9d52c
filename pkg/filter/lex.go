package filter

import (
	"errors"
	"fmt"
	"strings"
)

// A tokKind is the kind of a token.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokIdent
	tokNumber
	tokString
	tokOp // == != < <= > >= && || ! ( )
)

// A token is one token of an expression and where it starts.
type token struct {
	kind tokKind
	text string // as written; a string's value is in val
	val  string // tokString: the literal, unescaped, without a prefix's star
	star bool   // tokString: ends with an unescaped *, a prefix
	pos  int    // byte offset in the expression
}

// lex splits src into tokens, ending with tokEOF.
func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; ; {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n') {
			i++
		}
		if i == len(src) {
			return append(toks, token{kind: tokEOF, pos: i}), nil
		}
		c := src[i]
		start := i
		switch {
		case isIdentStart(c):
			for i < len(src) && (isIdentStart(src[i]) || isDigit(src[i])) {
				i++
			}
			toks = append(toks, token{kind: tokIdent, text: src[start:i], pos: start})
		case isDigit(c) || c == '-' && i+1 < len(src) && isDigit(src[i+1]):
			i++
			for i < len(src) && (isIdentStart(src[i]) || isDigit(src[i])) {
				i++
			}
			toks = append(toks, token{kind: tokNumber, text: src[start:i], pos: start})
		case c == '"':
			val, star, n, err := unquote(src[i:])
			if err != nil {
				return nil, &Error{Pos: start, Token: src[start : i+n], Err: err}
			}
			i += n
			toks = append(toks, token{kind: tokString, text: src[start:i], val: val, star: star, pos: start})
		default:
			op := ""
			for _, o := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")"} {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, &Error{Pos: start, Token: src[start : start+1], Err: errors.New("unexpected character")}
			}
			i += len(op)
			toks = append(toks, token{kind: tokOp, text: op, pos: start})
		}
	}
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }

// unquote reads the string literal at the start of s and returns its
// value, whether it ends with an unescaped star (a prefix, left out of
// the value), and the bytes it took. A star elsewhere must be escaped.
func unquote(s string) (val string, star bool, n int, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), star, i + 1, nil
		case '\\':
			if star {
				return "", false, i + 1, errStar
			}
			if i+1 == len(s) {
				return "", false, len(s), errors.New("unterminated string")
			}
			i++
			switch e := s[i]; e {
			case '"', '\\', '*':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", false, i + 1, fmt.Errorf("unknown escape \\%c", e)
			}
		case '*':
			if star {
				return "", false, i + 1, errStar
			}
			star = true
		default:
			if star {
				return "", false, i + 1, errStar
			}
			b.WriteByte(c)
		}
	}
	return "", false, len(s), errors.New("unterminated string")
}

var errStar = errors.New(`a * only ends a prefix ("GE*"); write \* for a star`)
