// Vmtest boots Debian's kernels under qemu and runs sdtkit's attach
// checks and the tests of the packages that attach inside each: the
// kernel matrix, run by scripts/vmtest.
//
// Usage:
//
//	vmtest [-ci] [-guests LIST] [-cpus LIST] [-checks LIST] [-packages LIST] [-no-tests] [-doc FILE] [-cache DIR] [-timeout D] [-v]
//
// The matrix is Debian's kernels 5.10 (bullseye), 6.1 (bookworm) and
// 6.12 (trixie) on x86-64, and 6.1 and 6.12 on arm64, each booted with
// 2 and with 16 vCPUs (-cpus). -guests picks kernels, VERSION/ARCH, or
// guests, VERSION/ARCH/VCPUS; -ci picks the guests CI runs: an old
// kernel, an arm64 one and one of 16 vCPUs, each given 6 minutes
// unless -timeout says otherwise, and runs the attach checks only:
// the packages' tests lose races at times in a slow guest.
//
// As root, vmtest installs what it lacks through apt-get: qemu-system-x86
// and qemu-system-arm. It downloads the kernels' packages with apt-get
// download, through a private apt configuration under the cache (the
// host's Debian mirror, the suites of every kernel, amd64 and arm64),
// so that neither the host's sources, nor its dpkg architectures, nor
// its /boot change, and unpacks the kernel and the modules the guest
// loads into the cache (-cache, default /var/cache/sdtkit-vmtest for
// root, or $XDG_CACHE_HOME/sdtkit-vmtest).
//
// For each arch it builds, static, the tools of cmd/, the guest's init
// (internal/cmd/vminit), go test -c binaries of the packages whose
// tests attach (or of those -packages names), sdtgen fixtures of
// known values and, for arm64, pkg/unwind's chain fixture, which the
// ustack-dwarf checks and pkg/attach's tests unwind: built by the
// host's cross compiler (aarch64-linux-gnu-gcc, which vmtest installs
// as root), with the cross C library it runs with. It puts them in an
// initramfs with the plan of the checks. x86-64 guests boot Debian's
// generic kernels, whose 9p modules mount the host's root read-only, so
// that its libc and gcc serve the tests that build fixtures; arm64
// guests boot the cloud kernels. Guests run under TCG (nested KVM is
// not to be had everywhere), niced, one at a time; with more vCPUs than
// host cores, in one thread.
//
// It prints a table per guest as the guest ends, then all of them:
//
//	KERNEL  ARCH  VCPUS  CHECK  RESULT  SECONDS  REASON
//
// where RESULT is pass, fail or skip, and REASON says why a check failed
// or skipped, and what a passing one noted (the backend sdtattach chose
// by itself, values a backend cannot read). A guest that does not end
// its checks within -timeout (default 15m), or whose kernel panics (a
// soft lockup panics too), adds a failed check "guest" quoting the
// kernel's last BUG line. Each guest's
// console is kept in the cache's logs/ directory; -v copies it to the
// standard error as well. -doc writes the results as Markdown
// (docs/kernels.md).
//
// Vmtest exits 1 when a check failed. With -ci, a host that cannot have
// qemu or the kernels (not root, no Debian mirror, no network) skips
// the matrix with the reason on the standard error and exits 0.
package main
