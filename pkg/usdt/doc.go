// Package usdt attaches BPF programs of the caller's own to USDT probes:
// programs written with libbpf's USDT API, loaded with cilium/ebpf, with
// their arguments decoded by sdtkit.
//
// The BPF side is include/bpf/usdt.bpf.h, which offers what libbpf's
// <bpf/usdt.bpf.h> documents:
//
//	SEC("usdt")
//	int BPF_USDT(handler, const char *file, const char *func, int line)
//	{
//		long cookie = bpf_usdt_cookie(ctx);  // Options.Cookie
//		int n = bpf_usdt_arg_cnt(ctx);       // arguments of the site
//		long v;
//		int err = bpf_usdt_arg(ctx, 2, &v);  // argument 2, from 0
//		int size = bpf_usdt_arg_size(ctx, 2);
//		...
//	}
//
// A program written for libbpf's header builds against this one
// unchanged when the include directory, the one above bpf/, comes first
// in the include path; with bpf2go:
//
//	//go:generate go run github.com/cilium/ebpf/cmd/bpf2go prog prog.bpf.c -- -I$SDTKIT/pkg/usdt/include
//
// where $SDTKIT is the module's directory (go list -m -f '{{.Dir}}'
// github.com/sdtkit/sdtkit). Like libbpf's, the header includes libbpf's
// <bpf/bpf_helpers.h> and <bpf/bpf_tracing.h> where they are installed;
// it needs neither, nor any kernel header.
//
// The Go side is one call, in the shape of libbpf's
// bpf_program__attach_usdt(prog, pid, path, provider, name, opts):
//
//	l, err := usdt.Attach(objs.Handler, "/usr/bin/python3", "python", "function__entry",
//		&usdt.Options{Cookie: 1, Specs: objs.SdtUsdtSpecs})
//	...
//	defer l.Close()
//
// LoadCollection does it all for a CollectionSpec: it finds the sites
// of each Probe, sizes the map of specs for them, loads the collection
// and attaches each named program, with a Close that detaches them all
// and closes the collection:
//
//	c, err := usdt.LoadCollection(spec, []usdt.Probe{{Program: "handler",
//		Path: "/usr/bin/python3", Provider: "python", Name: "function__entry"}}, nil)
//
// Options.Specs is the map of specs of the program's collection (SpecMap;
// SdtUsdtSpecs in what bpf2go generates); without it Attach looks for it
// among the program's maps by id, which takes CAP_SYS_ADMIN. Attach reads
// the probe's notes, decodes each site's arguments with
// package argspec, stores in the program's map of specs how the BPF side
// reads them, and attaches the program to every site, each site's
// semaphore raised through ref_ctr_offset while attached. The uprobes are
// made, held and let go by a keeper process, as those of package bpf
// are, so that no SIGKILL of the caller leaves breakpoints or raised
// semaphores behind (see package bpf); Close detaches them all and
// returns once every site is restored. Several attachments of one
// program, each with a cookie of its own, share its map of specs.
//
// # Compatibility with libbpf
//
// The same:
//
//   - BPF_USDT, bpf_usdt_arg_cnt, bpf_usdt_arg, bpf_usdt_arg_size and
//     bpf_usdt_cookie: their names, parameters and values, errors
//     included (-ESRCH for a site not attached through this package,
//     -ENOENT for an argument the site does not have, *res 0 on error);
//   - BPF_USDT_MAX_SPEC_CNT, defined before the include, sizes the map
//     of specs (1024 here by default, 256 with libbpf), though
//     LoadCollection makes it larger where the sites found need more;
//   - programs of section usdt (cilium/ebpf loads them as kprobe
//     programs) are attached with one perf-event uprobe per site;
//     programs of section uprobe.multi with one uprobe_multi link per
//     file where the kernel has them (Linux 6.6).
//
// Different:
//
//   - The maps and the layout of a spec are this package's own (the map
//     of specs is SpecMap), as libbpf's are internal to libbpf: a
//     program built against libbpf's header is attached by libbpf, one
//     built against this one by this package.
//   - The kernel must have BPF cookies (Linux 5.15): the spec of a site
//     is found by the uprobe's cookie only. libbpf falls back on older
//     kernels to a map from instruction pointer to spec, which needs its
//     own loader (a kconfig extern of libbpf's, LINUX_HAS_BPF_COOKIE).
//     Attach and LoadCollection return an error matching
//     ErrNotSupported there.
//   - More argument forms are read: every form package argspec decodes,
//     among them rip-relative and GOT-relative globals, %ah, and the
//     8-byte register pairs of i386 programs, which an x86-64 kernel
//     serves; memory is read in the argument's size, not 8 bytes.
//   - An argument that cannot be read (a floating-point register) does
//     not fail the attachment, as it does with libbpf: Options.Warn is
//     told, and bpf_usdt_arg returns -EOPNOTSUPP for it. A float or
//     double in memory or in a general-purpose register reads as its
//     bits.
//   - The header's functions are static (bpf_usdt_arg, bpf_usdt_arg_cnt
//     and bpf_usdt_cookie not inlined), not libbpf's weak hidden globals,
//     so that cilium/ebpf verifies them with their caller's context; and
//     they read memory and registers with bpf_probe_read_user and
//     bpf_probe_read_kernel, which want a GPL-compatible license.
//   - The map of specs is not weak in every object, as libbpf's is:
//     cilium/ebpf refuses relocations against a weak map, and the
//     linker keeps a map weak when every definition is. Objects of
//     several files that include the header are linked into one
//     (bpftool gen object) when every file but one defines
//     BPF_USDT_WEAK before the include: its map of specs is then weak,
//     and its functions inlined, since cilium/ebpf refuses two static
//     functions of one name in an object.
//   - Beyond libbpf's one call: Options.Dlopen follows the libraries a
//     process loads later, which libbpf attaches to only when named by
//     path; Options.Libraries traces a command from its first
//     instruction; LoadCollection loads and attaches a CollectionSpec in
//     one call; the uprobes are held by a keeper process (kill-safety).
//
// Probes are named by file (a bare name is looked up as a shell or the
// dynamic loader would), provider and name, which may be globs; with
// Options.PID, in that process only, and with an empty path, in every
// object the process maps. A command is traced from its first
// instruction, as sdtattach -c traces it, when package launch starts it
// stopped at its execve and Options.Libraries names the libraries it
// will load:
//
//	c, err := launch.Start(argv, nil)
//	...
//	l, err := usdt.Attach(prog, "", "python", "function__entry",
//		&usdt.Options{PID: c.Pid, Libraries: c.Libraries, Dlopen: true})
//	...
//	err = c.Release()
//
// With Options.Dlopen, the libraries the process loads later with dlopen
// are followed, as sdtattach follows them (package dlopen): the process
// is stopped in the dynamic loader once it has mapped a library, before
// the library's constructors run, while the probe's sites in it are
// attached, with specs of their own in the map of specs. A probe that
// no object of the process has yet is then waited for rather than an
// error.
package usdt
