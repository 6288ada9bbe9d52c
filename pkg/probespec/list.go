package probespec

// SplitList splits a comma-separated list of specifications or patterns,
// such as the START,END[,KEY] of a latency, at the commas that are
// outside braces and parentheses: "p:{a,b},p:c(str,u32)" is "p:{a,b}"
// and "p:c(str,u32)". An unbalanced closing brace or parenthesis counts
// as text.
func SplitList(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '(':
			depth++
		case '}', ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
