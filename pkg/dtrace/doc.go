// Package dtrace parses DTrace provider files, the .d files that
// systemtap's dtrace -h and -G, and DTrace itself, turn into probe macros
// and notes:
//
//	#pragma D attributes Evolving/Evolving/Common provider myapp provider
//	provider myapp {
//		/* A request arrived. */
//		probe request__start(const char *path, unsigned long long id);
//		probe request__done(int);	// unnamed: arg0
//	};
//
// A file holds any number of provider blocks. Comments in both C styles
// are skipped, and so are preprocessor lines such as #pragma. An argument
// is a C type, of one or more words with any number of '*', optionally
// followed by a name; arguments without a name are called arg0, arg1 and
// so on after their position. A probe may also give DTrace's translated
// argument list after a colon, "probe p(int) : (string);", which is
// checked and otherwise ignored.
//
// Probe names are kept as written. In the notes sys/sdt.h leaves in the
// binary the name keeps its "__" too (request__start); DTrace shows "__"
// as "-" (request-start), which Probe.DisplayName returns.
//
// Classify sorts a C type into strings (char *), signed and unsigned
// integers with their size in bytes on LP64 machines, floating-point
// numbers and other pointers, which is what a tracer needs to show an
// argument's value.
//
// WriteHeader writes what systemtap's dtrace -h writes from the file, a C
// header of probe macros, but with no need of <sys/sdt.h>: each macro
// writes the nop and the stapsdt note itself. The semaphores it declares,
// named by SemaphoreName, are defined by the object that
// elfwriter.SemaphoreObject writes, as dtrace -G writes it.
package dtrace
