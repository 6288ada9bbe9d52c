package symbolize

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// demangleName demangles C++ (Itanium ABI, _Z) and Rust (_R and the
// legacy _ZN...E form) names, with parameter types as c++filt and
// addr2line -C print them, and returns any other name as it is.
func demangleName(name string) string {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") && !strings.HasPrefix(name, "__Z") {
		return name
	}
	return demangle.Filter(name)
}
